package planner

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// mustState parses tenancy YAML (file name "t.yaml") into a sealed state
// whose cluster sources are not read, as a git snapshot without a cluster.
func mustState(t testing.TB, yaml string) *snapshot.State {
	t.Helper()
	var ten snapshot.Parsed
	if err := ten.ParseTenancy("t.yaml", []byte(yaml)); err != nil {
		t.Fatalf("parse: %v", err)
	}
	s := &snapshot.State{Source: snapshot.Source{Kind: "git"}, Tenancy: ten.Tenancy, Other: ten.Other}
	for _, what := range []string{snapshot.SourceNodes, snapshot.SourceQueues, snapshot.SourceNamespaces} {
		s.NotRead = append(s.NotRead, snapshot.NotRead{What: what, Reason: "test"})
	}
	s.Seal()
	return s
}

// messages returns "level code: message" for each finding.
func messages(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f.Level) + " " + string(f.Code) + ": " + f.Message
	}
	return out
}

// cloneTenancy is s with lists of objects of its own (tenancy.Apply of no
// change): a test may add or replace objects without touching s.
func cloneTenancy(s *snapshot.State) *snapshot.State {
	t, err := tenancy.Apply(&s.Tenancy, nil)
	if err != nil {
		panic(err)
	}
	return withTenancy(s, t)
}

// applyOverlay is what Build does before the checks: the changes of ov
// against before, where desired.hcl sets each value, and the target they
// make.
func applyOverlay(before *snapshot.State, ov *config.Overlay) (*snapshot.State, []tenancy.Change, config.Ranges, hcl.Diagnostics) {
	changes, set, diags := ov.Changes(tenancy.NewIndex(&before.Tenancy), readFiles(before))
	if diags.HasErrors() {
		return nil, nil, set, diags
	}
	t, err := tenancy.Apply(&before.Tenancy, changes)
	if err != nil {
		panic(err)
	}
	return withTenancy(before, t), changes, set, diags
}

// indexes returns the indexes of two states' tenancies.
func indexes(before, target *snapshot.State) (*tenancy.Index, *tenancy.Index) {
	return tenancy.NewIndex(&before.Tenancy), tenancy.NewIndex(&target.Tenancy)
}
