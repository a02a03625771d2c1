package commit

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
)

const preflightDesired = `project "workspace" {
  queue "rtx-pro-6000" {
    gpu { deserved = 2 }
  }
}
project "benchmark" {
  queue "rtx-pro-6000" {
    gpu { deserved = 2 }
  }
}
`

// PlanSource reads the snapshot's source off a plan file's bytes, and
// gives up on bytes laid out otherwise.
func TestPlanSource(t *testing.T) {
	gitEnv(t)
	_, p := gitPlan(t, preflightDesired)
	b := plantest.Encode(t, p)
	src, ok := PlanSource(b)
	if !ok || !reflect.DeepEqual(src, p.Snapshot.Source) {
		t.Errorf("PlanSource = %+v, %v; want %+v", src, ok, p.Snapshot.Source)
	}
	i := bytes.LastIndex(b, []byte("\n    \"source\": "))
	for name, bad := range map[string][]byte{
		"empty":             nil,
		"no snapshot":       []byte(`{"format_version": 4}`),
		"cut in the source": b[:i+30],
		"no source line":    append(append([]byte(nil), b[:i]...), bytes.Replace(b[i:], []byte(`"source"`), []byte(`"sources"`), 1)...),
	} {
		if src, ok := PlanSource(bad); ok {
			t.Errorf("%s: PlanSource = %+v, true", name, src)
		}
	}
}

// diffWith is Diff's output (or its error) with opts.
func diffWith(t *testing.T, p *planner.Plan, opts Options) string {
	t.Helper()
	res, err := Diff(p, opts)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(res.Diff) + "notes: " + strings.Join(res.Notes, "\n")
}

// A diff with a preflight is byte for byte the diff without one; the
// preflight read the tenancy file and every folder of the new tree, and a
// preflight of another source or repository is not used.
func TestPreflightSameDiff(t *testing.T) {
	gitEnv(t)
	dir, p := gitPlan(t, preflightDesired)
	want := diffWith(t, p, Options{})
	if !strings.Contains(want, "+        gpu:") {
		t.Fatalf("the diff without a preflight: %s", want)
	}
	pf := StartPreflight(p.Snapshot.Source, "")
	defer pf.Wait()
	if got := diffWith(t, p, Options{Preflight: pf}); got != want {
		t.Errorf("with a preflight:\n%s\nwant:\n%s", got, want)
	}
	if pf.answers(p, Options{Preflight: pf}) == nil {
		t.Fatal("the preflight of the plan's own source is not used")
	}
	commit := p.Snapshot.Source.Commit
	if f := pf.files["clusters/a/tenancy.yaml"]; !f.exists || !f.holds || f.mode != "100644" {
		t.Errorf("the tenancy file read ahead: %+v", f)
	}
	for _, spec := range []string{commit + "^{tree}", commit + ":clusters", commit + ":clusters/a"} {
		if f, ok := pf.trees[spec]; !ok || !f.exists || f.kind != "tree" || len(f.listing) == 0 {
			t.Errorf("%s read ahead: %+v, %v", spec, f, ok)
		}
	}

	other := p.Snapshot.Source
	other.Commit = strings.Repeat("0", 40)
	for name, pf := range map[string]*Preflight{
		"another commit":     StartPreflight(other, ""),
		"another repository": StartPreflight(p.Snapshot.Source, filepath.Join(dir, "nope")),
	} {
		if pf.answers(p, Options{Preflight: pf}) != nil {
			t.Errorf("%s: used", name)
		}
		if got := diffWith(t, p, Options{Preflight: pf}); got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, want)
		}
		pf.Wait()
	}
}

