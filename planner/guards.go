package planner

import (
	"encoding/json"
	"strconv"
	"strings"

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

// Guards are the test operations of st, in its order, each named. A
// queue's value is named by the queue's name as the step's own test of it
// gives it (every value test of a queue follows one), else by its index.
func Guards(st Step) []Guard {
	var out []Guard
	names := map[int]string{}
	for _, op := range st.Ops {
		if op.Op != OpTest {
			continue
		}
		g := Guard{Path: op.Path, Value: op.Value, What: op.Path}
		queue, f, err := tenancy.ParsePointer(op.Path)
		switch {
		case op.Path == CreatedByPointer:
			g.What = "annotation " + CreatedByAnnotation
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

// TestOps is the JSON patch of st's tests alone: what a server dry run
// sends to learn whether the step's guards hold, changing nothing.
func TestOps(st Step) []Op {
	var out []Op
	for _, op := range st.Ops {
		if op.Op == OpTest {
			out = append(out, op)
		}
	}
	return out
}

// CreatedByAnnotation is the annotation the patch script gives every
// object it creates, its value the plan id: the rollback deletes an object
// only while it carries this plan's id, so an object of the same name that
// someone created after deleting the plan's is never deleted.
const CreatedByAnnotation = "krmplan/plan"

// CreatedByPointer is CreatedByAnnotation's JSON pointer ('/' is "~1").
var CreatedByPointer = "/metadata/annotations/" + strings.ReplaceAll(CreatedByAnnotation, "/", "~1")
