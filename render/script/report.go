package script

// The shell functions of the scripts' reports: krmplan's own words, the
// same in every script. Input reaches them only as arguments (quoted
// words, validated names) and as the variables the script sets from quoted
// words; they run kubectl through krmplan_kubectl, which each script
// defines with its cluster's flags. What the cluster holds (a value read
// back to show what changed) passes through tr, which turns every byte
// that is not printable ASCII into '?', before it reaches the terminal.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/guard"
	"github.com/krmplan/krmplan/tenancy"
)

// library is the functions both scripts use. krmplan_guards OBJECT
// RESOURCE NAME [TEST JSONPATH TEXT]... checks, after kubectl refused a
// step, each test of it alone with a server dry run and names those that
// fail now with the value the cluster holds; a dry run of a test that
// always holds (the object's apiVersion) comes first, so that a kubectl
// that cannot reach the object or may not patch it is not read as a
// changed value. krmplan_absent OBJECT RESOURCE NAME says, after a create
// failed, whether the object exists now.
const library = `krmplan_say() {
	printf 'krmplan: %s\n' "$*" >&2
}

krmplan_exit() {
	krmplan_code=$(($1 <= 239 ? 10 + $1 : 250))
	krmplan_say "stopped at step $1/$krmplan_total: exit code $krmplan_code"
	exit "$krmplan_code"
}

krmplan_guards() {
	krmplan_object=$1 krmplan_res=$2 krmplan_name=$3
	shift 3
	if ! krmplan_kubectl patch "$krmplan_res" "$krmplan_name" --type=json --dry-run=server -p '[{"op":"test","path":"/apiVersion","value":"kai.resources/v1alpha1"}]' >/dev/null 2>&1; then
		krmplan_say "  kubectl cannot patch $krmplan_object even in a dry run: it is gone, or the cluster refuses this user; kubectl's message above says which"
		return 0
	fi
	krmplan_changed=0
	while [ $# -ge 3 ]; do
		if ! krmplan_kubectl patch "$krmplan_res" "$krmplan_name" --type=json --dry-run=server -p "$1" >/dev/null 2>&1; then
			krmplan_now=$(krmplan_kubectl get "$krmplan_res" "$krmplan_name" -o "jsonpath=$2" 2>/dev/null | LC_ALL=C tr -c '[:print:]' '?')
			krmplan_say "  $3, the cluster holds ${krmplan_now:-nothing there}"
			krmplan_changed=$((krmplan_changed + 1))
		fi
		shift 3
	done
	if [ "$krmplan_changed" -eq 0 ]; then
		krmplan_say "  every value it tests is still as expected: the cause is kubectl's message above, not a changed value"
	fi
}

krmplan_absent() {
	if krmplan_now=$(krmplan_kubectl get "$2" "$3" --ignore-not-found -o name 2>/dev/null); then
		if [ -n "$krmplan_now" ]; then
			krmplan_say "  $1 exists: someone created it since the snapshot"
		else
			krmplan_say "  $1 does not exist yet: the cause is kubectl's message above"
		fi
	else
		krmplan_say "  kubectl cannot read $1: kubectl's message above says why"
	fi
}

krmplan_steps() {
	if [ "$1" -eq "$2" ]; then
		printf 'step %s' "$1"
	else
		printf 'steps %s to %s' "$1" "$2"
	fi
}
`

// applyLibrary is the patch script's own part: the refusal of any
// argument (exit 2), and the end of its report: krmplan_failed N says
// which steps were applied, the two ways on, and exits 10 + N.
const applyLibrary = `if [ $# -gt 0 ]; then
	krmplan_say "usage: sh $0: the patch script takes no argument (it applies every step; its rollback takes N)"
	exit 2
fi

krmplan_failed() {
	if [ "$1" -gt 1 ]; then
		krmplan_say "applied: $(krmplan_steps 1 $(($1 - 1))) of $krmplan_total; not applied: $(krmplan_steps "$1" "$krmplan_total") (a step is applied whole or not at all)"
	else
		krmplan_say "applied: nothing; not applied: $(krmplan_steps 1 "$krmplan_total")"
	fi
	if [ "$1" -gt 1 ]; then
		krmplan_say "two ways on:"
		krmplan_say "  - plan again from what the cluster holds now (the new plan holds only what is left to change): $krmplan_replan"
		krmplan_say "  - or undo what was applied, with the rollback script rendered with this one: sh $krmplan_rollback $(($1 - 1))"
	else
		krmplan_say "the way on: plan again from what the cluster holds now: $krmplan_replan"
	fi
	krmplan_exit "$1"
}
`