// Each repository refusal is the same with a preflight as without: the
// repository gone, not a repository, without the snapshot's commit, the
// ref moved onto a changed value, the file's bytes not the blob's (a
// replace ref).
func TestPreflightRefusals(t *testing.T) {
	gitEnv(t)
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, dir string) (repo string)
		want   string
	}{
		{"gone", func(t *testing.T, dir string) string {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			return ""
		}, "does not exist (pass --git-repo DIR)"},
		{"not a repository", func(t *testing.T, dir string) string {
			plain := t.TempDir()
			t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(plain))
			return plain
		}, "is not a git repository"},
		{"no commit", func(t *testing.T, dir string) string {
			other := t.TempDir()
			runGit(t, other, "init", "-q", "-b", "main")
			runGit(t, other, "commit", "-q", "--allow-empty", "-m", "other")
			return other
		}, "does not have the snapshot's commit"},
		{"ref moved", func(t *testing.T, dir string) string {
			f := filepath.Join(dir, "clusters/a/tenancy.yaml")
			b, _ := os.ReadFile(f)
			b = bytes.Replace(b, []byte("gpu:    {deserved: 3,  limit: 3,"), []byte("gpu:    {deserved: 2,  limit: 3,"), 1)
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
			runGit(t, dir, "commit", "-q", "-am", "workspace gives a card back")
			return ""
		}, "values this plan changes are different there"},
		{"replace ref", func(t *testing.T, dir string) string {
			b, _ := os.ReadFile(filepath.Join(dir, "clusters/a/tenancy.yaml"))
			b = bytes.Replace(b, []byte("gpu:    {deserved: 3,  limit: 3,"), []byte("gpu:    {deserved: 5,  limit: 3,"), 1)
			if err := os.WriteFile(filepath.Join(dir, "new.yaml"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			blob := runGit(t, dir, "hash-object", "-w", "new.yaml")
			runGit(t, dir, "replace", runGit(t, dir, "rev-parse", "HEAD:clusters/a/tenancy.yaml"), blob)
			return ""
		}, "the file changed since the snapshot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, p := gitPlan(t, preflightDesired)
			repo := tc.mutate(t, dir)
			want := diffWith(t, p, Options{Repo: repo})
			if !strings.HasPrefix(want, "error: ") || !strings.Contains(want, tc.want) {
				t.Fatalf("without a preflight: %s", want)
			}
			pf := StartPreflight(p.Snapshot.Source, repo)
			defer pf.Wait()
			if got := diffWith(t, p, Options{Repo: repo, Preflight: pf}); got != want {
				t.Errorf("with a preflight: %s\nwant: %s", got, want)
			}
		})
	}
}

// The preflight's answers are the ones used: a ref that moves after the
// preflight read it is read where the preflight found it (the decode
// between them takes a fraction of a second; the branch's update-ref still
// refuses a branch that moved meanwhile).
func TestPreflightAnswersUsed(t *testing.T) {
	gitEnv(t)
	dir, p := gitPlan(t, preflightDesired)
	pf := StartPreflight(p.Snapshot.Source, "")
	pf.Wait()
	runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "later")
	if got := diffWith(t, p, Options{Preflight: pf}); strings.Contains(got, "moved") || strings.HasPrefix(got, "error: ") {
		t.Errorf("with the preflight: %s", got)
	}
	if got := diffWith(t, p, Options{}); !strings.Contains(got, "main moved from") {
		t.Errorf("without it: %s", got)
	}
}

// A batch that cannot answer (here: ended) is never read as "no such
// folder" or "no such blob": git is asked on its own, as without one.
func TestDeadBatchFallsBack(t *testing.T) {
	gitEnv(t)
	dir, p := gitPlan(t, preflightDesired)
	repo := gitcli.Repo{Dir: dir}
	b, err := repo.Batch()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	commit := p.Snapshot.Source.Commit
	exists, kind, listing, err := readFolder(repo, b, treeSpec(commit, "clusters"))
	if !exists || kind != "tree" || !bytes.Contains(listing, []byte("\ta\x00")) || err != nil {
		t.Errorf("readFolder: %v %q %q %v", exists, kind, listing, err)
	}
	_, blob, data, ok, err := gitFiles{repo: repo, commit: commit, batch: b}.File("clusters/a/tenancy.yaml")
	if !ok || err != nil || !bytes.Equal(data, plantest.Sample(t, "tenancy.yaml")) || blob != p.Snapshot.Source.Files[0].Blob {
		t.Errorf("File: %v %v %d bytes", ok, err, len(data))
	}
}

// The branch is checked while the splice is staged, and its refusal still
// comes first: a branch that exists, in a repository whose tenancy bytes
// are not the blob's (which the splice refuses too). No quarantine is
// left behind, and the staged check's refusal comes when the branch is fine.
func TestSpliceBranchRefusalFirst(t *testing.T) {
	gitEnv(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir, p := gitPlan(t, preflightDesired)
	b, _ := os.ReadFile(filepath.Join(dir, "clusters/a/tenancy.yaml"))
	b = bytes.Replace(b, []byte("gpu:    {deserved: 3,  limit: 3,"), []byte("gpu:    {deserved: 5,  limit: 3,"), 1)
	if err := os.WriteFile(filepath.Join(dir, "new.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "replace", runGit(t, dir, "rev-parse", "HEAD:clusters/a/tenancy.yaml"), runGit(t, dir, "hash-object", "-w", "new.yaml"))
	runGit(t, dir, "branch", "taken")
	_, err := Splice(p, "taken", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "branch taken already exists in ") {
		t.Errorf("an existing branch: %v", err)
	}
	_, err = Splice(p, "free", Options{})
	if err == nil || !strings.Contains(err.Error(), "the file changed since the snapshot") {
		t.Errorf("a free branch: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}
