package tenancy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// RemovalAddr names a removal as a removed block of desired.hcl does: an
// object (a node pool, a department or a project), or, with Pool, the
// queue entry of a department or a project on that node pool. A plan
// between two git refs has no removed block: `plan --force-removal
// project=legacy` names its forced removals in these terms, and plan.json
// records them so ({"project": "legacy"}, {"department": "x", "queue":
// "h100"}).
type RemovalAddr struct {
	Object ObjectAddr
	// Pool is the node pool of the removed queue entry; "" for the whole
	// object.
	Pool string
}

// RemovalOf is the address of the destroy change c.
func RemovalOf(c *Change) RemovalAddr {
	r := RemovalAddr{Object: c.Object()}
	if c.RemovesQueue() {
		r.Pool = c.Pool
	}
	return r
}

// Matches reports whether c is the removal r names: the destroy of the
// whole object, or of its queue entry on r's node pool.
func (r RemovalAddr) Matches(c *Change) bool {
	return c.Action == ActionDestroy && RemovalOf(c) == r
}

// String is the removal as the flag writes it: "project=legacy",
// "department=x,queue=h100", "node_pool=old".
func (r RemovalAddr) String() string {
	s := r.Object.Kind.Info().Block + "=" + r.Object.Name
	if r.Pool != "" {
		s += ",queue=" + r.Pool
	}
	return s
}

// ParseRemovalAddr reads a removal as String writes it: one of
// node_pool=, department= or project= with a name, and for a department or
// a project an optional queue=<node pool>, comma-separated. The error
// names what is wrong with s.
func ParseRemovalAddr(s string) (RemovalAddr, error) {
	var r RemovalAddr
	var queue *string
	for part := range strings.SplitSeq(s, ",") {
		key, value, ok := strings.Cut(part, "=")
		if !ok || value == "" {
			return r, fmt.Errorf("%q is not key=value: a removal is project=NAME, department=NAME or node_pool=NAME, with queue=POOL for one queue entry", part)
		}
		if key == "queue" {
			if queue != nil {
				return r, fmt.Errorf("queue is given twice")
			}
			queue = &value
			continue
		}
		k, ok := removalKind(key)
		if !ok {
			return r, fmt.Errorf("unknown key %q: the keys are those of a removed block, node_pool, department, project and queue", key)
		}
		if r.Object.Kind != 0 {
			return r, fmt.Errorf("a removal names exactly one object: node_pool, department or project")
		}
		r.Object = k.Object(value)
	}
	if r.Object.Kind == 0 {
		return r, fmt.Errorf("a removal names one object: node_pool, department or project")
	}
	if queue != nil {
		if !r.Object.Kind.Info().Queues {
			return r, fmt.Errorf("a node pool has no queues: queue=POOL removes a queue entry of a department or a project")
		}
		r.Pool = *queue
	}
	return r, nil
}

// removalKind is the kind whose desired.hcl block is key.
func removalKind(key string) (Kind, bool) {
	i := slices.IndexFunc(Planned, func(k Kind) bool { return k.Info().Block == key })
	if i < 0 {
		return 0, false
	}
	return Planned[i], true
}

// removalJSON is a RemovalAddr in plan.json: the removed block's keys.
type removalJSON struct {
	NodePool   string `json:"node_pool,omitempty"`
	Department string `json:"department,omitempty"`
	Project    string `json:"project,omitempty"`
	Queue      string `json:"queue,omitempty"`
}

// MarshalJSON writes r with a removed block's keys: {"project": "legacy"},
// {"department": "x", "queue": "h100"}.
func (r RemovalAddr) MarshalJSON() ([]byte, error) {
	j := removalJSON{Queue: r.Pool}
	switch r.Object.Kind {
	case KindNodePool:
		j.NodePool = r.Object.Name
	case KindDepartment:
		j.Department = r.Object.Name
	case KindProject:
		j.Project = r.Object.Name
	default:
		return nil, fmt.Errorf("a removal of no node pool, department or project")
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, refusing unknown keys, no
// object or two, and a queue of a node pool.
//
// It reads b with jsonfile.UnmarshalStrict, which takes less than
// encoding/json does (no key in another case, none twice) and reads it
// alike, and only b that it refuses with encoding/json, whose words the
// refusal keeps: encoding/json's Decoder allocates about 2.5 kB for each
// removal, 7 MB for the few thousand a hostile plan.json lists before its
// list is refused (jsonfile.TooManyError).
func (r *RemovalAddr) UnmarshalJSON(b []byte) error {
	var j removalJSON
	if jsonfile.UnmarshalStrict(b, &j) != nil {
		j = removalJSON{}
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.DisallowUnknownFields()
		if err := d.Decode(&j); err != nil {
			return fmt.Errorf("a removal: %w", err)
		}
	}
	var parts []string
	for _, kv := range [][2]string{{"node_pool", j.NodePool}, {"department", j.Department}, {"project", j.Project}, {"queue", j.Queue}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	got, err := ParseRemovalAddr(strings.Join(parts, ","))
	if err != nil {
		return fmt.Errorf("a removal %s: %w", b, err)
	}
	*r = got
	return nil
}
