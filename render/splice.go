package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
)

// Edit replaces the bytes of one value in one file.
type Edit struct {
	File       string
	Line       int
	Start, End int    // byte offsets of the value as read
	Old        string // the bytes expected at Start..End
	New        string // the replacement
	What       string // for messages: "gpu.deserved of queue workspace-rtx"
}

// SpliceError is a refusal to splice, naming the file and line.
type SpliceError struct {
	File string
	Line int
	Msg  string
}

func (e *SpliceError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Edits lists the byte edits of the plan's changes, by file. It refuses
// (a *SpliceError or a plain error) what a value edit cannot do: adding an
// object, a queue or an omitted field, and a value reached through a YAML
// alias.
func Edits(p *planner.Plan) (map[string][]Edit, error) {
	origins := map[string]*snapshot.Origin{}
	for i := range p.Snapshot.NodePools {
		origins[planner.KindNodePool+"/"+p.Snapshot.NodePools[i].Metadata.Name] = p.Snapshot.NodePools[i].Origin
	}
	for i := range p.Snapshot.Departments {
		origins[planner.KindDepartment+"/"+p.Snapshot.Departments[i].Metadata.Name] = p.Snapshot.Departments[i].Origin
	}
	for i := range p.Snapshot.Projects {
		origins[planner.KindProject+"/"+p.Snapshot.Projects[i].Metadata.Name] = p.Snapshot.Projects[i].Origin
	}
	out := map[string][]Edit{}
	for _, c := range p.Changes {
		what := c.Field + " of " + strings.ToLower(c.Kind) + " " + c.Object
		if c.Queue != "" {
			what = c.Field + " of queue " + c.Queue
		}
		o := origins[c.Kind+"/"+c.Object]
		if c.Action == planner.ActionCreate || o == nil {
			return nil, fmt.Errorf("splice cannot add %s yet (new objects and queues); render this plan with --format patch", what)
		}
		pos, ok := o.Values[c.Path]
		if !ok {
			return nil, &SpliceError{File: o.File, Line: o.Line, Msg: fmt.Sprintf("%s is omitted in the file; splice cannot insert an omitted field yet, render with --format patch", what)}
		}
		if pos.Alias {
			return nil, &SpliceError{File: o.File, Line: pos.Line, Msg: fmt.Sprintf("%s is reached through the YAML alias %s; edit the anchor by hand", what, pos.Text)}
		}
		newText := string(c.After)
		if c.Resource == "" && len(newText) > 0 && newText[0] == '"' && !strings.HasPrefix(pos.Text, `"`) {
			newText = strings.Trim(newText, `"`) // a plain YAML string, written as read
		}
		out[o.File] = append(out[o.File], Edit{File: o.File, Line: pos.Line, Start: pos.Start, End: pos.End, Old: pos.Text, New: newText, What: what})
	}
	return out, nil
}

// Splice applies edits to src and returns the new bytes; src is not
// changed. Only the bytes of each value change, plus the run of spaces
// after it (past a closing ',', '}' or ']') when more text follows on the
// line, so that aligned columns and trailing comments stay where they were.
// It refuses, naming file and line, when the bytes at an edit's position
// are not what was read (the file changed since the snapshot) or when two
// edits overlap.
func Splice(src []byte, edits []Edit) ([]byte, error) {
	es := append([]Edit(nil), edits...)
	sort.Slice(es, func(i, j int) bool { return es[i].Start < es[j].Start })
	for i, e := range es {
		if e.Start < 0 || e.End > len(src) || e.Start > e.End || string(src[e.Start:e.End]) != e.Old {
			found := ""
			if e.Start >= 0 && e.End <= len(src) && e.Start <= e.End {
				found = fmt.Sprintf(", found %q", src[e.Start:e.End])
			}
			return nil, &SpliceError{File: e.File, Line: e.Line, Msg: fmt.Sprintf("expected %q (%s) at bytes %d-%d%s: the file changed since the snapshot; take a new snapshot and plan again", e.Old, e.What, e.Start, e.End, found)}
		}
		if i > 0 && es[i-1].End > e.Start {
			return nil, &SpliceError{File: e.File, Line: e.Line, Msg: fmt.Sprintf("two edits overlap (%s and %s)", es[i-1].What, e.What)}
		}
	}
	out := make([]byte, 0, len(src)+16*len(es))
	at := 0
	for _, e := range es {
		out = append(out, src[at:e.Start]...)
		out = append(out, e.New...)
		at = e.End
		// Re-pad the run of spaces that follows, when it separates columns.
		delta := len(e.New) - len(e.Old)
		if delta == 0 {
			continue
		}
		p := at
		for p < len(src) && (src[p] == ',' || src[p] == '}' || src[p] == ']') {
			p++
		}
		q := p
		for q < len(src) && src[q] == ' ' {
			q++
		}
		spaces := q - p
		if spaces == 0 || q >= len(src) || src[q] == '\n' || src[q] == '\r' {
			continue // nothing aligned after the value on this line
		}
		next := len(es)
		for k := range es {
			if es[k].Start >= e.End {
				next = k
				break
			}
		}
		if next < len(es) && es[next].Start < q {
			continue // the next edit sits inside this run
		}
		keep := max(spaces-delta, 1)
		out = append(out, src[at:p]...)
		out = append(out, strings.Repeat(" ", keep)...)
		at = q
	}
	return append(out, src[at:]...), nil
}
