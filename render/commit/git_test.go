package commit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// gitEnv isolates git from the user's configuration and names an author.
func gitEnv(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		t.Setenv(k+"_NAME", "Test Author")
		t.Setenv(k+"_EMAIL", "author@example.com")
		t.Setenv(k+"_DATE", "2026-01-01T00:00:00Z")
	}
}

// runGit runs git in dir and fails the test on an error.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitcli.Repo{Dir: dir}.Line(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gitPlan commits the sample tenancy at clusters/a/tenancy.yaml in a new
// repository and returns it and the plan of desired on a snapshot of it.
func gitPlan(t *testing.T, desired string) (string, *planner.Plan) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "clusters/a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clusters/a/tenancy.yaml"), plantest.Sample(t, "tenancy.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("readme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "tenancy")
	st, err := snapshot.FromGit(snapshot.GitSource{Repo: dir, Paths: []string{"clusters/a/tenancy.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	st.Seal()
	ov, diags := config.Load("desired.hcl", []byte(desired), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := planner.Build(st, ov)
	if diags.HasErrors() || !p.Renderable() {
		t.Fatalf("plan: %v %+v", diags, p.Findings)
	}
	return dir, p
}

// gitFiles is every file under the repository's .git folder with the
// sha256 of its bytes.
func gitDirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, ".git")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		sum := sha256.Sum256(b)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSpliceLeavesOnlyObjectsAndTheBranch: whatever the repository's
// index settings, a splice changes no file in .git and adds only objects,
// the branch's ref and its reflog. (Before, a temporary index written
// with core.splitIndex left a .git/sharedindex.* file per splice.) An
// fsmonitor hook would be run by any command that reads an index: it never
// runs.
func TestSpliceLeavesOnlyObjectsAndTheBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	gitEnv(t)
	const desired = `
project "workspace" {
  queue "rtx-pro-6000" {
    gpu { deserved = 2 }
  }
}
project "research" {
  department = "platform"
  file       = "clusters/a/research.yaml"
  queue "rtx-pro-6000" {
    name = "research-rtx"
    gpu = { deserved = 1, limit = 1 }
  }
}
`
	for _, settings := range [][]string{
		nil,
		{"core.splitIndex=true"},
		{"core.splitIndex=true", "splitIndex.maxPercentChange=0", "splitIndex.sharedIndexExpire=now"},
		{"index.version=4"},
		{"core.untrackedCache=true"},
		{"feature.manyFiles=true"},
		{"index.skipHash=true"},
		{"core.fsmonitor=HOOK"},
		{"core.fsmonitor=HOOK", "core.splitIndex=true", "index.version=4", "core.untrackedCache=true", "gc.auto=1", "core.logAllRefUpdates=always"},
	} {
		t.Run(strings.Join(settings, ","), func(t *testing.T) {
			dir, p := gitPlan(t, desired)
			marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
			hook := filepath.Join(t.TempDir(), "fsmonitor.sh")
			if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, s := range settings {
				k, v, _ := strings.Cut(s, "=")
				runGit(t, dir, "config", k, strings.ReplaceAll(v, "HOOK", hook))
			}
			runGit(t, dir, "update-index", "--refresh") // the index as these settings write it
			os.Remove(marker)
			before := gitDirFiles(t, dir)
			res, err := Splice(p, "quota/move", Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkOnlyAdded(t, before, gitDirFiles(t, dir), "quota/move")
			if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
				t.Error("the fsmonitor hook ran: a command read the index")
			}
			if got := runGit(t, dir, "ls-tree", "-r", "--name-only", res.Commit); got != "README\nclusters/a/research.yaml\nclusters/a/tenancy.yaml" {
				t.Errorf("the commit's files:\n%s", got)
			}
			if st := runGit(t, dir, "status", "--porcelain"); st != "" {
				t.Errorf("the work tree or index changed:\n%s", st)
			}
		})
	}
}

// checkOnlyAdded fails unless after is before with only new objects, the
// branch's ref and its reflog added.
func checkOnlyAdded(t *testing.T, before, after map[string]string, branch string) {
	t.Helper()
	allowed := regexp.MustCompile(`^(objects/[0-9a-f]{2}/[0-9a-f]{38}|refs/heads/` + branch + `|logs/refs/heads/` + branch + `)$`)
	var added []string
	for f, sum := range after {
		switch old, ok := before[f]; {
		case !ok && !allowed.MatchString(f):
			t.Errorf("the splice left .git/%s", f)
		case !ok:
			added = append(added, f)
		case old != sum:
			t.Errorf("the splice changed .git/%s", f)
		}
	}
	for f := range before {
		if _, ok := after[f]; !ok {
			t.Errorf("the splice removed .git/%s", f)
		}
	}
	sort.Strings(added)
	if len(added) < 3 || added[len(added)-1] != "refs/heads/"+branch {
		t.Errorf("added %q: want the objects and refs/heads/%s", added, branch)
	}
}

// moveWorkspace gives workspace 2 cards.
const moveWorkspace = `project "workspace" {
  queue "rtx-pro-6000" {
    gpu { deserved = 2 }
  }
}`

// TestWriteTree: without an index, writeTree replaces a file in a nested
// folder, adds files in new nested folders and at the root, keeps every
// other entry (with its mode), and refuses a file where the commit has a
// folder and a folder where it has a file.
func TestWriteTree(t *testing.T) {
	gitEnv(t)
	dir, _ := gitPlan(t, moveWorkspace)
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "add", "run.sh")
	runGit(t, dir, "commit", "-q", "-m", "script")
	head := runGit(t, dir, "rev-parse", "HEAD")
	q, err := newQuarantine(gitcli.Repo{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer q.close()
	sp := &SplicePlan{Files: []FileChange{
		{Path: "clusters/a/tenancy.yaml", Mode: "100644", New: []byte("changed\n")},
		{Path: "clusters/new/deep/x.yaml", Mode: "100644", New: []byte("x\n"), Created: true},
		{Path: "top.yaml", Mode: "100644", New: []byte("top\n"), Created: true},
	}}
	tree, err := q.writeTree(head, sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.git.Line("ls-tree", "-r", tree)
	if err != nil {
		t.Fatal(err)
	}
	blob := gitcli.BlobID
	want := strings.Join([]string{
		"100644 blob " + blob([]byte("readme\n")) + "\tREADME",
		"100644 blob " + blob([]byte("changed\n")) + "\tclusters/a/tenancy.yaml",
		"100644 blob " + blob([]byte("x\n")) + "\tclusters/new/deep/x.yaml",
		"100755 blob " + blob([]byte("#!/bin/sh\n")) + "\trun.sh",
		"100644 blob " + blob([]byte("top\n")) + "\ttop.yaml",
	}, "\n")
	if got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
	for _, tc := range []struct{ path, want string }{
		{"clusters/a", "clusters/a is a tree at commit " + head[:12] + ": it cannot be replaced by a blob"},
		{"README/x.yaml", "README is a file at commit " + head[:12] + ", not a folder: a file cannot be written under it"},
	} {
		_, err := q.writeTree(head, &SplicePlan{Files: []FileChange{{Path: tc.path, Mode: "100644", New: []byte("x\n")}}}, nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.path, err, tc.want)
		}
	}
}

// TestCheckBranchRefusesControlCharacters: a branch name with a newline
// or an ESC is refused by git's rules, and the message shows it escaped.
func TestCheckBranchRefusesControlCharacters(t *testing.T) {
	gitEnv(t)
	dir, p := gitPlan(t, moveWorkspace)
	place, err := gitcli.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"quota\nmove", "quota\x1b[31m", "quota\x00"} {
		_, err := checkBranch(gitcli.Repo{Dir: dir}, place, name, p.Snapshot.Source.Commit, true)
		want := "branch name " + strconv.Quote(name) + " is not valid: git check-ref-format --branch refuses it (see git help check-ref-format)"
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v", name, err)
		}
	}
}

// The commit message escapes the control characters of what it quotes
// from the plan: git log prints a message as it is.
func TestMessageEscapesControlCharacters(t *testing.T) {
	p := &planner.Plan{PlanID: strings.Repeat("a", 64),
		Changes: []tenancy.Change{{Action: tenancy.ActionUpdate, Field: tenancy.KindProject.Object("a").Queue(0).Field(gpuDeserved), Queue: "a\x1b[2Kq",
			Before: tenancy.Number(quota.FromInt(1)), After: tenancy.Number(quota.FromInt(2))}},
		Findings: []planner.Finding{{Level: planner.LevelWarning, Message: "w\nPlan-Id: forged"}}}
	got := Message(p, &SplicePlan{Notes: []string{"n\r"}, Reminders: []string{"r\u2028"}})
	want := "quota: a gpu 1→2\n\n- project a queue a\\x1b[2Kq: gpu.deserved 1 -> 2\n\nWarning: w\\nPlan-Id: forged\n\nNote: n\\r\n\nReminder: r\\u2028\n\nPlan-Id: " + p.PlanID + "\n"
	if got != want {
		t.Errorf("message:\n%q\nwant:\n%q", got, want)
	}
}
