// Package profile reads the repository profile, .krmplan.hcl at the root of
// the repository that holds the tenancy (read at the snapshot's ref, never
// from the work tree). The profile names the files that move together with a
// quota and that a splice commit must keep in step (issue 5):
//
//	# Shell files whose variables a verify script compares with the live
//	# queues; rewritten in the same commit as the tenancy.
//	expectations "scripts/expected-quotas.sh" {
//	  variable "WORKSPACE_GPU" {
//	    queue = "workspace-rtx"
//	    field = "gpu.deserved"
//	  }
//	}
//
//	# Namespace ResourceQuotas that mirror a project's gpu limit in whole
//	# cards; rewritten only with `render --with-mirrors`.
//	resource_quota_mirror {
//	  path     = "namespaces"               # file or folder; default: the tenancy files
//	  resource = "requests.nvidia.com/gpu"  # the spec.hard key (this is the default)
//	  follows  = "limit"                    # or "deserved"
//	}
//
//	# Files a person updates by hand: listed in the commit message and the plan.
//	reminder "docs/capacity.md" {
//	  note = "the capacity table lists each team's cards"
//	}
//
//	# Shown when a plan changes a cpu or memory quota.
//	cpu_memory_note = "cpu and memory are sized in the namespaces' LimitRanges too"
//
//	# Where new objects go when the file holding their kind is not the right one.
//	placement {
//	  node_pool  = "tenancy/pools.yaml"
//	  department = "tenancy/departments.yaml"
//	  project    = "tenancy/projects.yaml"
//	}
//
// It depends on nothing of krmplan but the names of the quota fields, so
// that snapshot (which reads it) and render (which applies it) may both
// import it.
package profile

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/krmplan/krmplan/internal/hcllimit"
	"github.com/krmplan/krmplan/tenancy"
)

// FileName is the profile's path, relative to the repository root.
const FileName = ".krmplan.hcl"

// DefaultMirrorResource is the spec.hard key a resource_quota_mirror edits
// unless it names another: the whole-card GPU request quota.
const DefaultMirrorResource = "requests.nvidia.com/gpu"

// Profile is .krmplan.hcl decoded. Every list keeps the file's order.
type Profile struct {
	// File and Blob say where the profile was read: its repository path
	// and git blob id at the snapshot's commit.
	File string `json:"file"`
	Blob string `json:"blob,omitempty"`

	Expectations  []Expectations `json:"expectations,omitempty"`
	Mirrors       []Mirror       `json:"resource_quota_mirrors,omitempty"`
	Reminders     []Reminder     `json:"reminders,omitempty"`
	CPUMemoryNote string         `json:"cpu_memory_note,omitempty"`
	Placement     *Placement     `json:"placement,omitempty"`
}

// Expectations is one shell file of expected quotas: each Variable is an
// assignment (NAME=3, export NAME=3, NAME="3") that a verify script
// compares with a live queue. A splice rewrites the number of every
// variable whose queue field the plan changes.
type Expectations struct {
	File      string     `json:"file"` // repository-relative
	Variables []Variable `json:"variables"`
	Line      int        `json:"line"` // of the block in .krmplan.hcl
}

// Variable ties a shell variable to one quota field of one queue.
type Variable struct {
	Name  string `json:"name"`
	Queue string `json:"queue"` // the queue name (cluster-wide)
	// Field is "<resource>.<field>": gpu|cpu|memory . deserved|limit|overQuotaWeight.
	Field string `json:"field"`
	Line  int    `json:"line"`
}

// Mirror describes namespace ResourceQuotas that mirror a project's GPU
// quota in whole cards: the ResourceQuota in namespace N holds, under
// spec.hard[Resource], the sum of the Follows field (limit or deserved) of
// the gpu of the queues of the project whose namespace is N (only the queue
// on Pool when Pool is set), rounded down to whole cards.
type Mirror struct {
	// Path is a repository file or folder (every *.yaml/*.yml under it)
	// holding the ResourceQuotas; empty means the tenancy files.
	Path string `json:"path,omitempty"`
	// Name restricts the mirror to ResourceQuotas of that name.
	Name     string `json:"name,omitempty"`
	Resource string `json:"resource"` // a spec.hard key; DefaultMirrorResource unless set
	Follows  string `json:"follows"`  // "limit" (default) or "deserved"
	Pool     string `json:"pool,omitempty"`
	Line     int    `json:"line"`
}

