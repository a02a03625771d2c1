package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/guard"
	"github.com/krmplan/krmplan/planner/rollback"
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
	"k8s.io/apimachinery/pkg/util/validation"
)

// hostile are the inputs the fuzz test starts from: what a person who can
// name a ref, a repository folder, a kubeconfig context, an object, a
// queue or a value might write to run a command (here, create the file
// pwned in the folder the script runs in).
var hostile = []string{
	"workspace",
	"$(touch pwned)",
	"`touch pwned`",
	"x; touch pwned",
	"x | touch pwned",
	"x && touch pwned #",
	"x\ntouch pwned\n#",
	"x\rtouch pwned",
	"HEAD^{/x\ntouch pwned}",
	"it's'; touch pwned; '",
	`"; touch pwned; "`,
	`\'; touch pwned #`,
	"$IFS$(touch${IFS}pwned)",
	"${x:-$(touch pwned)}",
	"x\x00touch pwned",
	"\x1b[2K\x1b[1A\x1b[32mall checks passed\x1b[0m",
	"x\u2028touch pwned\u2029",
	"\u0085touch pwned",
	"x\nKRMPLAN_EOF\ntouch pwned\n",
	"KRMPLAN_EOF",
	"\xff\xfe$(touch pwned)",
	"évian\u202e\U0001f600",
}

// FuzzPatchScript renders plans whose every input is hostile, with their
// rollback, and runs each script under sh -n, then under sh (and bash,
// when there is one) with a recording kubectl first on PATH: once as a
// cluster that accepts everything, once as one that refuses the patches
// (their tests fail) and answers every read with terminal escapes and
// shell syntax. Each script must be plain text a terminal shows as it is,
// its only commands the plan's kubectl invocations with exactly the
// plan's arguments (and, when refused, the report's dry runs and reads),
// its stderr plain text, its exit code the documented one, and nothing
// else may run (the folder it runs in stays empty: no touch, no
// redirection). A plan with an object name that is not a Kubernetes name,
// or a context or kubeconfig that is empty or holds a control character,
// must be refused instead.
func FuzzPatchScript(f *testing.F) {
	sh := shells(f)
	for i, s := range hostile {
		t := hostile[(i+1)%len(hostile)]
		f.Add("workspace", s, t, s, s, s, t, s, i%2 == 0)
		f.Add(s, "q", "p", "prod", "/repo", "HEAD", "n", "1", true)
		f.Add("workspace", "q", s, t, s, t, s, t, i%2 == 1)
	}
	f.Fuzz(func(t *testing.T, name, queue, phase, ctx, repo, ref, note, value string, fromGit bool) {
		p, o := fuzzPlan(name, queue, phase, ctx, repo, ref, note, value, fromGit)
		apply, err := PatchScript(p, o)
		back, berr := RollbackScript(p, o)
		refuse := len(validation.IsDNS1123Subdomain(name)) > 0 || ctx == "" || escape.Has(ctx) || escape.Has(ref)
		switch {
		case refuse && (err == nil || berr == nil):
			t.Fatalf("rendered a plan with object %q, context %q, kubeconfig %q:\n%s%s", name, ctx, ref, apply, back)
		case refuse:
			return
		case err != nil || berr != nil:
			t.Fatalf("refused a plan with object %q, context %q, kubeconfig %q: %v, %v", name, ctx, ref, err, berr)
		}
		checkPrintable(t, apply)
		checkPrintable(t, back)
		for _, shell := range sh {
			for _, run := range fuzzRuns(p, o, apply, back) {
				got := runScript(t, shell, run)
				checkCalls(t, shell, got.calls, run.want, run.script)
				if got.code != run.code || (run.stderr != "" && got.stderr != run.stderr) {
					t.Fatalf("%s %s (%s): exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s\nscript:\n%s", shell[0], run.name, run.mode, got.code, got.stderr, run.code, run.stderr, run.script)
				}
				checkReport(t, run, got.stderr)
			}
		}
	})
}

