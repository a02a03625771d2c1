package planner

import "strings"

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