// Reminder is a file that a person updates by hand when quotas move.
type Reminder struct {
	File string `json:"file"`
	Note string `json:"note,omitempty"`
	Line int    `json:"line"`
}

// Placement names the file that receives new objects of each kind; an
// empty name leaves the choice to render (the file holding the kind).
type Placement struct {
	NodePool   string `json:"node_pool,omitempty"`
	Department string `json:"department,omitempty"`
	Project    string `json:"project,omitempty"`
}

// For returns the placement file for kind (a node pool, department or
// project), "" when none is named.
func (p *Placement) For(kind tenancy.Kind) string {
	if p == nil {
		return ""
	}
	switch kind {
	case tenancy.KindNodePool:
		return p.NodePool
	case tenancy.KindDepartment:
		return p.Department
	case tenancy.KindProject:
		return p.Project
	}
	return ""
}

// The HCL shapes, decoded with gohcl.
type hclFile struct {
	Expectations  []hclExpectations `hcl:"expectations,block"`
	Mirrors       []hclMirror       `hcl:"resource_quota_mirror,block"`
	Reminders     []hclReminder     `hcl:"reminder,block"`
	CPUMemoryNote *string           `hcl:"cpu_memory_note,optional"`
	Placement     []hclPlacement    `hcl:"placement,block"`
}

type hclExpectations struct {
	File      string        `hcl:"file,label"`
	Variables []hclVariable `hcl:"variable,block"`
	DefRange  hcl.Range     `hcl:",def_range"`
}

type hclVariable struct {
	Name     string    `hcl:"name,label"`
	Queue    string    `hcl:"queue"`
	Field    string    `hcl:"field"`
	DefRange hcl.Range `hcl:",def_range"`
}

type hclMirror struct {
	Path     *string   `hcl:"path,optional"`
	Name     *string   `hcl:"name,optional"`
	Resource *string   `hcl:"resource,optional"`
	Follows  *string   `hcl:"follows,optional"`
	Pool     *string   `hcl:"pool,optional"`
	DefRange hcl.Range `hcl:",def_range"`
}

type hclReminder struct {
	File     string    `hcl:"file,label"`
	Note     *string   `hcl:"note,optional"`
	DefRange hcl.Range `hcl:",def_range"`
}

type hclPlacement struct {
	NodePool   *string   `hcl:"node_pool,optional"`
	Department *string   `hcl:"department,optional"`
	Project    *string   `hcl:"project,optional"`
	DefRange   hcl.Range `hcl:",def_range"`
}

// Error is a problem in the profile: its diagnostics, each naming the file,
// line and column.
type Error struct {
	Diags hcl.Diagnostics
}

func (e *Error) Error() string {
	msgs := make([]string, 0, len(e.Diags))
	for _, d := range e.Diags {
		msgs = append(msgs, d.Error())
	}
	return strings.Join(msgs, "\n")
}