// fuzzPlan is a plan of two steps (create a department, patch a project),
// both of object name, queue queue on node pool note, with every other
// input in the header comments, the arguments, the reports, the patch
// (value is the project's new namespace) and the manifest; and the
// options of its scripts (context ctx, kubeconfig ref, the rollback
// beside repo).
func fuzzPlan(name, queue, phase, ctx, repo, ref, note, value string, fromGit bool) (*planner.Plan, Options) {
	src := snapshot.Source{Kind: "cluster", Context: ctx}
	if fromGit {
		src = snapshot.Source{Kind: "git", Repo: repo, Ref: ref, Commit: note}
	}
	one, two := quota.FromInt(1), quota.FromInt(2)
	before := tenancy.Tenancy{Projects: []tenancy.Project{{Metadata: tenancy.Meta{Name: name}, Spec: tenancy.ProjectSpec{
		Queues: []tenancy.Queue{{Name: queue, NodePool: note, Resources: tenancy.Resources{GPU: &tenancy.Resource{Deserved: &one}}}}}}}}
	dept, proj := tenancy.KindDepartment.Object(name), tenancy.KindProject.Object(name)
	gpu := func(f tenancy.QuotaField) tenancy.Field { return tenancy.QuotaFieldOf(quota.GPU, f) }
	create := func(f tenancy.Field, v tenancy.Value) tenancy.Change {
		return tenancy.Change{Action: tenancy.ActionCreate, Field: dept.Queue(0).Field(f), After: v, Queue: queue, Pool: note}
	}
	changes := []tenancy.Change{
		create(tenancy.FieldQueueName, tenancy.String(queue)), create(tenancy.FieldQueueNodePool, tenancy.String(note)),
		create(gpu(tenancy.Deserved), tenancy.Number(two)),
		{Action: tenancy.ActionUpdate, Field: proj.Field(tenancy.FieldNamespace), After: tenancy.String(value)},
		{Action: tenancy.ActionUpdate, Field: proj.Queue(0).Field(gpu(tenancy.Limit)), After: tenancy.Number(two), Queue: queue, Pool: note},
	}
	target, err := tenancy.Apply(&before, changes)
	if err != nil {
		panic(err) // the changes are made for before
	}
	steps := planner.BuildSteps(tenancy.NewIndex(&before), tenancy.NewIndex(target), changes)
	for i := range steps {
		steps[i].Phase = planner.Phase(phase)
	}
	p := &planner.Plan{
		PlanID: strings.Repeat("0", 64), OrderVerified: true, Desired: planner.Desired{File: note + ".hcl"},
		Snapshot: &snapshot.State{Source: src, Tenancy: before, Profile: &profile.Profile{
			Reminders: []profile.Reminder{{File: repo, Note: note}}, CPUMemoryNote: value}},
		Target: target, Changes: changes, Steps: steps,
		Findings: []planner.Finding{{Code: planner.CodeGitOpsOwned, Level: planner.LevelWarning, Message: "project " + name + " " + note}},
	}
	return p, Options{Cluster: Cluster{Context: ctx, Kubeconfig: ref, From: phase}, Rollback: RollbackPath(repo)}
}

// call is one kubectl invocation: its arguments, and what it read on stdin.
type call struct {
	args  []string
	stdin string
}

// fuzzRun is one run of a script: its arguments, the cluster the stub
// plays (mode "accept" or "refuse"), and what it must do: the calls, the
// exit code, stderr exactly (when not ""), lines stderr must hold.
type fuzzRun struct {
	name, mode string
	script     []byte
	args       []string
	want       []call
	code       int
	stderr     string
	report     []string
}

// stubUID is the uid the stub gives every object.
const stubUID = "0123abcd-0000-4000-8000-00000000beef"

// stubValue is what the stub answers to every JSONPath read in mode
// refuse, and stubShown what the report shows of it (tr's '?' for each
// byte that is not printable ASCII).
const (
	stubValue = "\x1b]0;pwned\x07$(touch pwned)'\xc3\xa9"
	stubShown = "?]0;pwned?$(touch pwned)'??"
)

