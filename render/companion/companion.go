// Package companion keeps the repository profile's companion files
// (.krmplan.hcl, docs/repository-profile.md) in step with a splice: the
// expectations files (shell variables that hold a queue's quota) and the
// namespace ResourceQuotas that mirror a project's gpu quota. It reads the
// quotas before and after the plan as Views, and answers with yamledit
// Edits by file, or refuses a file that already disagreed.
package companion

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/tenancy"
	"go.yaml.in/yaml/v3"
)

// View answers the profile's questions about one state: a queue's field,
// and a namespace's project.
type View struct {
	queues   map[string]tenancy.Queue // by queue name (the first object naming it)
	projects map[string]projectView   // by namespace
}

type projectView struct {
	name string
	spec tenancy.ProjectSpec
}

func newView() *View {
	return &View{queues: map[string]tenancy.Queue{}, projects: map[string]projectView{}}
}

// addQueues adds the queues of owner by their KAI Queue names (derived
// from the owner for a queue without a name).
func (v *View) addQueues(owner string, qs []tenancy.Queue) {
	for _, q := range qs {
		n := q.KAIName(owner)
		if _, ok := v.queues[n]; !ok {
			v.queues[n] = q
		}
	}
}

// addProject adds project p, in its namespace as KRM names it (prefix is
// the KRMConfig's projectNamePrefix).
func (v *View) addProject(p *tenancy.Project, prefix string) {
	v.projects[p.NamespaceName(prefix)] = projectView{name: p.Metadata.Name, spec: p.Spec}
	v.addQueues(p.Metadata.Name, p.Spec.Queues)
}

// Of is the view of a tenancy: the snapshot's, or the plan's target.
func Of(t *tenancy.Tenancy) *View {
	v := newView()
	for _, d := range t.Departments {
		v.addQueues(d.Metadata.Name, d.Spec.Queues)
	}
	for i := range t.Projects {
		v.addProject(&t.Projects[i], t.KRMConfig.NamePrefix())
	}
	return v
}

// field returns a queue's value of field ("gpu.deserved"); an omitted
// value is 0, as KRM reads it. ok is false when the queue is unknown.
func (v *View) field(queue, field string) (quota.Value, bool) {
	q, ok := v.queues[queue]
	if !ok {
		return quota.Zero, false
	}
	return fieldOf(q, field), true
}

func fieldOf(q tenancy.Queue, field string) quota.Value {
	r, f, _ := strings.Cut(field, ".")
	res := q.Resources.Get(quota.Resource(r))
	if res == nil {
		return quota.Zero
	}
	slot := res.SlotNamed(f)
	if slot == nil || *slot == nil {
		return quota.Zero
	}
	return **slot
}

// assignRE matches a shell assignment NAME=… with an optional export,
// readonly, local or declare in front.
var assignRE = regexp.MustCompile(`^[ \t]*(?:(?:export|readonly|local|declare(?:[ \t]+-[A-Za-z]+)*)[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=`)

// shellValue is the number of one assignment: its bytes (inside quotes
// when quoted) and line.
type shellValue struct {
	line       int
	start, end int
	text       string
}

// shellAssignments finds the assignments of the shell file src by variable.
func shellAssignments(src []byte) map[string][]shellValue {
	out := map[string][]shellValue{}
	off := 0
	for n, raw := range strings.SplitAfter(string(src), "\n") {
		line := strings.TrimRight(raw, "\r\n")
		m := assignRE.FindStringSubmatchIndex(line)
		if m != nil {
			name := line[m[2]:m[3]]
			i := m[1]
			start, end := i, i
			switch {
			case i < len(line) && (line[i] == '"' || line[i] == '\''):
				if j := strings.IndexByte(line[i+1:], line[i]); j >= 0 {
					start, end = i+1, i+1+j
				}
			default:
				end = i
				for end < len(line) && !strings.ContainsRune(" \t;#&|)", rune(line[end])) {
					end++
				}
			}
			out[name] = append(out[name], shellValue{line: n + 1, start: off + start, end: off + end, text: line[start:end]})
		}
		off += len(raw)
	}
	return out
}

// Expectations rewrites the variables of the profile's expectations files
// whose queue field differs between before and after; read returns a
// file's bytes at the snapshot's commit (exists false when it has none).
// The file's number must be the snapshot's value: a file that already
// disagreed is refused (*yamledit.Error naming file and line), not
// overwritten.
func Expectations(prof *profile.Profile, before, after *View, read func(string) ([]byte, bool, error)) (map[string][]yamledit.Edit, error) {
	out := map[string][]yamledit.Edit{}
	for _, ex := range prof.Expectations {
		var src []byte
		var assigns map[string][]shellValue
		for _, v := range ex.Variables {
			old, ok := before.field(v.Queue, v.Field)
			nv, ok2 := after.field(v.Queue, v.Field)
			if !ok && !ok2 {
				return nil, fmt.Errorf("%s:%d: variable %s names queue %q, which the tenancy does not have", prof.File, v.Line, v.Name, v.Queue)
			}
			if ok && ok2 && old.Equal(nv) {
				continue
			}
			if src == nil {
				b, exists, err := read(ex.File)
				if err != nil {
					return nil, err
				}
				if !exists {
					return nil, fmt.Errorf("%s:%d: the expectations file %s is not in the snapshot's commit", prof.File, ex.Line, ex.File)
				}
				src, assigns = b, shellAssignments(b)
			}
			as := assigns[v.Name]
			switch len(as) {
			case 0:
				return nil, &yamledit.Error{File: ex.File, Msg: fmt.Sprintf("no assignment %s=<number> for variable %s (named in %s:%d)", v.Name, v.Name, prof.File, v.Line)}
			case 1:
			default:
				return nil, &yamledit.Error{File: ex.File, Line: as[1].line, Msg: fmt.Sprintf("%s is assigned %d times (lines %s); keep one assignment", v.Name, len(as), joinLines(as))}
			}
			a := as[0]
			cur, err := quota.Parse(a.text)
			if err != nil {
				return nil, &yamledit.Error{File: ex.File, Line: a.line, Msg: fmt.Sprintf("%s=%s is not a number", v.Name, a.text)}
			}
			if !cur.Equal(old) {
				return nil, &yamledit.Error{File: ex.File, Line: a.line, Msg: fmt.Sprintf("%s is %s, but %s of queue %s was %s at the snapshot: the expectations already disagree with the tenancy; fix the file first", v.Name, a.text, v.Field, v.Queue, old)}
			}
			out[ex.File] = append(out[ex.File], yamledit.Edit{File: ex.File, Line: a.line, Start: a.start, End: a.end, Old: a.text, New: nv.String(),
				What: fmt.Sprintf("%s (%s of queue %s)", v.Name, v.Field, v.Queue)})
		}
	}
	return out, nil
}

