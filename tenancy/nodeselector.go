package tenancy

import "strconv"

// SelectsNode reports whether a node with labels matches a node selector
// (a ManagedNodesConfig's inclusion criteria): at least one term whose
// expressions all match (Kubernetes' semantics; a term without expressions
// matches nothing).
func SelectsNode(terms []NodeSelectorTerm, labels map[string]string) bool {
	for _, t := range terms {
		if len(t.MatchExpressions) == 0 {
			continue
		}
		all := true
		for _, e := range t.MatchExpressions {
			if !matchesRequirement(e, labels) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// matchesRequirement is one expression of a term, on a node's labels.
func matchesRequirement(e NodeSelectorRequirement, labels map[string]string) bool {
	v, has := labels[e.Key]
	in := func() bool {
		for _, x := range e.Values {
			if x == v {
				return true
			}
		}
		return false
	}
	switch e.Operator {
	case "In":
		return has && in()
	case "NotIn":
		return !has || !in()
	case "Exists":
		return has
	case "DoesNotExist":
		return !has
	case "Gt", "Lt":
		if !has || len(e.Values) != 1 {
			return false
		}
		a, err1 := strconv.ParseInt(v, 10, 64)
		b, err2 := strconv.ParseInt(e.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return (e.Operator == "Gt" && a > b) || (e.Operator == "Lt" && a < b)
	}
	return false
}