// Parse decodes a profile; name is the file name used in diagnostics
// (normally FileName). Errors are *Error: HCL syntax, an unknown block or
// attribute, a field that is not "<gpu|cpu|memory>.<deserved|limit|overQuotaWeight>",
// a follows other than limit or deserved, an absolute or escaping path, a
// variable named twice in one file, a second placement block.
func Parse(name string, src []byte) (*Profile, error) {
	// hcl's parser overflows Go's stack on deep nesting: check first.
	if diags, _ := hcllimit.Check(src, name, hcl.InitialPos); diags.HasErrors() {
		return nil, &Error{Diags: diags}
	}
	f, diags := hclparse.NewParser().ParseHCL(src, name)
	if diags.HasErrors() {
		return nil, &Error{Diags: diags}
	}
	var raw hclFile
	if diags := gohcl.DecodeBody(f.Body, nil, &raw); diags.HasErrors() {
		return nil, &Error{Diags: diags}
	}
	pr := &parser{p: &Profile{File: name}}
	for _, e := range raw.Expectations {
		pr.expectations(e)
	}
	for _, m := range raw.Mirrors {
		pr.mirror(m)
	}
	for _, r := range raw.Reminders {
		rm := Reminder{File: r.File, Line: r.DefRange.Start.Line}
		if r.Note != nil {
			rm.Note = *r.Note
		}
		pr.p.Reminders = append(pr.p.Reminders, rm)
	}
	if raw.CPUMemoryNote != nil {
		pr.p.CPUMemoryNote = *raw.CPUMemoryNote
	}
	for i, pl := range raw.Placement {
		if i > 0 {
			pr.bad(pl.DefRange, "Duplicate placement", "only one placement block is allowed.")
			continue
		}
		pr.placement(pl)
	}
	if pr.errs.HasErrors() {
		errs := pr.errs
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Subject.Start.Byte < errs[j].Subject.Start.Byte })
		return nil, &Error{Diags: errs}
	}
	return pr.p, nil
}

// parser checks the decoded blocks into a Profile, collecting every
// problem.
type parser struct {
	p    *Profile
	errs hcl.Diagnostics
}

func (pr *parser) bad(r hcl.Range, summary, detail string) {
	rr := r
	pr.errs = append(pr.errs, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &rr})
}

// checkPath cleans p, refusing a path outside the repository.
func (pr *parser) checkPath(r hcl.Range, what, p string) string {
	clean, ok := insideRepository(p)
	if !ok {
		pr.bad(r, "Invalid path", fmt.Sprintf("%s %q must be a path inside the repository, relative to its root.", what, p))
	}
	return clean
}

// insideRepository cleans p, a repository path relative to its root;
// ok is false for an empty, absolute or escaping path.
func insideRepository(p string) (clean string, ok bool) {
	clean = path.Clean(strings.TrimSuffix(p, "/"))
	return clean, p != "" && !path.IsAbs(p) && clean != ".." && !strings.HasPrefix(clean, "../")
}

// validFollows reports whether a mirror may follow f.
func validFollows(f string) bool { return f == "limit" || f == "deserved" }

func (pr *parser) expectations(e hclExpectations) {
	ex := Expectations{File: pr.checkPath(e.DefRange, "expectations", e.File), Line: e.DefRange.Start.Line}
	seen := map[string]bool{}
	for _, v := range e.Variables {
		if seen[v.Name] {
			pr.bad(v.DefRange, "Duplicate variable", fmt.Sprintf("variable %q is named twice for %s.", v.Name, e.File))
		}
		seen[v.Name] = true
		if !ValidField(v.Field) {
			pr.bad(v.DefRange, "Invalid field", fmt.Sprintf("field %q: write <resource>.<field> with resource gpu, cpu or memory and field deserved, limit or overQuotaWeight (e.g. \"gpu.deserved\").", v.Field))
		}
		if v.Queue == "" {
			pr.bad(v.DefRange, "Missing queue", fmt.Sprintf("variable %q needs queue = \"<queue name>\".", v.Name))
		}
		ex.Variables = append(ex.Variables, Variable{Name: v.Name, Queue: v.Queue, Field: NormalizeField(v.Field), Line: v.DefRange.Start.Line})
	}
	pr.p.Expectations = append(pr.p.Expectations, ex)
}

func (pr *parser) mirror(m hclMirror) {
	mi := Mirror{Resource: DefaultMirrorResource, Follows: "limit", Line: m.DefRange.Start.Line}
	if m.Path != nil {
		mi.Path = pr.checkPath(m.DefRange, "resource_quota_mirror path", *m.Path)
	}
	if m.Name != nil {
		mi.Name = *m.Name
	}
	if m.Resource != nil {
		mi.Resource = *m.Resource
	}
	if m.Follows != nil {
		mi.Follows = *m.Follows
	}
	if !validFollows(mi.Follows) {
		pr.bad(m.DefRange, "Invalid follows", fmt.Sprintf("follows = %q: a mirror follows the gpu \"limit\" or \"deserved\".", mi.Follows))
	}
	if m.Pool != nil {
		mi.Pool = *m.Pool
	}
	pr.p.Mirrors = append(pr.p.Mirrors, mi)
}

