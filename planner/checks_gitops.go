package planner

// The GitOps checks: an object that Argo CD or Flux owns (DESIGN §1: the
// keys of tenancy.GitOpsKeys on its labels or annotations) and that the
// plan changes — a live patch to it is put back at the next sync, so the
// change only lasts if it is made in the GitOps source; and a
// kustomization among the tenancy files that patches the objects read.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/snapshot/kustomize"
	"github.com/krmplan/krmplan/tenancy"
)

// checkGitOps warns, for every object of the target that carries GitOps
// ownership keys and whose spec differs from the snapshot's (the plan
// changes it), naming the keys and their values and what a live patch
// would meet. New objects carry no keys; a state checked as it is
// (before == target) has no change and so no finding.
func (c *checker) checkGitOps() {
	if c.before == c.s {
		return
	}
	check := func(a tenancy.ObjectAddr, spec any) {
		was := c.bx.Meta(a)
		if was == nil || len(was.GitOps) == 0 || sameJSON(c.bx.Spec(a), spec) {
			return
		}
		c.add(Finding{Code: CodeGitOpsOwned, Level: LevelWarning, Object: a,
			Message: gitOpsMessage(a, was.GitOps, c.before.Source.Kind),
			Where:   c.beforeLoc.at(a.Field(tenancy.FieldName))})
	}
	for _, p := range c.s.NodePools { // the findings are sorted afterwards
		check(tenancy.KindNodePool.Object(p.Metadata.Name), p.Spec)
	}
	for _, d := range c.s.Departments {
		check(tenancy.KindDepartment.Object(d.Metadata.Name), d.Spec)
	}
	for _, p := range c.s.Projects {
		check(tenancy.KindProject.Object(p.Metadata.Name), p.Spec)
	}
}

// gitOpsMessage names the owner and the keys, e.g. "project workspace is
// owned by Argo CD (argocd.argoproj.io/instance=tenancy): …".
func gitOpsMessage(a tenancy.ObjectAddr, keys map[string]string, sourceKind string) string {
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

// checkKustomizePatches notes each patch of a kustomization among the
// tenancy files that selects objects krmplan reads (its target's kind and
// name are anchored regular expressions, as kustomize reads them; a
// strategic merge patch without a target selects the kind and name written
// in it). kustomize, and Argo CD or Flux building the folder with it,
// applies the patch before the cluster receives the objects, so the plan
// is of the base: the values applied may not be the ones planned. A
// label or annotation selector cannot be evaluated on objects read from
// files (their labels are not kept), so the note says the patch may
// select them; a patch whose target cannot be told is noted too.
func (c *checker) checkKustomizePatches() {
	for i := range c.s.Other {
		o := &c.s.Other[i]
		for _, pt := range o.Patches {
			what := fmt.Sprintf("%s: %s", o.File, pt.Field)
			if pt.Path != "" {
				what += " (" + pt.Path + ")"
			}
			var msg string
			switch names, err := c.patched(&pt); {
			case pt.Unread != "":
				msg = fmt.Sprintf("%s: %s, so it may patch any object krmplan reads", what, pt.Unread)
			case err != nil:
				msg = fmt.Sprintf("%s: its target is not a regular expression kustomize reads (%v), so it may patch any object krmplan reads", what, err)
			case len(names) == 0:
				continue // it patches other kinds
			case pt.LabelSelector != "" || pt.AnnotationSelector != "":
				msg = fmt.Sprintf("%s may patch %s (those its selectors %s select)", what, joinNames(names, maxNamesListed), pt.Selectors())
			default:
				msg = fmt.Sprintf("%s patches %s", what, joinNames(names, maxNamesListed))
			}
			c.add(Finding{Code: CodeKustomizePatch, Level: LevelNote,
				Message: msg + "; kustomize applies it before the cluster receives the objects, so krmplan's checks and plans are of the files as written, not of what is applied: check the patch does not set the values a plan changes",
				Where:   []tenancy.Location{{File: o.File, Line: pt.Line}}})
		}
	}
}

// patched lists the objects of the state a patch target selects ("Project
// workspace"), in the kind table's order, each kind by name.
func (c *checker) patched(pt *kustomize.PatchTarget) ([]string, error) {
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
	for _, p := range c.s.NodePools {
		add(tenancy.KindNodePool, p.Metadata.Name)
	}
	for _, d := range c.s.Departments {
		add(tenancy.KindDepartment, d.Metadata.Name)
	}
	for _, p := range c.s.Projects {
		add(tenancy.KindProject, p.Metadata.Name)
	}
	if m := c.s.ManagedNodes; m != nil {
		add(tenancy.KindManagedNodesConfig, m.Metadata.Name)
	}
	if k := c.s.KRMConfig; k != nil {
		add(tenancy.KindKRMConfig, k.Metadata.Name)
	}
	return out, nil
}
