package render

import (
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/planner"
)

// Edits lists the value edits of the plan's changes, by file, from the
// positions the snapshot recorded (no file is read). It refuses (a
// *SpliceError or a plain error) what a value edit cannot do: adding an
// object, a queue or an omitted field, and a value reached through a YAML
// alias. PrepareSplice does all of a splice (additions, several files, the
// profile) and checks the result; Edits remains for callers that only move
// numbers and have no repository at hand (benchmarks).
func Edits(p *planner.Plan) (map[string][]Edit, error) {
	origins := p.Snapshot.Origins()
	out := map[string][]Edit{}
	for _, c := range p.Changes {
		what := c.Field + " of " + strings.ToLower(c.Kind) + " " + c.Object
		if c.Queue != "" {
			what = c.Field + " of queue " + c.Queue
		}
		o := origins[c.Kind+"/"+c.Object]
		if c.Action == planner.ActionCreate || o == nil {
			return nil, fmt.Errorf("Edits cannot add %s (a new object or queue); use PrepareSplice", what)
		}
		pos, ok := o.Values[c.Path]
		if !ok {
			return nil, &SpliceError{File: o.File, Line: o.Line, Msg: fmt.Sprintf("%s is omitted in the file; Edits cannot insert an omitted field; use PrepareSplice", what)}
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
