package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCIExample: the example workflow is YAML GitHub Actions can read, runs
// on pull requests touching tenancy files, and every krmplan command in it
// exists with the flags it uses, so the example cannot rot as the CLI moves.
func TestCIExample(t *testing.T) {
	src, err := os.ReadFile("../../examples/ci/krmplan.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			PullRequest struct {
				Paths []string `yaml:"paths"`
			} `yaml:"pull_request"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(src, &wf); err != nil {
		t.Fatalf("the workflow is not YAML: %v", err)
	}
	if len(wf.On.PullRequest.Paths) == 0 || wf.Jobs["check"].Steps == nil || wf.Jobs["plan"].Steps == nil {
		t.Fatalf("want jobs check and plan on pull requests with paths: %+v", wf)
	}
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
	for _, c := range []string{"check", "snapshot", "plan", "show"} {
		if !used[c] {
			t.Errorf("the workflow does not run krmplan %s", c)
		}
	}
	if !bytes.Contains(src, []byte("<!-- krmplan:plan-id=")) {
		t.Error("the workflow does not look for its comment by the plan-id marker")
	}
}