// deleteLibrary is krmplan_delete RESOURCE NAME URL TESTS, in a script
// that deletes an object (a rollback, a patch script with removals): its
// uid read, a server dry run of TESTS (a JSON patch of tests only, which
// changes nothing), a server dry run of the DELETE, then the DELETE, both
// with the uid as precondition — so that the object deleted is the one
// tested, and a namesake created since is never deleted (409 Conflict).
// The options are all in the DELETE's body: with a body, the API server
// reads none from the URL. An object that is gone already is no failure.
//
// krmplan_delete_checks RESOURCE NAME URL TESTS is all of it but the
// DELETE: it sets krmplan_uid ("" when the object is gone). A rename's
// step runs it before the relabel, so that a refused delete changes
// nothing.
const deleteLibrary = `krmplan_delete_checks() {
	krmplan_uid=$(krmplan_kubectl get "$1" "$2" --ignore-not-found -o 'jsonpath={.metadata.uid}') || return 1
	if [ -z "$krmplan_uid" ]; then
		return 0
	fi
	case $krmplan_uid in
	*[!0-9a-f-]*)
		krmplan_say "  $1/$2 has a uid that is not a UUID: not deleted"
		return 1
		;;
	esac
	krmplan_kubectl patch "$1" "$2" --type=json --dry-run=server -p "$4" >/dev/null || return 1
	printf '{"apiVersion":"v1","dryRun":["All"],"kind":"DeleteOptions","preconditions":{"uid":"%s"}}\n' "$krmplan_uid" |
		krmplan_kubectl delete --raw "$3" -f - >/dev/null
}

krmplan_delete() {
	krmplan_delete_checks "$@" || return 1
	if [ -z "$krmplan_uid" ]; then
		krmplan_say "  $1/$2 does not exist: nothing to delete"
		return 0
	fi
	printf '{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"%s"}}\n' "$krmplan_uid" |
		krmplan_kubectl delete --raw "$3" -f - >/dev/null || return 1
	printf '%s/%s deleted\n' "$1" "$2"
}
`

// rollbackLibrary is the rollback script's own part: krmplan_failed N,
// the report of a step that could not be undone (which steps were undone,
// which not; exit 10 + N); krmplan_gone RESOURCE NAME OBJECT N, before a
// removed object is created again: when it is still being deleted
// (Terminating: a finalizer holds it), a bounded wait for it to be gone
// ($KRMPLAN_DELETE_WAIT seconds, default 60), else the refusal with the
// command to run again; krmplan_holds RESOURCE NAME TESTS, whether a
// server dry run of TESTS passes (a step already undone); and the check of
// the one argument N (exit 2 for another or more).
const rollbackLibrary = `krmplan_failed() {
	if [ "$1" -lt "$krmplan_from" ]; then
		krmplan_say "undone: $(krmplan_steps "$krmplan_from" $(($1 + 1))); not undone: $(krmplan_steps "$1" 1)"
	else
		krmplan_say "undone: nothing; not undone: $(krmplan_steps "$1" 1)"
	fi
	krmplan_say "the way on: take a new snapshot of the cluster as it is now and plan the values you want against it: $krmplan_replan"
	krmplan_exit "$1"
}

krmplan_usage() {
	krmplan_say "usage: sh $krmplan_rollback [N]: undo steps N down to 1 of the patch script (N from 1 to $krmplan_total; default $krmplan_total, all of them)"
	exit 2
}

krmplan_gone() {
	krmplan_when=$(krmplan_kubectl get "$1" "$2" --ignore-not-found -o 'jsonpath={.metadata.deletionTimestamp}' 2>/dev/null | LC_ALL=C tr -c '[:print:]' '?') || return 0
	[ -n "$krmplan_when" ] || return 0
	case ${KRMPLAN_DELETE_WAIT-} in
	'' | *[!0-9]* | ?????*) krmplan_wait=60 ;;
	*) krmplan_wait=$KRMPLAN_DELETE_WAIT ;;
	esac
	krmplan_held=$(krmplan_kubectl get "$1" "$2" -o 'jsonpath={.metadata.finalizers}' 2>/dev/null | LC_ALL=C tr -c '[:print:]' '?')
	krmplan_say "  $3 is still being deleted (since $krmplan_when; finalizers ${krmplan_held:-none}): waiting up to $krmplan_wait s for it to be gone"
	if krmplan_kubectl wait --for=delete "$1/$2" --timeout="${krmplan_wait}s" >/dev/null 2>&1; then
		return 0
	fi
	krmplan_say "  $3 is still being deleted after $krmplan_wait s: its finalizers hold it; once it is gone (kubectl get $1 $2), run the rollback again: sh $krmplan_rollback $4"
	return 1
}

krmplan_holds() {
	krmplan_kubectl patch "$1" "$2" --type=json --dry-run=server -p "$3" >/dev/null 2>&1
}

if [ $# -gt 1 ]; then
	krmplan_usage
fi
case ${1-$krmplan_total} in
'' | *[!0-9]* | ??????????*) krmplan_usage ;;
esac
krmplan_from=${1-$krmplan_total}
if [ "$krmplan_from" -lt 1 ] || [ "$krmplan_from" -gt "$krmplan_total" ]; then
	krmplan_usage
fi
`

