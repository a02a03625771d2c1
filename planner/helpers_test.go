package planner

import (
	"testing"

	"github.com/krmplan/krmplan/snapshot"
)

// mustState parses tenancy YAML (file name "t.yaml") into a sealed state
// whose cluster sources are not read, as a git snapshot without a cluster.
func mustState(t testing.TB, yaml string) *snapshot.State {
	t.Helper()
	var ten snapshot.Tenancy
	if err := ten.ParseTenancy("t.yaml", []byte(yaml)); err != nil {
		t.Fatalf("parse: %v", err)
	}
	s := &snapshot.State{Source: snapshot.Source{Kind: "git"}, NodePools: ten.NodePools, Departments: ten.Departments,
		Projects: ten.Projects, ManagedNodes: ten.ManagedNodes, KRMConfig: ten.KRMConfig, Other: ten.Other}
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
		out[i] = string(f.Level) + " " + f.Code + ": " + f.Message
	}
	return out
}
