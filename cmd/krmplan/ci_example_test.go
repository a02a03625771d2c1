package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is what the tests read of a GitHub Actions workflow.
type workflow struct {
	On          map[string]yaml.Node `yaml:"on"`
	Permissions yaml.Node            `yaml:"permissions"`
	Concurrency struct {
		Group string `yaml:"group"`
	} `yaml:"concurrency"`
	Jobs map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Steps       []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, name string) (workflow, []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../../examples/ci", name))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(src, &wf); err != nil {
		t.Fatalf("%s is not YAML: %v", name, err)
	}
	return wf, src
}

// pinned is an action pinned to a commit, with the release in a comment.
var pinned = regexp.MustCompile(`(?m)^\s*(?:- )?uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$`)

// TestCIExample: the example workflows are YAML GitHub Actions can read
// (scripts/test runs actionlint on them too); the pull_request workflow
// may only read, and the one that comments runs on workflow_run without
// checking anything out; each has a concurrency group; every action is
// pinned to a commit; and every krmplan command they run exists with the
// flags they use, so the example cannot rot as the CLI moves.
func TestCIExample(t *testing.T) {
	wf, src := readWorkflow(t, "krmplan.yml")
	cm, csrc := readWorkflow(t, "krmplan-comment.yml")
	if _, ok := wf.On["pull_request"]; !ok || wf.Jobs["check"].Steps == nil || wf.Jobs["plan"].Steps == nil {
		t.Fatalf("krmplan.yml: want jobs check and plan on pull_request: %+v", wf)
	}
	if _, ok := wf.On["pull_request_target"]; ok {
		t.Error("krmplan.yml runs on pull_request_target: it reads the pull request's files with write access")
	}
	var perms map[string]string
	if err := wf.Permissions.Decode(&perms); err != nil || len(perms) != 1 || perms["contents"] != "read" {
		t.Errorf("krmplan.yml: permissions %v, want only contents: read", perms)
	}
	if _, ok := cm.On["workflow_run"]; !ok || len(cm.On) != 1 {
		t.Errorf("krmplan-comment.yml: want on workflow_run only: %v", cm.On)
	}
	if p := cm.Jobs["comment"].Permissions; len(p) != 2 || p["pull-requests"] != "write" || p["actions"] != "read" {
		t.Errorf("krmplan-comment.yml: permissions %v, want pull-requests: write and actions: read", p)
	}
	for name, w := range map[string]workflow{"krmplan.yml": wf, "krmplan-comment.yml": cm} {
		if w.Concurrency.Group == "" {
			t.Errorf("%s has no concurrency group", name)
		}
		for _, j := range w.Jobs {
			for _, st := range j.Steps {
				if st.Uses != "" && !pinned.MatchString("uses: "+st.Uses+" # v0.0.0") {
					t.Errorf("%s: %s is not pinned to a commit", name, st.Uses)
				}
				if strings.HasPrefix(st.Uses, "actions/checkout@") && name == "krmplan-comment.yml" {
					t.Errorf("krmplan-comment.yml checks out code: it must only read the artifact")
				}
			}
		}
	}
	if n := len(pinned.FindAll(append(src, csrc...), -1)); n != strings.Count(string(src)+string(csrc), "uses: ") {
		t.Errorf("%d actions are pinned with a release comment, of %d", n, strings.Count(string(src)+string(csrc), "uses: "))
	}
	if bytes.Contains(src, []byte("@latest")) {
		t.Error("krmplan.yml installs @latest")
	}
	used := checkCommandLines(t, wf)
	for _, c := range []string{"check", "snapshot", "plan", "show"} {
		if !used[c] {
			t.Errorf("the workflow does not run krmplan %s", c)
		}
	}
	for _, want := range []string{"--base", "--summary", "$GITHUB_STEP_SUMMARY", "plan --git-repo . --base"} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("krmplan.yml does not use %s", want)
		}
	}
}

