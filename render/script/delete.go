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
//  3. the DELETE with dryRun: [All] (admission runs, nothing is persisted),
//     then the DELETE itself, both with the uid precondition. Both options
//     are in the body: given a body, the API server reads none from the
//     URL's query (a ?dryRun=All there would delete for real).
func writeDelete(w *shell, kubectl []word, name word, st planner.Step) error {
	info := st.Object.Kind.Info()
	plural := word(st.Object.Kind.Plural())
	uid, known := st.TestedUID()
	tests, err := json.Marshal(st.Ops)
	if err == nil {
		tests, err = asciiJSON(tests)
	}
	if err != nil {
		return fmt.Errorf("the tests are not JSON: %w", err)
	}
	url := word("/apis/" + tenancy.APIVersion + "/" + info.Resource + "/" + string(name))
	// The body is the whole of the DELETE's options: with a body, the API
	// server reads no option from the query, so the dry run is in it too.
	body := func(dry bool) []word {
		opts := deleteOptions(uid, dry)
		if known {
			b, _ := json.Marshal(opts) // strings only
			return []word{"printf", "'%s\\n'", quoted(string(b))}
		}
		opts["preconditions"] = map[string]string{"uid": "%s"}
		b, _ := json.Marshal(opts)
		return []word{"printf", quoted(string(b) + "\\n"), `"$uid"`}
	}
	if known {
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
	}
	for _, dry := range []bool{true, false} {
		said := "deleted"
		if dry {
			said = "deletion accepted in a server dry run"
		}
		w.code(join(body(dry)) + " | " + join(append(kubectl, "delete", "--raw", quoted(string(url)), "-f", "-")) + " >/dev/null")
		w.code("echo " + string(quoted(fmt.Sprintf("%s.%s/%s %s", info.Resource, tenancy.Group, name, said))))
	}
	return nil
}

// deleteOptions is the body of a DELETE that only deletes the object of
// that uid, in a dry run (dryRun: [All]) when dry is set.
func deleteOptions(uid string, dry bool) map[string]any {
	o := map[string]any{"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": map[string]string{"uid": uid}}
	if dry {
		o["dryRun"] = []string{"All"}
	}
	return o
}

// join is words as one command line.
func join(ws []word) string {
	s := make([]string, len(ws))
	for i, x := range ws {
		s[i] = string(x)
	}
	return strings.Join(s, " ")
}
