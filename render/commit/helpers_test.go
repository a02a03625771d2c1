package commit

import (
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
)

// spliced runs Prepare and returns the new bytes by path.
func spliced(t testing.TB, fx plantest.Fixture, opts Options) (map[string][]byte, *SplicePlan) {
	t.Helper()
	sp, err := Prepare(fx.Plan, fx.Repo, opts)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range sp.Files {
		out[f.Path] = f.New
	}
	return out, sp
}