// fuzzRuns are the runs of p's scripts: the patch script accepted and
// refused at its second step, the rollback accepted (all steps, and
// step 1 alone) and refused at its first.
func fuzzRuns(p *planner.Plan, o Options, apply, back []byte) []fuzzRun {
	var base []string
	if o.Cluster.Kubeconfig != "" {
		base = append(base, "--kubeconfig", o.Cluster.Kubeconfig)
	}
	base = append(base, "--context", o.Cluster.Context)
	k := func(args ...string) []string { return append(append([]string(nil), base...), args...) }
	what := func(n int, st planner.Step) string {
		return escape.Controls(fmt.Sprintf("%d/%d: %s: %s %s", n, len(p.Steps), st.Phase, st.Object.Kind, st.Object.Name))
	}
	var applied []call
	var said string
	for i, st := range p.Steps {
		said += "krmplan: step " + what(i+1, st) + "\n"
		applied = append(applied, stepCall(k, p.PlanID, st))
	}
	rb, _ := rollback.Steps(p)
	var undone []call
	var undid string
	for i, st := range rb {
		undid += "krmplan: undoing step " + what(len(rb)-i, st) + "\n"
		undone = append(undone, undoCalls(k, st)...)
	}
	last := p.Steps[1]
	refused := append(append([]call(nil), applied...), guardCalls(k, last)...)
	return []fuzzRun{
		{name: "patch script", mode: "accept", script: apply, want: applied, stderr: said + "krmplan: all 2 steps applied\n"},
		{name: "patch script", mode: "refuse", script: apply, want: refused, code: 12, report: []string{
			"krmplan: step 2/2 failed: kubectl refused the patch of Project " + last.Object.Name,
			"krmplan: applied: step 1 of 2; not applied: step 2 (a step is applied whole or not at all)",
			"krmplan: stopped at step 2/2: exit code 12"}},
		{name: "rollback", mode: "accept", script: back, want: undone,
			stderr: undid + "krmplan: undone: steps 2 to 1: the cluster holds the snapshot's values for them again\n"},
		{name: "rollback 1", mode: "accept", script: back, args: []string{"1"}, want: undoCalls(k, rb[1]),
			stderr: "krmplan: undoing step " + what(1, rb[1]) + "\nkrmplan: undone: step 1: the cluster holds the snapshot's values for them again\n"},
		// An argument the script does not take: refused before any kubectl call.
		{name: "patch script with an argument", mode: "accept", script: apply, args: []string{"1"}, code: 2,
			report: []string{"apply.sh: the patch script takes no argument (it applies every step; its rollback takes N)"}},
		{name: "rollback with two arguments", mode: "accept", script: back, args: []string{"1", "2"}, code: 2,
			report: []string{" [N]: undo steps N down to 1 of the patch script (N from 1 to 2; default 2, all of them)"}},
		{name: "rollback", mode: "refuse", script: back, want: append(append(undoCalls(k, rb[0]), undoneCalls(k, rb[0], last)...), guardCalls(k, rb[0])...), code: 12, report: []string{
			"krmplan: undone: nothing; not undone: steps 2 to 1", "krmplan: stopped at step 2/2: exit code 12"}},
	}
}

// stepCall is the kubectl call of a step of the patch script: create -f -
// with the manifest (annotated with the plan id) on stdin, or patch with
// the step's operations as one argument.
func stepCall(k func(...string) []string, planID string, st planner.Step) call {
	if st.Action == planner.StepCreate {
		var m map[string]any
		_ = json.Unmarshal(st.Manifest, &m)
		m["metadata"].(map[string]any)["annotations"] = map[string]any{planner.CreatedByAnnotation: planID}
		b, _ := json.Marshal(m)
		return call{k("create", "-f", "-"), string(b)}
	}
	ops, _ := json.Marshal(st.Ops)
	return call{k("patch", st.Object.Kind.Plural(), st.Object.Name, "--type=json", "--field-manager=krmplan", "-p", string(ops)), ""}
}

// undoCalls are the kubectl calls of a rollback step: a patch, or the
// delete's read of the uid, dry run of its tests, dry run of the DELETE
// and DELETE, both with the uid.
func undoCalls(k func(...string) []string, st planner.Step) []call {
	plural, name := st.Object.Kind.Plural(), st.Object.Name
	if st.Action == planner.StepPatch {
		ops, _ := json.Marshal(st.Ops)
		return []call{{k("patch", plural, name, "--type=json", "--field-manager=krmplan", "-p", string(ops)), ""}}
	}
	tests, _ := json.Marshal(planner.TestOps(st))
	url := "/apis/kai.resources/v1alpha1/" + st.Object.Kind.Info().Resource + "/" + name
	return []call{
		{k("get", plural, name, "--ignore-not-found", "-o", "jsonpath={.metadata.uid}"), ""},
		{k("patch", plural, name, "--type=json", "--dry-run=server", "-p", string(tests)), ""},
		{k("delete", "--raw", url, "-f", "-"), `{"apiVersion":"v1","dryRun":["All"],"kind":"DeleteOptions","preconditions":{"uid":"` + stubUID + `"}}`},
		{k("delete", "--raw", url, "-f", "-"), `{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"` + stubUID + `"}}`},
	}
}

