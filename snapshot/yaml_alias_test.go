package snapshot

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Values reached through an alias, an aliased mapping or a merge key are
// read (KRM reads them) but marked as aliases at the alias's position,
// with the anchor's line: a splice must not edit the anchor's bytes.
func TestAliasPositions(t *testing.T) {
	src := `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  queues:
    - name: a-1
      nodepool: p1
      resources: &std
        gpu: {deserved: 1, limit: &four 4}
    - name: a-2
      nodepool: p2
      resources: *std
    - name: a-3
      nodepool: p3
      resources:
        <<: *std
        cpu: {deserved: 2}
    - name: a-4
      nodepool: p4
      resources:
        gpu: {deserved: 3, limit: *four}
`
	var ten Parsed
	if err := ten.ParseTenancy("t.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	vals := ten.Projects[0].Origin.Values
	for _, tc := range []struct {
		path       string
		line       int
		text       string
		alias      bool
		anchor     string // the shared anchor the value lies in
		anchorLine int
	}{
		{"/spec/queues/0/resources/gpu/deserved", 11, "1", false, "std", 10},
		{"/spec/queues/0/resources/gpu/limit", 11, "4", false, "four", 11},
		{"/spec/queues/1/resources/gpu/deserved", 14, "*std", true, "", 10},
		{"/spec/queues/2/resources/gpu/limit", 18, "*std", true, "", 10},
		{"/spec/queues/2/resources/cpu/deserved", 19, "2", false, "", 0},
		{"/spec/queues/3/resources/gpu/limit", 23, "*four", true, "", 11},
		{"/spec/queues/3/resources/gpu/deserved", 23, "3", false, "", 0},
	} {
		p, ok := vals.Value(tc.path)
		if !ok {
			t.Errorf("%s: no position", tc.path)
			continue
		}
		if p.Line != tc.line || p.Text != tc.text || p.Alias != tc.alias || p.Anchor != tc.anchor || p.AnchorLine != tc.anchorLine {
			t.Errorf("%s: got line %d %q alias=%v anchor %q line %d, want line %d %q alias=%v anchor %q line %d",
				tc.path, p.Line, p.Text, p.Alias, p.Anchor, p.AnchorLine, tc.line, tc.text, tc.alias, tc.anchor, tc.anchorLine)
		}
		if got := src[p.Start:p.End]; got != p.Text {
			t.Errorf("%s: bytes %q, text %q", tc.path, got, p.Text)
		}
	}
	// The values themselves are the anchor's.
	q := ten.Projects[0].Spec.Queues
	if q[1].Resources.GPU.Deserved.String() != "1" || q[2].Resources.GPU.Limit.String() != "4" || q[3].Resources.GPU.Limit.String() != "4" {
		t.Errorf("values: %+v", q)
	}
	if q[2].Resources.CPU.Deserved.String() != "2" {
		t.Errorf("own keys next to a merge key: %+v", q[2].Resources.CPU)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The profile is read at the ref, from the repository root, never from
// the work tree; a broken profile names its line.
func TestFromGitProfile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("t/a.yaml", "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: d}\nspec: {queues: []}\n")
	write("t/b.yml", "apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: p}\nspec: {parent: d, queues: []}\n")
	write("t/notes.txt", "not tenancy\n")
	write(".krmplan.hcl", "reminder \"docs/x.md\" {\n  note = \"n\"\n}\n")
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "one")
	write(".krmplan.hcl", "this is not HCL {\n")
	st, err := FromGit(GitSource{Repo: dir, Paths: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Source.Files) != 2 || st.Source.Files[0].Path != "t/a.yaml" || st.Source.Files[1].Path != "t/b.yml" {
		t.Errorf("files: %+v", st.Source.Files)
	}
	if st.Profile == nil || len(st.Profile.Reminders) != 1 || st.Profile.Reminders[0].File != "docs/x.md" || len(st.Profile.Blob) != 40 {
		t.Fatalf("profile: %+v", st.Profile)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "two")
	_, err = FromGit(GitSource{Repo: dir, Paths: []string{"t"}})
	if err == nil || !strings.Contains(err.Error(), "the repository profile at HEAD is invalid: .krmplan.hcl:1,") {
		t.Fatalf("err = %v", err)
	}
	st, err = FromGit(GitSource{Repo: dir, Ref: "HEAD~1", Paths: []string{"t/a.yaml"}})
	if err != nil || st.Profile == nil {
		t.Fatalf("at HEAD~1: %v", err)
	}
}

// An alias may name an anchor of an earlier document for yaml.v3, but
// kubectl reads each document alone and refuses the file (proven against
// the test API server in internal/integration): so does the reader.
func TestAliasOfAnEarlierDocumentIsRefused(t *testing.T) {
	src := `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec:
  parent: d
  queues:
    - name: a-1
      nodepool: p1
      resources: &std
        gpu: {deserved: 1, limit: 1}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: b}
spec:
  parent: d
  queues:
    - name: b-1
      nodepool: p1
      resources: *std
`
	want := "t.yaml:20: Project b, queue b-1: the alias *std names an anchor of an earlier document (line 9): kubectl reads each document alone and refuses it (unknown anchor 'std' referenced); repeat the value here"
	if _, err := parseErr(src); err != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
}
