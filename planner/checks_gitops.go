package planner

// The GitOps check: an object that Argo CD or Flux owns (DESIGN §1: the
// keys of tenancy.GitOpsKeys on its labels or annotations) and that the
// plan changes. A live patch to it is put back at the next sync, so the
// change only lasts if it is made in the GitOps source.

import (
	"encoding/json"
	"fmt"
	"strings"

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