// checkCommandLines checks every krmplan command line of the workflow's
// scripts against the CLI and returns the commands used.
func checkCommandLines(t *testing.T, wf workflow) map[string]bool {
	app := newApp(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	used := map[string]bool{}
	for job, j := range wf.Jobs {
		for _, st := range j.Steps {
			for _, line := range strings.Split(st.Run, "\n") {
				f := strings.Fields(line)
				if len(f) < 2 || f[0] != "krmplan" {
					continue
				}
				cmd := app.Command(f[1])
				if cmd == nil {
					t.Errorf("%s: krmplan %s: no such command", job, f[1])
					continue
				}
				used[f[1]] = true
				flags := map[string]bool{}
				for _, fl := range cmd.Flags {
					for _, n := range fl.Names() {
						flags[n] = true
					}
				}
				for _, a := range f[2:] {
					if strings.HasPrefix(a, "-") && !flags[strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")] {
						t.Errorf("%s: krmplan %s has no flag %s", job, f[1], a)
					}
				}
			}
		}
	}
	return used
}

// commentHarness runs the comment step's github-script body under node
// with GitHub's objects stubbed: the event of a run from a fork (no
// pull_requests in it), the pull request from pulls.get, the comments
// from paginate. It prints what the script did as JSON lines.
const commentHarness = `
const fs = require('fs');
const s = JSON.parse(fs.readFileSync('case.json', 'utf8'));
const calls = [];
const log = (c) => calls.push(c);
const context = { repo: { owner: 'o', repo: 'r' }, payload: { workflow_run: {
  head_sha: s.runSha, pull_requests: [], head_repository: { full_name: 'fork/r' } } } };
const github = {
  rest: {
    pulls: { get: async (a) => ({ data: { head: { sha: s.prSha, repo: { full_name: 'fork/r' } } } }) },
    issues: {
      listComments: 'listComments',
      updateComment: async (a) => log({ update: a.comment_id, body: a.body }),
      createComment: async (a) => log({ create: a.issue_number, body: a.body }),
    },
  },
  paginate: async (fn, a) => s.comments,
};
const core = { setFailed: (m) => log({ failed: m }), info: (m) => log({ info: m }) };
(async () => { SCRIPT })().then(() => console.log(JSON.stringify(calls)), (e) => { console.error(e); process.exit(1); });
`

// TestCIExampleComment runs the comment script of krmplan-comment.yml on
// the cases that matter for pull requests from forks: a first comment, an
// update of krmplan's own comment (not another bot's), a plan of an older
// push, a pull request number that is not one, a comment that is not
// krmplan's.
func TestCIExampleComment(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the comment script is not run")
	}
	var wf struct {
		Jobs struct {
			Comment struct {
				Steps []struct {
					With struct {
						Script string `yaml:"script"`
					} `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"comment"`
		} `yaml:"jobs"`
	}
	src, err := os.ReadFile("../../examples/ci/krmplan-comment.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(src, &wf); err != nil {
		t.Fatal(err)
	}
	script := ""
	for _, st := range wf.Jobs.Comment.Steps {
		script += st.With.Script
	}
	plan := "<!-- krmplan:plan-id=abc -->\n### plan\n"
	other := map[string]any{"id": 1, "user": map[string]string{"login": "someone[bot]"}, "body": "<!-- krmplan:plan-id=x -->"}
	ours := map[string]any{"id": 2, "user": map[string]string{"login": "github-actions[bot]"}, "body": "<!-- krmplan:plan-id=old -->"}
	for _, tc := range []struct {
		name, pr, comment, prSha string
		comments                 []any
		want                     string
	}{
		{"a first comment", "7", plan, "aaa", nil, `[{"create":7,"body":"` + "<!-- krmplan:plan-id=abc -->\\n### plan\\n" + `"}]`},
		{"krmplan's comment is updated", "7", plan, "aaa", []any{other, ours}, `[{"update":2,"body":"<!-- krmplan:plan-id=abc -->\n### plan\n"}]`},
		{"an older push", "7", plan, "bbb", nil, `[{"info":"Pull request #7 is at bbb; this run planned aaa: not commenting."}]`},
		{"not a number", "7; rm -rf /", plan, "aaa", nil, `[{"failed":"krmplan-comment/pr-number is not a pull request number: \"7; rm -rf /\""}]`},
		{"not a plan", "7", "hello", "aaa", nil, `[{"failed":"krmplan-comment/comment.md is not a krmplan plan comment of at most 65,536 characters."}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "krmplan-comment"), 0o755); err != nil {
				t.Fatal(err)
			}
			cs, _ := json.Marshal(map[string]any{"runSha": "aaa", "prSha": tc.prSha, "comments": append([]any{}, tc.comments...)})
			for name, data := range map[string]string{"krmplan-comment/pr-number": tc.pr + "\n", "krmplan-comment/comment.md": tc.comment,
				"case.json": string(cs), "harness.js": strings.Replace(commentHarness, "SCRIPT", script, 1)} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(node, "harness.js")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, out)
			}
			var got, want any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if g, w := mustJSON(got), mustJSON(want); g != w {
				t.Errorf("got  %s\nwant %s", g, w)
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCIExamplePaths: the pull_request paths of krmplan.yml cover its
// TENANCY (a folder as "FOLDER/**", a file as itself) and DESIRED, and the
// workflow itself. GitHub cannot expand a variable there, so the example
// spells them out and says to change them together; this keeps the
// example's own pair in step.
func TestCIExamplePaths(t *testing.T) {
	var wf struct {
		On struct {
			PullRequest struct {
				Paths []string `yaml:"paths"`
			} `yaml:"pull_request"`
		} `yaml:"on"`
		Env map[string]string `yaml:"env"`
	}
	_, src := readWorkflow(t, "krmplan.yml")
	if err := yaml.Unmarshal(src, &wf); err != nil {
		t.Fatal(err)
	}
	want := []string{wf.Env["DESIRED"], ".github/workflows/krmplan.yml"}
	for _, p := range strings.Fields(wf.Env["TENANCY"]) {
		if !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			p += "/**"
		}
		want = append(want, p)
	}
	got := wf.On.PullRequest.Paths
	for _, w := range want {
		if w == "" || !slices.Contains(got, w) {
			t.Errorf("krmplan.yml: on.pull_request.paths %q lack %q (TENANCY %q, DESIRED %q)", got, w, wf.Env["TENANCY"], wf.Env["DESIRED"])
		}
	}
	if !strings.Contains(string(src), "Keep these paths in step with TENANCY and DESIRED below") {
		t.Error("krmplan.yml: the comment above paths that says to change them with TENANCY and DESIRED is gone")
	}
}
