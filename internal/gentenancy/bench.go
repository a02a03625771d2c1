package gentenancy

import "github.com/krmplan/krmplan/snapshot"

// BenchSizes are the tenancy sizes, in projects, that the benchmarks of
// snapshot, planner and render measure.
var BenchSizes = []int{48, 1000, 10000, 50000}

// Sizes returns the sizes a benchmark runs: BenchSizes, or under `go test
// -short` only those up to 1,000 projects. CI runs every benchmark once
// (-benchtime=1x -short) to prove that they work, in a few seconds;
// scripts/bench runs every size.
func Sizes(short bool) []int {
	if !short {
		return BenchSizes
	}
	out := make([]int, 0, len(BenchSizes))
	for _, n := range BenchSizes {
		if n <= 1000 {
			out = append(out, n)
		}
	}
	return out
}

// BenchSeed is the seed of the benchmarks' tenancies.
const BenchSeed = 1

// State returns the snapshot a plan of t starts from, as `krmplan snapshot
// --git-repo … --cluster-data …` makes it, without git: its YAML parsed as
// TenancyFile, the cluster data laid over it, sealed. It also returns the
// YAML bytes (what a splice edits).
func (t *Tenancy) State() (*snapshot.State, []byte, error) {
	src := t.YAML()
	var ten snapshot.Parsed
	if err := ten.ParseTenancy(TenancyFile, src); err != nil {
		return nil, nil, err
	}
	st := &snapshot.State{
		Source:  snapshot.Source{Kind: "git", Ref: "HEAD", Files: []snapshot.SourceFile{{Path: TenancyFile}}},
		Tenancy: ten.Tenancy, Other: ten.Other,
	}
	st.Overlay(t.ClusterData())
	st.Seal()
	return st, src, nil
}
