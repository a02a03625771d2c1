// Package gitops holds the planner's checks of GitOps: an object that
// Argo CD or Flux owns (DESIGN §1: the keys of tenancy.GitOpsKeys on its
// labels or annotations) and that the plan changes — a live patch to it is
// put back at the next sync, so the change only lasts if it is made in the
// GitOps source; and a kustomization among the tenancy files that patches
// the objects read. It returns findings (package finding), which the
// planner takes over.
package gitops

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner/finding"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/kustomize"
	"github.com/krmplan/krmplan/tenancy"
)

// The codes of the findings, as the planner's catalogue lists them
// (planner.Codes).
const (
	CodeOwned          = "gitops-owned"    // a warning
	CodeKustomizePatch = "kustomize-patch" // a note
)

// maxNamesListed bounds the objects one message names.
const maxNamesListed = 10

// Input is what Owned reads.
type Input struct {
	// Before is the snapshot, Target the state the plan makes; the same
	// pointer when a state is checked as it is.
	Before, Target *snapshot.State
	// BeforeIndex indexes Before's tenancy.
	BeforeIndex *tenancy.Index
	// Where locates a field in the snapshot's files.
	Where func(tenancy.FieldAddr) []tenancy.Location
}

// Owned warns, for every object of the target that carries GitOps
// ownership keys and whose spec differs from the snapshot's (the plan
// changes it), naming the keys and their values and what a live patch
// would meet. New objects carry no keys; a state checked as it is
// (before == target) has no change and so no finding.
func Owned(in Input) []finding.Finding {
	if in.Before == in.Target {
		return nil
	}
	var out []finding.Finding
	check := func(a tenancy.ObjectAddr, spec any) {
		was := in.BeforeIndex.Meta(a)
		if was == nil || len(was.GitOps) == 0 || sameJSON(in.BeforeIndex.Spec(a), spec) {
			return
		}
		out = append(out, finding.Finding{Code: CodeOwned, Level: finding.Warning, Object: a,
			Message: message(a, was.GitOps, in.Before.Source.Kind),
			Where:   in.Where(a.Field(tenancy.FieldName))})
	}
	for _, p := range in.Target.NodePools { // the findings are sorted afterwards
		check(tenancy.KindNodePool.Object(p.Metadata.Name), p.Spec)
	}
	for _, d := range in.Target.Departments {
		check(tenancy.KindDepartment.Object(d.Metadata.Name), d.Spec)
	}
	for _, p := range in.Target.Projects {
		check(tenancy.KindProject.Object(p.Metadata.Name), p.Spec)
	}
	return out
}

// message names the owner and the keys, e.g. "project workspace is
// owned by Argo CD (argocd.argoproj.io/instance=tenancy): …".
func message(a tenancy.ObjectAddr, keys map[string]string, sourceKind string) string {
	var pairs []string
	owners := map[string]bool{}
	var ownerNames []string
	for _, k := range tenancy.GitOpsKeys {
		v, ok := keys[k]
		if !ok {
			continue
		}
		pairs = append(pairs, k+"="+v)
		o := "Argo CD"
		if strings.Contains(k, "fluxcd.io") {
			o = "Flux"
		}
		if !owners[o] {
			owners[o] = true
			ownerNames = append(ownerNames, o)
		}
	}
	what := fmt.Sprintf("%s %s is owned by %s (%s)", strings.ToLower(a.Kind.String()), a.Name, strings.Join(ownerNames, " and "), strings.Join(pairs, ", "))
	if sourceKind == "git" {
		return what + ": rendered as patches (render --format patch) the change is put back at the next sync; render --format splice changes the GitOps source instead"
	}
	return what + ": a live patch to it is put back at the next sync — change the GitOps source instead, or pause the sync before running the patch script"
}

// sameJSON reports whether two specs marshal to the same JSON (numbers in
// their reduced form, so 4 and 4.0 are the same).
func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// KustomizePatches notes each patch of a kustomization among the
// tenancy files that selects objects krmplan reads (its target's kind and
// name are anchored regular expressions, as kustomize reads them; a
// strategic merge patch without a target selects the kind and name written
// in it). kustomize, and Argo CD or Flux building the folder with it,
// applies the patch before the cluster receives the objects, so the plan
// is of the base: the values applied may not be the ones planned. A
// label or annotation selector cannot be evaluated on objects read from
// files (their labels are not kept), so the note says the patch may
// select them; a patch whose target cannot be told is noted too.
func KustomizePatches(s *snapshot.State) []finding.Finding {
	var out []finding.Finding
	for i := range s.Other {
		o := &s.Other[i]
		for _, pt := range o.Patches {
			what := fmt.Sprintf("%s: %s", o.File, pt.Field)
			if pt.Path != "" {
				what += " (" + pt.Path + ")"
			}
			var msg string
			switch names, err := patched(s, &pt); {
			case pt.Unread != "":
				msg = fmt.Sprintf("%s: %s, so it may patch any object krmplan reads", what, pt.Unread)
			case err != nil:
				msg = fmt.Sprintf("%s: its target is not a regular expression kustomize reads (%v), so it may patch any object krmplan reads", what, err)
			case len(names) == 0:
				continue // it patches other kinds
			case pt.LabelSelector != "" || pt.AnnotationSelector != "":
				msg = fmt.Sprintf("%s may patch %s (those its selectors %s select)", what, words.List(names, maxNamesListed), pt.Selectors())
			default:
				msg = fmt.Sprintf("%s patches %s", what, words.List(names, maxNamesListed))
			}
			out = append(out, finding.Finding{Code: CodeKustomizePatch, Level: finding.Note,
				Message: msg + "; kustomize applies it before the cluster receives the objects, so krmplan's checks and plans are of the files as written, not of what is applied: check the patch does not set the values a plan changes",
				Where:   []tenancy.Location{{File: o.File, Line: pt.Line}}})
		}
	}
	return out
}

// patched lists the objects of the state a patch target selects ("Project
// workspace"), in the kind table's order, each kind by name.
func patched(s *snapshot.State, pt *kustomize.PatchTarget) ([]string, error) {
	selects, err := pt.Selects()
	if err != nil {
		return nil, err
	}
	var out []string
	add := func(k tenancy.Kind, n string) {
		if selects(k.String(), n) {
			out = append(out, k.String()+" "+n)
		}
	}
	for _, p := range s.NodePools {
		add(tenancy.KindNodePool, p.Metadata.Name)
	}
	for _, d := range s.Departments {
		add(tenancy.KindDepartment, d.Metadata.Name)
	}
	for _, p := range s.Projects {
		add(tenancy.KindProject, p.Metadata.Name)
	}
	if m := s.ManagedNodes; m != nil {
		add(tenancy.KindManagedNodesConfig, m.Metadata.Name)
	}
	if k := s.KRMConfig; k != nil {
		add(tenancy.KindKRMConfig, k.Metadata.Name)
	}
	return out, nil
}
