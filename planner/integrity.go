package planner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// checkSteps verifies that the steps of a plan read from a file do exactly
// what its changes say, so that `show` (which prints the changes) and
// `render` (which prints the steps) can never disagree for one plan id:
// every change is in exactly one step; every op of a patch is a test of a
// queue's name as the snapshot has it, or a test, replace or add of a
// changed value with the change's before and after; every changed value
// that exists is tested before it is replaced; a new queue or object holds
// the changed values. plan_id alone cannot promise this, because whoever
// edits a plan file can recompute it.
func (p *Plan) checkSteps() error {
	seen := make([]int, len(p.Changes))
	x := newIndex(&p.Snapshot) // once: a plan of thousands of steps over a tenancy of thousands of objects
	for n, st := range p.Steps {
		where := fmt.Sprintf("step %d (%s %s %s)", n+1, st.Action, st.Kind, st.Object)
		for _, i := range st.Changes {
			if i < 0 || i >= len(p.Changes) {
				return fmt.Errorf("%s names change %d, which does not exist", where, i)
			}
			c := p.Changes[i]
			if c.Kind != st.Kind || c.Object != st.Object {
				return fmt.Errorf("%s holds a change of %s %s", where, c.Kind, c.Object)
			}
			seen[i]++
		}
		var err error
		if st.Action == StepCreate {
			err = p.checkCreate(st)
		} else {
			err = p.checkPatch(st, x)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	for i, n := range seen {
		if n != 1 {
			c := p.Changes[i]
			return fmt.Errorf("change %s of %s %s is in %d steps, not in exactly one", c.Field, c.Kind, c.Object, n)
		}
	}
	return nil
}

// checkCreate: the manifest names the object and holds every changed value.
func (p *Plan) checkCreate(st Step) error {
	doc, err := decodeNumbers(st.Manifest)
	m, _ := doc.(map[string]any)
	if err != nil || m == nil {
		return fmt.Errorf("the manifest is not a JSON object")
	}
	meta, _ := m["metadata"].(map[string]any)
	if m["kind"] != st.Kind || meta == nil || meta["name"] != st.Object {
		return fmt.Errorf("the manifest is not %s %s", st.Kind, st.Object)
	}
	for _, i := range st.Changes {
		c := p.Changes[i]
		if err := holds(m, c.Path, c.After); err != nil {
			return fmt.Errorf("the manifest's %s: %w", c.Path, err)
		}
	}
	return nil
}

// checkPatch walks the ops of a patch step against its changes; x indexes
// the plan's snapshot.
func (p *Plan) checkPatch(st Step, x *index) error {
	byPath := map[string]Change{}
	var newQueues []int // queue indexes added by this step, in order
	for _, i := range st.Changes {
		c := p.Changes[i]
		byPath[c.Path] = c
		if c.NewQueue && (len(newQueues) == 0 || newQueues[len(newQueues)-1] != c.QueueIndex) {
			newQueues = append(newQueues, c.QueueIndex)
		}
	}
	sort.Ints(newQueues)
	names := snapshotQueueNames(x, st.Kind, st.Object)
	tested := map[string]bool{}
	added := 0
	for k, op := range st.Ops {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("op %d (%s %s): %s", k+1, op.Op, op.Path, fmt.Sprintf(format, args...))
		}
		if c, ok := byPath[op.Path]; ok {
			want := c.After
			if op.Op == opTest {
				want = c.Before
				tested[op.Path] = true
			}
			if !equalJSONText(op.Value, want) {
				return bad("the value %s is not the change's %s", op.Value, want)
			}
			continue
		}
		switch {
		case op.Op == opTest && strings.HasSuffix(op.Path, "/name"):
			i, err := queueIndex(op.Path, "/name")
			if err != nil || i >= len(names) || !equalJSONText(op.Value, jsonValue(names[i])) {
				return bad("the queue name tested is not the snapshot's")
			}
		case op.Op == opAdd && op.Path == "/spec/queues/-":
			if added >= len(newQueues) {
				return bad("adds a queue that no change adds")
			}
			if err := p.holdsAll(st, op.Value, fmt.Sprintf("/spec/queues/%d", newQueues[added])); err != nil {
				return bad("%v", err)
			}
			added++
		case op.Op == opAdd && strings.Contains(op.Path, "/resources/"):
			if err := p.holdsAll(st, op.Value, op.Path); err != nil {
				return bad("%v", err)
			}
		default:
			return bad("not one of the plan's changes")
		}
	}
	for _, i := range st.Changes {
		c := p.Changes[i]
		if c.Action == ActionUpdate && string(c.Before) != "null" && !tested[c.Path] {
			return fmt.Errorf("%s is replaced without a test of the value as read", c.Path)
		}
	}
	return nil
}

// holdsAll checks that value, written at path prefix, holds every change of
// the step below that prefix, and at least one.
func (p *Plan) holdsAll(st Step, value json.RawMessage, prefix string) error {
	doc, err := decodeNumbers(value)
	if err != nil {
		return err
	}
	n := 0
	for _, i := range st.Changes {
		c := p.Changes[i]
		rest, ok := strings.CutPrefix(c.Path, prefix+"/")
		if !ok {
			continue
		}
		if err := holds(doc, "/"+rest, c.After); err != nil {
			return fmt.Errorf("%s: %w", c.Path, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("the value holds none of the plan's changes")
	}
	return nil
}

// snapshotQueueNames are the names of the queues of an object of the
// snapshot, in order; nil for an object the snapshot lacks.
func snapshotQueueNames(x *index, kind, name string) []string {
	var names []string
	if qs := x.queues(kind, name); qs != nil {
		for _, q := range *qs {
			names = append(names, q.Name)
		}
	}
	return names
}

// queueIndex reads N from "/spec/queues/N<suffix>".
func queueIndex(path, suffix string) (int, error) {
	s, ok := strings.CutPrefix(path, "/spec/queues/")
	if !ok {
		return 0, fmt.Errorf("not a queue path")
	}
	return strconv.Atoi(strings.TrimSuffix(s, suffix))
}

// decodeNumbers reads JSON keeping numbers as written (json.Number).
func decodeNumbers(b json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// holds reports whether doc has want at the JSON pointer path.
func holds(doc any, path string, want json.RawMessage) error {
	cur := doc
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(v) {
				return fmt.Errorf("no element %s", seg)
			}
			cur = v[i]
		default:
			return fmt.Errorf("no %s", seg)
		}
	}
	got, _ := json.Marshal(cur)
	if !equalJSONText(got, want) {
		return fmt.Errorf("holds %s, the change says %s", got, want)
	}
	return nil
}

// equalJSONText compares two JSON values by their compact text, after reading
// numbers as written (so 2 and 2.0 differ, as they do in the plan).
func equalJSONText(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
