package commit_test

import (
	"testing"

	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/render/commit"
)

// BenchmarkRenderSplice is Prepare of the plan, what `render --format
// splice` computes before it writes to git: the tenancy file read from a
// commit held in memory, the byte edits of every change, the spliced bytes
// and their check against the plan's target (the commit is git plumbing,
// measured by nothing here).
func BenchmarkRenderSplice(b *testing.B) {
	plantest.Sizes(b, func(b *testing.B, n int) {
		p, src := plantest.Generated(b, n)
		p.Snapshot.Source.Commit = plantest.Commit
		p.Snapshot.Source.Files[0].Blob = gitcli.BlobID(src)
		repo := plantest.Repo{gentenancy.TenancyFile: src}
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			sp, err := commit.Prepare(p, repo, commit.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if len(sp.Files) != 1 || len(sp.Files[0].New) == 0 {
				b.Fatalf("the splice wrote %d files", len(sp.Files))
			}
		}
		cputime.Report(b, cpu0)
	})
}
