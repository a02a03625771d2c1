package script

import (
	"bytes"
	"context"
	"encoding/json"
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

// FuzzPatchScript renders plans whose every input is hostile and runs each
// script under sh -n, then under sh (and bash, when there is one) with a
// recording kubectl first on PATH: the script must be plain text a
// terminal shows as it is, its only commands the plan's kubectl
// invocations with exactly the plan's arguments, and nothing else may run
// (the folder it runs in stays empty: no touch, no redirection). A plan
// with an object name that is not a Kubernetes name, or a context with a
// control character, must be refused instead.
func FuzzPatchScript(f *testing.F) {
	sh := shells(f)
	for i, s := range hostile {
		t := hostile[(i+1)%len(hostile)]
		f.Add("workspace", s, t, s, s, s, t, s, i%2 == 0)
		f.Add(s, "q", "p", "", "/repo", "HEAD", "n", "1", true)
		f.Add("workspace", "q", s, t, s, t, s, t, i%2 == 1)
	}
	f.Fuzz(func(t *testing.T, name, queue, phase, ctx, repo, ref, note, value string, fromGit bool) {
		p := fuzzPlan(name, queue, phase, ctx, repo, ref, note, value, fromGit)
		script, err := PatchScript(p)
		refuse := len(validation.IsDNS1123Subdomain(name)) > 0 || escape.Has(ctx)
		switch {
		case refuse && err == nil:
			t.Fatalf("rendered a plan with object %q, context %q:\n%s", name, ctx, script)
		case refuse:
			return
		case err != nil:
			t.Fatalf("refused a plan with object %q, context %q: %v", name, ctx, err)
		}
		checkPrintable(t, script)
		want := wantCalls(p)
		for _, shell := range sh {
			got := runScript(t, shell, script)
			checkCalls(t, shell, got, want, script)
		}
	})
}

// fuzzPlan is a plan of two steps (create a department, patch a project),
// both of object name, with every other input in the header comments, the
// arguments, the patch and the manifest.
func fuzzPlan(name, queue, phase, ctx, repo, ref, note, value string, fromGit bool) *planner.Plan {
	src := snapshot.Source{Kind: "cluster", Context: ctx}
	if fromGit {
		src = snapshot.Source{Kind: "git", Repo: repo, Ref: ref, Commit: note, Context: ctx}
	}
	val := json.RawMessage(value)
	if !json.Valid(val) {
		val, _ = json.Marshal(value)
	}
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	man, _ := json.Marshal(map[string]any{
		"apiVersion": "kai.resources/v1alpha1", "kind": tenancy.KindDepartment.String(), "metadata": map[string]any{"name": name},
		"spec": map[string]any{"queues": []any{map[string]any{"name": queue, "nodepool": note, "resources": map[string]any{"gpu": map[string]any{"deserved": val}}}}},
	})
	return &planner.Plan{
		PlanID: strings.Repeat("0", 64),
		Snapshot: &snapshot.State{Source: src, Profile: &profile.Profile{
			Reminders: []profile.Reminder{{File: repo, Note: note}}, CPUMemoryNote: value}},
		Changes: []tenancy.Change{{Action: tenancy.ActionUpdate, Queue: queue,
			Field: tenancy.KindProject.Object(name).Queue(0).Field(tenancy.QuotaFieldOf(quota.CPU, tenancy.Limit))}},
		Findings: []planner.Finding{{Code: planner.CodeGitOpsOwned, Level: planner.LevelWarning, Message: "project " + name + " " + note}},
		Steps: []planner.Step{
			{Phase: planner.Phase(phase), Action: planner.StepCreate, Object: tenancy.KindDepartment.Object(name), Manifest: man},
			{Phase: planner.Phase(phase), Action: planner.StepPatch, Object: tenancy.KindProject.Object(name), Ops: []planner.Op{
				{Op: "test", Path: "/spec/queues/0/name", Value: str(queue)},
				{Op: "replace", Path: "/spec/queues/0/resources/" + ref, Value: val},
			}},
		},
	}
}

// call is one kubectl invocation: its arguments, and what it read on stdin.
type call struct {
	args  []string
	stdin string
}

// wantCalls is what the script of p must run: per step, kubectl with
// p's context, and create -f - with the manifest on stdin, or patch with
// the step's operations as one argument. JSON is compared by value.
func wantCalls(p *planner.Plan) []call {
	var base []string
	if ctx := p.Snapshot.Source.Context; ctx != "" {
		base = []string{"--context", ctx}
	}
	var out []call
	for _, st := range p.Steps {
		args := append([]string(nil), base...)
		if st.Action == planner.StepCreate {
			out = append(out, call{append(args, "create", "-f", "-"), string(st.Manifest)})
			continue
		}
		args = append(args, "patch", st.Object.Kind.Plural(), st.Object.Name, "--type=json")
		if len(base) > 0 {
			args = append(args, "--field-manager=krmplan")
		}
		ops, _ := json.Marshal(st.Ops)
		out = append(out, call{append(args, "-p", string(ops)), ""})
	}
	return out
}

// checkPrintable: every line of the script is UTF-8 without a character
// that escape.Controls would escape, and every JSON in it is ASCII.
func checkPrintable(t *testing.T, script []byte) {
	t.Helper()
	for i, line := range strings.Split(string(script), "\n") {
		if escape.Has(line) {
			t.Fatalf("line %d of the script holds a control character: %q", i+1, line)
		}
		if !strings.HasPrefix(line, "#") && strings.ContainsFunc(line, func(r rune) bool { return r > 0x7e }) {
			t.Fatalf("line %d of the script is not ASCII: %q", i+1, line)
		}
	}
}

// stub is the recording kubectl: per call, the argument count and each
// argument, then everything on its stdin, each NUL-terminated, appended
// to $KUBECTL_LOG (no argument can hold a NUL).
const stub = `#!/bin/sh
printf '%s\0' "$#" "$@" >>"$KUBECTL_LOG"
/bin/cat >>"$KUBECTL_LOG"
printf '\0' >>"$KUBECTL_LOG"
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

// runScript checks script with `sh -n`, then runs it in an empty folder
// with PATH starting at the recording kubectl, and returns the calls. The
// folder must stay empty and the script must succeed without a word on
// stderr.
func runScript(t *testing.T, shell []string, script []byte) []call {
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
	if err := os.WriteFile(file, script, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run := func(args ...string) {
		cmd := exec.CommandContext(ctx, shell[0], append(shell[1:], args...)...)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "KUBECTL_LOG=" + log, "HOME=" + work, "LC_ALL=C.UTF-8"}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Fatalf("%s %s: %v\nstderr: %s\nscript:\n%s", strings.Join(shell, " "), strings.Join(args, " "), err, stderr.Bytes(), script)
		}
	}
	run("-n", file)
	run(file)
	if left, _ := os.ReadDir(work); len(left) > 0 {
		t.Fatalf("%s ran a command: %s appeared in the folder the script ran in\nscript:\n%s", shell[0], left[0].Name(), script)
	}
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	calls, err := parseLog(data)
	if err != nil {
		t.Fatalf("the kubectl log: %v\nscript:\n%s", err, script)
	}
	return calls
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
