// Package guard names the JSON-patch tests of a plan's steps for a
// person: what the patch script's report and the live check of the
// guards say failed.
package guard

import (
	"encoding/json"
	"strconv"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// Guard is one JSON-patch test a step makes before it changes anything:
// the value at Path must be Value, or the API server refuses the whole
// patch (422) and nothing of the step is applied.
type Guard struct {
	// Path is the JSON pointer inside the object ("/spec/queues/0/name").
	Path string
	// Value is the JSON value tested: as the snapshot read it for a step
	// of the plan, as the plan leaves it for a step of its rollback.
	Value json.RawMessage
	// What names the value for a person: "gpu.deserved of queue
	// vision-h100", "the name of queue 0", "parent of project workspace",
	// "annotation krmplan/plan".
	What string
}

// Of is the test operations of st, in its order, each named. A
// queue's value is named by the queue's name as the step's own test of it
// gives it (every value test of a queue follows one), else by its index;
// a queue without a name (KRM derives its Queue's) by its KAI Queue name
// and node pool as the plan names it ("queue nlp-h100 (node pool h100)",
// tenancy.QueueName), when the step tests its node pool too.
func Of(st planner.Step) []Guard {
	names, pools := tested(st)
	queueName := func(queue int) string {
		name, named := names[queue]
		pool, pooled := pools[queue]
		switch {
		case named && name != "":
			return name
		case named && pooled:
			return tenancy.QueueName(st.Object.Name, "", pool) + " (node pool " + pool + ")"
		}
		return strconv.Itoa(queue)
	}
	var out []Guard
	seen := map[int]bool{}
	for _, op := range st.Ops {
		if op.Op != planner.OpTest {
			continue
		}
		g := Guard{Path: op.Path, Value: op.Value, What: op.Path}
		queue, f, err := tenancy.ParsePointer(op.Path)
		switch {
		case op.Path == planner.CreatedByPointer:
			g.What = "annotation " + planner.CreatedByAnnotation
		case err != nil:
		case f == tenancy.FieldQueueName:
			seen[queue] = true
			g.What = "the name of queue " + strconv.Itoa(queue)
			if names[queue] == "" {
				g.What = "the name of queue " + queueName(queue)
			}
		case queue == tenancy.NoQueue:
			g.What = f.String() + " of " + st.Object.Kind.Info().Word + " " + st.Object.Name
		case seen[queue]:
			g.What = f.String() + " of queue " + queueName(queue)
		default:
			g.What = f.String() + " of queue " + strconv.Itoa(queue)
		}
		out = append(out, g)
	}
	return out
}

// tested is the names and the node pools of st's queues as its tests
// give them, by index.
func tested(st planner.Step) (names, pools map[int]string) {
	names, pools = map[int]string{}, map[int]string{}
	for _, op := range st.Ops {
		queue, f, err := tenancy.ParsePointer(op.Path)
		var v string
		if op.Op != planner.OpTest || err != nil || json.Unmarshal(op.Value, &v) != nil {
			continue
		}
		switch f {
		case tenancy.FieldQueueName:
			names[queue] = v
		case tenancy.FieldQueueNodePool:
			pools[queue] = v
		}
	}
	return names, pools
}
