package between

import (
	"fmt"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/internal/nearname"
	"github.com/krmplan/krmplan/tenancy"
)

// ForceError is a --force-removal that names no removal of the plan: the
// head removes no such object or queue entry, or names it twice.
type ForceError struct {
	Force tenancy.RemovalAddr
	// Why says what the head removes instead, with the nearest name.
	Why string
}

func (e *ForceError) Error() string { return "--force-removal " + e.Force.String() + ": " + e.Why }

// force marks the destroys of changes that force names Force (force =
// true in a removed block): the removal of something in use is then a
// warning, forced-removal, not an error. Each of force must name one
// removal of changes, once; a force of an object the head removes whole
// names the object, not one of its queues.
func force(changes []tenancy.Change, force []tenancy.RemovalAddr) error {
	for i, f := range force {
		if slices.Contains(force[:i], f) {
			return &ForceError{f, "it is given twice"}
		}
		j := slices.IndexFunc(changes, func(c tenancy.Change) bool { return f.Matches(&c) })
		if j < 0 {
			return &ForceError{f, nothingRemoved(changes, f)}
		}
		changes[j].Force = true
	}
	return nil
}

// nothingRemoved says why f names no removal of changes, and what it may
// have meant: the object removed whole when f names one of its queues, its
// queues when f names it whole, else the nearest removal of f's kind
// (nearname), else the plan's removals.
func nothingRemoved(changes []tenancy.Change, f tenancy.RemovalAddr) string {
	var all []tenancy.RemovalAddr
	for i := range changes {
		if changes[i].Action == tenancy.ActionDestroy {
			all = append(all, tenancy.RemovalOf(&changes[i]))
		}
	}
	word, name := f.Object.Kind.Info().Word, f.Object.Name
	whole := tenancy.RemovalAddr{Object: f.Object}
	var pools, names []string
	for _, r := range all {
		switch {
		case r.Object == f.Object && r.Pool != "":
			pools = append(pools, r.Pool)
		case r.Object.Kind == f.Object.Kind && !slices.Contains(names, r.Object.Name):
			names = append(names, r.Object.Name)
		}
	}
	switch {
	case f.Pool != "" && slices.Contains(all, whole):
		return fmt.Sprintf("the head removes %s %q whole, with its queues: force it as %s", word, name, whole)
	case f.Pool == "" && len(pools) > 0:
		each := "it"
		if len(pools) > 1 {
			each = "each, such"
		}
		return fmt.Sprintf("the head does not remove %s %q, only its %s: force %s as %s", word, name, listQueues(pools), each, tenancy.RemovalAddr{Object: f.Object, Pool: pools[0]})
	}
	why := fmt.Sprintf("the head does not remove %s %q", word, name)
	if f.Pool != "" {
		why = fmt.Sprintf("the head does not remove the queue of %s %q on node pool %q", word, name, f.Pool)
	}
	if near := nearname.Nearest(f.Pool, pools); f.Pool != "" && near != "" {
		return fmt.Sprintf("%s; did you mean %s?", why, tenancy.RemovalAddr{Object: f.Object, Pool: near})
	}
	if near := nearname.Nearest(name, names); near != "" {
		i := slices.IndexFunc(all, func(r tenancy.RemovalAddr) bool { return r.Object.Name == near && r.Object.Kind == f.Object.Kind })
		if k := slices.Index(all, tenancy.RemovalAddr{Object: f.Object.Kind.Object(near), Pool: f.Pool}); k >= 0 {
			i = k
		}
		return fmt.Sprintf("%s; did you mean %s?", why, all[i])
	}
	if len(all) == 0 {
		return why + ": it removes nothing"
	}
	list := make([]string, len(all))
	for i, r := range all {
		list[i] = r.String()
	}
	return why + "; its removals are " + strings.Join(list, ", ")
}

// listQueues is "queue on node pool a" or "queues on node pools a and b".
func listQueues(pools []string) string {
	if len(pools) == 1 {
		return "queue on node pool " + pools[0]
	}
	return "queues on node pools " + strings.Join(pools[:len(pools)-1], ", ") + " and " + pools[len(pools)-1]
}