func joinLines(as []shellValue) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = fmt.Sprint(a.line)
	}
	return strings.Join(s, ", ")
}

// mirrorValue is the whole cards a project's ResourceQuota mirrors: the sum
// of the Follows field of its gpu queues (only Pool's when set), rounded
// down. unlimited is true when one of them is -1.
func mirrorValue(m profile.Mirror, spec tenancy.ProjectSpec) (cards *big.Int, unlimited bool) {
	sum := quota.Zero
	for _, q := range spec.Queues {
		if m.Pool != "" && q.NodePool != m.Pool {
			continue
		}
		sum = sum.Add(fieldOf(q, "gpu."+m.Follows))
	}
	if sum.IsUnlimited() {
		return nil, true
	}
	r, ok := new(big.Rat).SetString(sum.String())
	if !ok {
		return big.NewInt(0), false
	}
	q := new(big.Int).Quo(r.Num(), r.Denom()) // truncates; quotas are not negative
	if r.Sign() < 0 && !r.IsInt() {
		q.Sub(q, big.NewInt(1))
	}
	return q, false
}

// Mirrors rewrites (with write) or reports the namespace ResourceQuotas
// that mirror a project's gpu quota which differs between before and
// after, in the tenancy files or the files a mirror's path lists. It
// returns the edits and the notes of the mirrors left alone.
func Mirrors(prof *profile.Profile, before, after *View, tenancy []string, list func(string) ([]string, error),
	read func(string) ([]byte, bool, error), write bool) (map[string][]yamledit.Edit, []string, error) {
	out := map[string][]yamledit.Edit{}
	var notes []string
	for _, m := range prof.Mirrors {
		files := tenancy
		if m.Path != "" {
			var err error
			if files, err = list(m.Path); err != nil {
				return nil, nil, err
			}
			if len(files) == 0 {
				return nil, nil, fmt.Errorf("%s:%d: resource_quota_mirror path %s holds no *.yaml or *.yml file at the snapshot's commit", prof.File, m.Line, m.Path)
			}
		}
		for _, file := range files {
			src, ok, err := read(file)
			if err != nil || !ok {
				return nil, nil, fmt.Errorf("%s: %v", file, err)
			}
			f, err := yamledit.Parse(file, src)
			if err != nil {
				return nil, nil, err
			}
			for _, d := range f.Docs() {
				if d.Kind != "ResourceQuota" || d.Namespace == "" || (m.Name != "" && d.Name != m.Name) {
					continue
				}
				node := yamledit.MapGet(yamledit.MapGet(yamledit.MapGet(d.Root, "spec"), "hard"), m.Resource)
				if node == nil {
					continue
				}
				bp, okB := before.projects[d.Namespace]
				ap, okA := after.projects[d.Namespace]
				if !okB || !okA {
					continue
				}
				oldC, oldU := mirrorValue(m, bp.spec)
				newC, newU := mirrorValue(m, ap.spec)
				if oldU == newU && (oldU || oldC.Cmp(newC) == 0) {
					continue
				}
				who := fmt.Sprintf("ResourceQuota %s/%s", d.Namespace, d.Name)
				what := fmt.Sprintf("%s of %s (project %s's gpu %s in whole cards)", m.Resource, who, ap.name, m.Follows)
				newText, oldText := "unlimited", "unlimited"
				if !newU {
					newText = newC.String()
				}
				if !oldU {
					oldText = oldC.String()
				}
				if !write {
					notes = append(notes, fmt.Sprintf("%s:%d: %s goes from %s to %s; not rewritten (render with --with-mirrors to rewrite it)", file, node.Line, what, oldText, newText))
					continue
				}
				if node.Kind == yaml.AliasNode {
					return nil, nil, yamledit.AliasRefusal(file, node, what, "change")
				}
				if newU {
					return nil, nil, &yamledit.Error{File: file, Line: node.Line, Msg: fmt.Sprintf("%s: the gpu %s becomes unlimited, which a ResourceQuota cannot hold; remove or edit the ResourceQuota by hand", what, m.Follows)}
				}
				start, end, err := f.Token(node)
				if err != nil {
					return nil, nil, err
				}
				if node.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
					start, end = start+1, end-1
				}
				cur := string(src[start:end])
				if cur != oldText {
					return nil, nil, &yamledit.Error{File: file, Line: node.Line, Msg: fmt.Sprintf("%s is %q, but it should have been %s at the snapshot: the mirror was already out of step; fix it by hand first", what, cur, oldText)}
				}
				out[file] = append(out[file], yamledit.Edit{File: file, Line: node.Line, Start: start, End: end, Old: cur, New: newText, What: m.Resource + " of " + who})
			}
		}
	}
	return out, notes, nil
}