func (pr *parser) placement(pl hclPlacement) {
	p := pr.p
	p.Placement = &Placement{}
	for _, f := range []struct {
		v    *string
		slot *string
		what string
	}{{pl.NodePool, &p.Placement.NodePool, tenancy.KindNodePool.Info().Block},
		{pl.Department, &p.Placement.Department, tenancy.KindDepartment.Info().Block},
		{pl.Project, &p.Placement.Project, tenancy.KindProject.Info().Block}} {
		if f.v != nil {
			*f.slot = pr.checkPath(pl.DefRange, "placement "+f.what, *f.v)
		}
	}
}

var resources = []string{"gpu", "cpu", "memory"}

// ValidField reports whether f names a quota field: "<resource>.<field>"
// with resource gpu, cpu or memory and field deserved, limit or
// overQuotaWeight (over_quota_weight, desired.hcl's spelling, is accepted).
func ValidField(f string) bool {
	r, name, ok := strings.Cut(f, ".")
	if !ok {
		return false
	}
	okR := false
	for _, x := range resources {
		okR = okR || r == x
	}
	return okR && (name == "deserved" || name == "limit" || name == "overQuotaWeight" || name == "over_quota_weight")
}

// NormalizeField writes a field in KRM's spelling (gpu.over_quota_weight →
// gpu.overQuotaWeight), as plan changes name it.
func NormalizeField(f string) string {
	return strings.Replace(f, "over_quota_weight", "overQuotaWeight", 1)
}

// Check refuses a decoded profile (from state.json or a plan's snapshot)
// that Parse would not have made: a path that is not clean or not inside
// the repository, a field that is not ValidField in KRM's spelling, a
// mirror that follows neither limit nor deserved, a variable without a
// queue or named twice in one file. A file edited by hand (its digest or
// plan_id recomputed) is read with the rules .krmplan.hcl is read with.
func (p *Profile) Check() error {
	for _, e := range p.Expectations {
		if err := checkClean("expectations", e.File); err != nil {
			return fmt.Errorf("%s: %w", p.File, err)
		}
		seen := map[string]bool{}
		for _, v := range e.Variables {
			switch {
			case seen[v.Name]:
				return fmt.Errorf("%s: variable %q is named twice for %s", p.File, v.Name, e.File)
			case !ValidField(v.Field) || NormalizeField(v.Field) != v.Field:
				return fmt.Errorf("%s: variable %q: field %q is not a quota field (gpu, cpu or memory . deserved, limit or overQuotaWeight)", p.File, v.Name, v.Field)
			case v.Queue == "":
				return fmt.Errorf("%s: variable %q has no queue", p.File, v.Name)
			}
			seen[v.Name] = true
		}
	}
	for _, m := range p.Mirrors {
		if m.Path != "" {
			if err := checkClean("resource_quota_mirror path", m.Path); err != nil {
				return fmt.Errorf("%s: %w", p.File, err)
			}
		}
		if !validFollows(m.Follows) {
			return fmt.Errorf("%s: a resource_quota_mirror follows %q; it follows the gpu \"limit\" or \"deserved\"", p.File, m.Follows)
		}
	}
	if pl := p.Placement; pl != nil {
		for _, f := range []struct{ what, v string }{{"node_pool", pl.NodePool}, {"department", pl.Department}, {"project", pl.Project}} {
			if f.v == "" {
				continue
			}
			if err := checkClean("placement "+f.what, f.v); err != nil {
				return fmt.Errorf("%s: %w", p.File, err)
			}
		}
	}
	return nil
}

// checkClean refuses a path that Parse would not keep: not inside the
// repository, or not in the clean form Parse writes.
func checkClean(what, p string) error {
	if clean, ok := insideRepository(p); !ok || clean != p {
		return fmt.Errorf("%s %q is not a clean path inside the repository, relative to its root", what, p)
	}
	return nil
}
