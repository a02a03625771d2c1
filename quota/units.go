package quota

// Resource is one of the three quota resources of a KRM queue.
type Resource string

// The resources of a queue's `resources` map, in the order KRM documents them.
const (
	GPU    Resource = "gpu"
	CPU    Resource = "cpu"
	Memory Resource = "memory"
)

// Resources lists GPU, CPU and Memory in their canonical order.
var Resources = []Resource{GPU, CPU, Memory}

// Amount prints v in r's unit for a message: "1 card", "0.02 cards",
// "500 millicores", "1000 MB", and "unlimited" for -1. A sum that contains
// an unlimited member is unlimited, so it is never printed as a number.
func Amount(r Resource, v Value) string {
	if v.IsUnlimited() {
		return "unlimited"
	}
	s := v.String()
	switch r {
	case GPU:
		if s == "1" {
			return "1 card"
		}
		return s + " cards"
	case CPU:
		if s == "1" {
			return "1 millicore"
		}
		return s + " millicores"
	case Memory:
		return s + " MB"
	}
	return s
}
