package script

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// writeDelete writes the commands of a delete step. kubectl delete has no
// uid precondition flag, so the object is deleted through the API's own
// DELETE with a DeleteOptions body whose preconditions.uid is the uid of
// the object as read (`kubectl delete --raw URL -f -`): the API server
// refuses (409 Conflict) to delete an object of that name with another
// uid, so a namesake created since is never deleted. In order:
//
//  1. the uid: the snapshot's (a live snapshot), or read now with kubectl
//     get (a git snapshot) and checked to be a uid;
//  2. a JSON patch of tests only (it changes nothing): the uid, and the
//     values the plan read (a queue's name, pool and numbers), so an object
//     edited since the snapshot is not deleted unseen;
//  3. the DELETE with dryRun=All (the server's admission runs, nothing is
//     persisted), then the DELETE itself, both with the uid precondition.
func writeDelete(w *shell, kubectl []word, name word, st planner.Step) error {
	info := st.Object.Kind.Info()
	plural := word(st.Object.Kind.Plural())
	uid, known := uidTested(st.Ops)
	tests, err := json.Marshal(st.Ops)
	if err == nil {
		tests, err = asciiJSON(tests)
	}
	if err != nil {
		return fmt.Errorf("the tests are not JSON: %w", err)
	}
	url := word("/apis/" + tenancy.APIVersion + "/" + info.Resource + "/" + string(name))
	var body []word
	if known {
		b, _ := json.Marshal(deleteOptions(uid)) // strings only
		body = []word{"printf", "'%s\\n'", quoted(string(b))}
		w.command(append(kubectl, "patch", plural, name, "--type=json", "-p", quoted(string(tests)))...)
	} else {
		w.code("uid=$(" + join(append(kubectl, "get", plural, name, "-o", "'jsonpath={.metadata.uid}'")) + ")")
		w.code(`case "$uid" in ''|*[!0-9a-f-]*) echo "krmplan: ` + string(plural) + " " + string(name) + ` has no uid as read: $uid" >&2; exit 1;; esac`)
		// The uid test first, the uid spliced in as a double-quoted
		// expansion (checked above to be hex and dashes), the rest quoted.
		rest := strings.TrimPrefix(string(tests), "[")
		if rest != "]" {
			rest = "," + rest
		}
		patch := string(quoted(`[{"op":"test","path":"/metadata/uid","value":"`)) + `"$uid"` + string(quoted(`"}`+rest))
		w.code(join(append(kubectl, "patch", plural, name, "--type=json", "-p")) + " " + patch)
		body = []word{"printf", `'{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"%s"}}\n'`, `"$uid"`}
	}
	for _, dry := range []bool{true, false} {
		u, said := url, "deleted"
		if dry {
			u, said = url+"?dryRun=All", "deletion accepted in a server dry run"
		}
		w.code(join(body) + " | " + join(append(kubectl, "delete", "--raw", quoted(string(u)), "-f", "-")) + " >/dev/null")
		w.code("echo " + string(quoted(fmt.Sprintf("%s.%s/%s %s", info.Resource, tenancy.Group, name, said))))
	}
	return nil
}

// uidTested returns the uid that the step's first op tests, when it does.
func uidTested(ops []planner.Op) (uid string, ok bool) {
	if len(ops) == 0 || ops[0].Op != "test" || ops[0].Path != "/metadata/uid" {
		return "", false
	}
	if err := json.Unmarshal(ops[0].Value, &uid); err != nil || uid == "" {
		return "", false
	}
	return uid, true
}

// deleteOptions is the body of a DELETE that only deletes the object of
// that uid.
func deleteOptions(uid string) any {
	return map[string]any{"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": map[string]string{"uid": uid}}
}

// join is words as one command line.
func join(ws []word) string {
	s := make([]string, len(ws))
	for i, x := range ws {
		s[i] = string(x)
	}
	return strings.Join(s, " ")
}
