package commit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// subjectWidth bounds a commit subject, "quota: " included: git's
// one-line log and GitHub's commit list cut subjects near 72 columns.
const subjectWidth = 72

// Subject is the splice commit's subject after "quota: ": "move 1 card
// from workspace to benchmark on rtx-pro-6000" when the plan moves gpu
// guarantee between exactly two queues of one pool, else what changes,
// object by object — "+project inference, workspace gpu 3→2" (gpu is
// gpu.deserved; a new queue on an existing object is "+queue NAME", a
// removed one "-queue NAME", a removed object "-project legacy", a
// `moved` block "rename project nlp to language") — within 72 columns:
// when that is too long an object with several changes is "workspace 3
// changes", then only the first objects that fit are named, "and N more",
// and when not even one fits it is "N to add, N to change, N to destroy".
func Subject(p *planner.Plan) string {
	if s, ok := moveSubject(p.Changes); ok {
		return s
	}
	room := subjectWidth - len("quota: ")
	full, short := subjectItems(p.Changes)
	for _, items := range [][]string{full, short} {
		if s := strings.Join(items, ", "); utf8.RuneCountInString(s) <= room {
			return s
		}
	}
	if k := fitting(short, room); k > 0 {
		return strings.Join(short[:k], ", ") + fmt.Sprintf(" and %d more", len(short)-k)
	}
	return fmt.Sprintf("%d to add, %d to change, %d to destroy", p.Summary.Add, p.Summary.Change, p.Summary.Destroy)
}

// fitting is the most items k < len(items) whose "a, b and N more" is
// at most room runes, 0 when not even one fits. The text grows with k
// (each item adds at least ", " and the count loses at most a digit), so
// the first k that does not fit ends the search: the plan of thousands of
// objects is not joined once per count.
func fitting(items []string, room int) int {
	best, width := 0, 0
	for k := 1; k < len(items); k++ {
		if k > 1 {
			width += len(", ")
		}
		width += utf8.RuneCountInString(items[k-1])
		if width+len(fmt.Sprintf(" and %d more", len(items)-k)) > room {
			break
		}
		best = k
	}
	return best
}

// subjectItems is one item per changed object, in the plan's order:
// "+project inference" for a new object, "-project legacy" for a removed
// one, "rename project nlp to language" for the pair a `moved` block makes
// (in the place of the new project, which the plan creates first), else
// its name and its changes, "workspace gpu 3→2 +queue workspace-h100";
// short has "workspace 3 changes" for an object with more than one.
func subjectItems(cs []tenancy.Change) (full, short []string) {
	renamedTo := map[tenancy.ObjectAddr]string{} // the new project → the old one's name
	renamedFrom := map[tenancy.ObjectAddr]bool{}
	for _, c := range cs {
		if c.MovedTo != "" && c.Destroys() {
			renamedTo[c.Object().Kind.Object(c.MovedTo)] = c.Object().Name
			renamedFrom[c.Object()] = true
		}
	}
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].Object() == cs[i].Object() {
			j++
		}
		obj := cs[i].Object()
		item := ""
		switch from, renamed := renamedTo[obj]; {
		case renamedFrom[obj]:
			i = j
			continue
		case cs[i].Creates() && renamed:
			item = "rename " + obj.Kind.Info().Word + " " + from + " to " + obj.Name
		case cs[i].Creates():
			item = "+" + obj.Kind.Info().Word + " " + obj.Name
		case cs[i].Destroys():
			item = "-" + obj.Kind.Info().Word + " " + obj.Name
		}
		if item != "" {
			full, short = append(full, item), append(short, item)
			i = j
			continue
		}
		fs := fieldItems(cs[i:j])
		full = append(full, obj.Name+" "+strings.Join(fs, " "))
		if len(fs) > 1 {
			short = append(short, fmt.Sprintf("%s %d changes", obj.Name, len(fs)))
		} else {
			short = append(short, full[len(full)-1])
		}
		i = j
	}
	return full, short
}

// fieldItems is the changes of one existing object: "+queue NAME" for a
// new queue, "-queue NAME" for a removed one, "FIELD BEFORE→AFTER" for a
// changed value ("+FIELD AFTER" for one the file omitted), with the queue's pool in brackets when the
// object changes existing queues on more than one pool.
func fieldItems(cs []tenancy.Change) []string {
	pools := map[string]bool{}
	for _, c := range cs {
		if c.Queue != "" && !c.NewQueue && !c.RemovesQueue() {
			pools[c.Pool] = true
		}
	}
	var out []string
	lastQueue := tenancy.NoQueue
	for _, c := range cs {
		if c.RemovesQueue() {
			out = append(out, "-queue "+c.Queue)
			continue
		}
		if c.NewQueue {
			if c.Field.Queue != lastQueue {
				out = append(out, "+queue "+c.Queue)
			}
			lastQueue = c.Field.Queue
			continue
		}
		name := c.Field.Field.String()
		if c.Field.Field == gpuDeserved {
			name = "gpu"
		}
		if len(pools) > 1 && c.Queue != "" {
			name += " (" + c.Pool + ")"
		}
		if c.Before.IsNull() {
			out = append(out, "+"+name+" "+c.After.String())
		} else {
			out = append(out, name+" "+c.Before.String()+"→"+c.After.String())
		}
	}
	return out
}

// gpuDeserved is the field of a queue's gpu guarantee.
var gpuDeserved = tenancy.QuotaFieldOf(quota.GPU, tenancy.Deserved)

// moveSubject is "move 1 card from A to B on POOL" when cs moves gpu
// guarantee between exactly two queues of one pool.
func moveSubject(cs []tenancy.Change) (string, bool) {
	if len(cs) != 2 || cs[0].Field.Field != gpuDeserved || cs[1].Field.Field != gpuDeserved || cs[0].Pool != cs[1].Pool ||
		cs[0].Action != tenancy.ActionUpdate || cs[1].Action != tenancy.ActionUpdate {
		return "", false
	}
	var v [2][2]quota.Value // before, after of each change
	for i, c := range cs {
		var ok1, ok2 bool
		v[i][0], ok1 = c.Before.Number()
		v[i][1], ok2 = c.After.Number()
		if !ok1 || !ok2 || v[i][0].IsUnlimited() || v[i][1].IsUnlimited() {
			return "", false
		}
	}
	// One queue gives up exactly what the other gains. (Deltas are
	// compared as before/after pairs: a delta of -1 is not "unlimited".)
	from, to := 0, 1
	if v[0][1].Cmp(v[0][0]) > 0 {
		from, to = 1, 0
	}
	given := v[from][0].Sub(v[from][1])
	if v[from][1].Cmp(v[from][0]) < 0 && v[to][1].Sub(v[to][0]).Equal(given) {
		return fmt.Sprintf("move %s from %s to %s on %s", quota.Amount(quota.GPU, given), cs[from].Object().Name, cs[to].Object().Name, cs[from].Pool), true
	}
	return "", false
}
