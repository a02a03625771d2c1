package render

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/snapshot"
)

// memRepo is a commit as a map of files: RepoFiles without git, with git's
// blob ids.
type memRepo map[string][]byte

func (m memRepo) File(path string) (string, string, []byte, bool, error) {
	b, ok := m[path]
	if !ok {
		return "", "", nil, false, nil
	}
	return "100644", gitBlobID(b), b, true, nil
}

func (m memRepo) List(path string) ([]string, error) {
	var out []string
	for p := range m {
		if p == path || strings.HasPrefix(p, strings.TrimSuffix(path, "/")+"/") && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// fixture is a plan over tenancy files held in a memRepo.
type fixture struct {
	plan *planner.Plan
	repo memRepo
}

// planOn snapshots the tenancy files of repo (those named), applies the
// desired HCL and returns the plan. A .krmplan.hcl in repo is the profile.
func planOn(t testing.TB, repo memRepo, tenancy []string, desired string) fixture {
	t.Helper()
	var ten snapshot.Tenancy
	st := &snapshot.State{Source: snapshot.Source{Kind: "git", Repo: "/repo", Ref: "main", Commit: "0123456789abcdef0123456789abcdef01234567"}}
	for _, f := range tenancy {
		if err := ten.ParseTenancy(f, repo[f]); err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		st.Source.Files = append(st.Source.Files, snapshot.SourceFile{Path: f, Blob: gitBlobID(repo[f])})
	}
	st.NodePools, st.Departments, st.Projects = ten.NodePools, ten.Departments, ten.Projects
	st.ManagedNodes, st.KRMConfig, st.Other = ten.ManagedNodes, ten.KRMConfig, ten.Other
	if src, ok := repo[profile.FileName]; ok {
		p, err := profile.Parse(profile.FileName, src)
		if err != nil {
			t.Fatalf("profile: %v", err)
		}
		p.Blob = gitBlobID(src)
		st.Profile = p
	}
	for _, what := range []string{snapshot.SourceNodes, snapshot.SourceQueues, snapshot.SourceNamespaces} {
		st.NotRead = append(st.NotRead, snapshot.NotRead{What: what, Reason: "git snapshot without a cluster"})
	}
	st.Seal()
	ov, diags := config.Load("desired.hcl", []byte(desired), nil, nil)
	if diags.HasErrors() {
		t.Fatalf("desired.hcl: %v", diags)
	}
	p, diags := planner.Build(st, ov)
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	return fixture{plan: p, repo: repo}
}

func readSample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", "sample", "tenancy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// spliced runs PrepareSplice and returns the new bytes by path.
func spliced(t testing.TB, fx fixture, opts SpliceOptions) (map[string][]byte, *SplicePlan) {
	t.Helper()
	sp, err := PrepareSplice(fx.plan, fx.repo, opts)
	if err != nil {
		t.Fatalf("PrepareSplice: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range sp.Files {
		out[f.Path] = f.New
	}
	return out, sp
}

// onlyAdds reports whether new is old with whole lines added: every line
// of old is in new, in order, unchanged.
func onlyAdds(old, new []byte) (bool, string) {
	ol := strings.SplitAfter(string(old), "\n")
	nl := strings.SplitAfter(string(new), "\n")
	j := 0
	for i, l := range ol {
		if l == "" {
			continue
		}
		// The last line of a file without a final newline may gain one.
		for j < len(nl) && nl[j] != l && !(i == len(ol)-1 && !strings.HasSuffix(l, "\n") && strings.TrimRight(nl[j], "\r\n") == l) {
			j++
		}
		if j == len(nl) {
			return false, fmt.Sprintf("line %d %q is gone", i+1, l)
		}
		j++
	}
	return true, ""
}