// undoneCalls are the rollback's call after kubectl refused the undo st of
// forward, when both are patches and forward only replaces values: the dry
// run of forward's tests that tells a step already undone (the stub
// refuses it in mode refuse).
func undoneCalls(k func(...string) []string, st, forward planner.Step) []call {
	if st.Action != planner.StepPatch || forward.Action != planner.StepPatch || !onlyReplaces(forward) {
		return nil
	}
	tests, _ := json.Marshal(planner.TestOps(forward))
	return []call{{k("patch", st.Object.Kind.Plural(), st.Object.Name, "--type=json", "--dry-run=server", "-p", string(tests)), ""}}
}

// guardCalls are the report's calls after kubectl refused st: the dry run
// that always holds, then per test its dry run and, as it fails, the read
// of the value.
func guardCalls(k func(...string) []string, st planner.Step) []call {
	plural, name := st.Object.Kind.Plural(), st.Object.Name
	out := []call{{k("patch", plural, name, "--type=json", "--dry-run=server", "-p", probe), ""}}
	for _, g := range guard.Of(st) {
		test, _ := json.Marshal([]planner.Op{{Op: "test", Path: g.Path, Value: g.Value}})
		path, _ := jsonPath(g.Path)
		out = append(out, call{k("patch", plural, name, "--type=json", "--dry-run=server", "-p", string(test)), ""},
			call{k("get", plural, name, "-o", "jsonpath="+path), ""})
	}
	return out
}

// probe is the report's dry run that always holds.
const probe = `[{"op":"test","path":"/apiVersion","value":"kai.resources/v1alpha1"}]`

// checkReport: a run's stderr is plain text, holds the report's lines, and
// in mode refuse shows what the cluster held through tr.
func checkReport(t *testing.T, run fuzzRun, stderr string) {
	t.Helper()
	for i, line := range strings.Split(stderr, "\n") {
		if escape.Has(line) {
			t.Fatalf("%s (%s): line %d of stderr holds a control character: %q", run.name, run.mode, i+1, line)
		}
	}
	for _, want := range run.report {
		if !strings.Contains(stderr, want+"\n") {
			t.Fatalf("%s (%s): stderr has no line %q:\n%s", run.name, run.mode, want, stderr)
		}
	}
	if run.mode == "refuse" && !strings.Contains(stderr, ", the cluster holds "+stubShown+"\n") {
		t.Fatalf("%s (%s): stderr does not show the cluster's value as %q:\n%s", run.name, run.mode, stubShown, stderr)
	}
}

// checkPrintable: every line of the script is UTF-8 without a character
// that escape.Controls would escape. (Its JSON is ASCII: sameJSON checks
// every JSON argument and here-document as kubectl reads it.)
func checkPrintable(t *testing.T, script []byte) {
	t.Helper()
	for i, line := range strings.Split(string(script), "\n") {
		if escape.Has(line) {
			t.Fatalf("line %d of the script holds a control character: %q", i+1, line)
		}
	}
}

// stub is the recording kubectl: per call, the argument count and each
// argument, then everything on its stdin, each NUL-terminated, appended
// to $KUBECTL_LOG (no argument can hold a NUL). It answers a read of a
// uid with stubUID. With KUBECTL_MODE=refuse it refuses every patch but a
// dry run of the report's probe, and answers every other read with
// $KUBECTL_VALUE; otherwise it accepts everything and prints nothing.
// The verb is the first argument after the cluster's flags (an object
// name may be "get").
const stub = `#!/bin/sh
printf '%s\0' "$#" "$@" >>"$KUBECTL_LOG"
/bin/cat >>"$KUBECTL_LOG"
printf '\0' >>"$KUBECTL_LOG"
while [ $# -gt 1 ]; do
	case $1 in
	--kubeconfig | --context) shift 2 ;;
	*) break ;;
	esac
done
verb=$1 dry=0 probe=0 uid=0
for a in "$@"; do
	case $a in
	--dry-run=server) dry=1 ;;
	'[{"op":"test","path":"/apiVersion","value":"kai.resources/v1alpha1"}]') probe=1 ;;
	'jsonpath={.metadata.uid}') uid=1 ;;
	esac
done
if [ "$uid" = 1 ]; then
	printf '%s' "$KUBECTL_UID"
	exit 0
fi
[ "$KUBECTL_MODE" = refuse ] || exit 0
case $verb in
get) printf '%s' "$KUBECTL_VALUE" ;;
patch) [ "$dry" = 1 ] && [ "$probe" = 1 ] || exit 1 ;;
esac
exit 0
`