// guardArgs are the arguments of krmplan_guards for the tests of st: per
// test, the test alone as a JSON patch, the JSONPath kubectl get shows the
// value at, and the sentence that names it ("changed since the snapshot:
// gpu.deserved of queue vision-h100 (/spec/queues/0/resources/gpu/deserved):
// the plan read 8"; since names what the value should be since, verb how
// it came to be so).
func guardArgs(st planner.Step, since, verb string) ([]word, error) {
	var out []word
	for _, g := range guard.Of(st) {
		test, err := json.Marshal([]planner.Op{{Op: "test", Path: g.Path, Value: g.Value}})
		if err == nil {
			test, err = asciiJSON(test)
		}
		if err != nil {
			return nil, fmt.Errorf("the test of %s is not JSON: %w", g.Path, err)
		}
		path, err := jsonPath(g.Path)
		if err != nil {
			return nil, err
		}
		what := g.What
		if g.Path == "/metadata/uid" { // a delete's test of the object as read (planner.Guards names it by its path)
			what = "the uid of " + st.Object.Kind.Info().Word + " " + st.Object.Name
		}
		text := fmt.Sprintf("changed since %s: %s (%s): %s %s", since, what, g.Path, verb, shownValue(g.Value))
		out = append(out, quoted(string(test)), quoted(path), shown(text))
	}
	return out, nil
}

// jsonPath is kubectl's JSONPath of a JSON pointer of a KRM object, made of
// the pointer's segments: names as .name, indices as [i]. Only the
// pointers of krmplan's tests are accepted: segments of letters, digits and
// '/' (the annotation's "~1"), so that no JSONPath syntax comes from it.
func jsonPath(pointer string) (string, error) {
	var b strings.Builder
	b.WriteString("{")
	for _, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		seg = strings.ReplaceAll(seg, "~1", "/")
		switch {
		case seg == "" || strings.ContainsFunc(seg, func(r rune) bool { return !isPathRune(r) }):
			return "", fmt.Errorf("%q is not the JSON pointer of a field krmplan tests", pointer)
		case strings.Trim(seg, "0123456789") == "":
			b.WriteString("[" + seg + "]")
		default:
			b.WriteString("." + seg)
		}
	}
	return b.String() + "}", nil
}

func isPathRune(r rune) bool {
	return r == '/' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

// shownValue is a tested value as the report shows it: a string without
// its JSON quotes (kubectl's JSONPath shows the cluster's so), null (an
// absent field) as "nothing there", other JSON as it is.
func shownValue(v []byte) string {
	if string(v) == "null" { // the test that the field is absent
		return "nothing there"
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s
	}
	return string(v)
}

// objectWord names an object in a report: "Department vision".
func objectWord(a tenancy.ObjectAddr) string { return a.Kind.String() + " " + a.Name }
