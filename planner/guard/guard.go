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
// gives it (every value test of a queue follows one), else by its index.
func Of(st planner.Step) []Guard {
	var out []Guard
	names := map[int]string{}
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
			var name string
			if json.Unmarshal(op.Value, &name) == nil {
				names[queue] = name
			}
			g.What = "the name of queue " + strconv.Itoa(queue)
		case queue == tenancy.NoQueue:
			g.What = f.String() + " of " + st.Object.Kind.Info().Word + " " + st.Object.Name
		case names[queue] != "":
			g.What = f.String() + " of queue " + names[queue]
		default:
			g.What = f.String() + " of queue " + strconv.Itoa(queue)
		}
		out = append(out, g)
	}
	return out
}