// shells are the shells the fuzz test runs scripts with: sh, and bash in
// its POSIX mode when installed.
func shells(f *testing.F) [][]string {
	if _, err := exec.LookPath("sh"); err != nil {
		f.Skip("no sh on PATH")
	}
	out := [][]string{{"sh"}}
	if _, err := exec.LookPath("bash"); err == nil {
		out = append(out, []string{"bash", "--posix"})
	}
	return out
}

// ran is what a run of a script did: its kubectl calls, its stderr and
// its exit code.
type ran struct {
	calls  []call
	stderr string
	code   int
}

// runScript checks the run's script with `sh -n`, then runs it with its
// arguments in an empty folder with PATH starting at the recording
// kubectl in the run's mode. The folder must stay empty.
func runScript(t *testing.T, shell []string, r fuzzRun) ran {
	t.Helper()
	dir := t.TempDir()
	bin, work, file, log := filepath.Join(dir, "bin"), filepath.Join(dir, "work"), filepath.Join(dir, "apply.sh"), filepath.Join(dir, "kubectl.log")
	for _, d := range []string{bin, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, r.script, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run := func(args ...string) (string, int) {
		cmd := exec.CommandContext(ctx, shell[0], append(shell[1:], args...)...)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "KUBECTL_LOG=" + log, "HOME=" + work, "LC_ALL=C.UTF-8",
			"KUBECTL_MODE=" + r.mode, "KUBECTL_VALUE=" + stubValue, "KUBECTL_UID=" + stubUID}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s %s: %v\nscript:\n%s", strings.Join(shell, " "), strings.Join(args, " "), err, r.script)
		}
		return stderr.String(), cmd.ProcessState.ExitCode()
	}
	if stderr, code := run("-n", file); code != 0 || stderr != "" {
		t.Fatalf("%s -n: exit %d: %s\nscript:\n%s", shell[0], code, stderr, r.script)
	}
	stderr, code := run(append([]string{file}, r.args...)...)
	if left, _ := os.ReadDir(work); len(left) > 0 {
		t.Fatalf("%s ran a command: %s appeared in the folder the script ran in\nscript:\n%s", shell[0], left[0].Name(), r.script)
	}
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	calls, err := parseLog(data)
	if err != nil {
		t.Fatalf("the kubectl log: %v\nscript:\n%s", err, r.script)
	}
	return ran{calls, stderr, code}
}

// parseLog reads the stub's records.
func parseLog(data []byte) ([]call, error) {
	fields := strings.Split(string(data), "\x00")
	if len(fields) == 0 || fields[len(fields)-1] != "" {
		return nil, fmt.Errorf("%q does not end in a NUL", data)
	}
	fields = fields[:len(fields)-1]
	var out []call
	for len(fields) > 0 {
		n, err := strconv.Atoi(fields[0])
		if err != nil || n < 0 || len(fields) < n+2 {
			return nil, fmt.Errorf("a record of %q arguments in %q", fields[0], data)
		}
		out = append(out, call{fields[1 : n+1], fields[n+1]})
		fields = fields[n+2:]
	}
	return out, nil
}

// checkCalls compares the calls: arguments exactly, except a -p patch,
// and stdin, which must be ASCII JSON of the same value as wanted.
func checkCalls(t *testing.T, shell []string, got, want []call, script []byte) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Fatalf("%s: %s\nscript:\n%s", shell[0], fmt.Sprintf(format, args...), script)
	}
	if len(got) != len(want) {
		fail("%d kubectl calls, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if len(g.args) != len(w.args) {
			fail("call %d: kubectl %q, want %q", i+1, g.args, w.args)
		}
		for j := range w.args {
			same := g.args[j] == w.args[j]
			if j == len(w.args)-1 && j > 0 && w.args[j-1] == "-p" {
				same = sameJSON(g.args[j], w.args[j])
			}
			if !same {
				fail("call %d: argument %d is %q, want %q", i+1, j+1, g.args[j], w.args[j])
			}
		}
		if (w.stdin == "") != (g.stdin == "") || (w.stdin != "" && !sameJSON(g.stdin, w.stdin)) {
			fail("call %d read %q on stdin, want the JSON %q", i+1, g.stdin, w.stdin)
		}
	}
}

// sameJSON reports whether got is ASCII JSON of the value of want.
func sameJSON(got, want string) bool {
	if strings.ContainsFunc(got, func(r rune) bool { return r > 0x7e }) {
		return false
	}
	decode := func(s string) (any, error) {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	g, err1 := decode(got)
	w, err2 := decode(want)
	return err1 == nil && err2 == nil && reflect.DeepEqual(g, w)
}
