// Package sortby sorts lists of large structs stably, moving each element
// once.
package sortby

import (
	"cmp"
	"slices"
	"strings"
)

// Key sorts list by the key of each element (strings.Compare), stably.
func Key[E any](list []E, key func(*E) string) {
	Stable(list, func(a, b *E) int { return strings.Compare(key(a), key(b)) })
}

// Stable sorts list in place as slices.SortStableFunc does (equal elements
// keep their order), but sorts their indexes and then moves each element
// once: a project is a struct of hundreds of bytes, which a sort of the
// elements themselves moves many times (13 ms rather than 5 for 10,000
// projects, departments, nodes, Queues and namespaces).
func Stable[E any](list []E, compare func(a, b *E) int) {
	sorted := true // as a state read back, or a tenancy written in order, is
	for i := 1; i < len(list) && sorted; i++ {
		sorted = compare(&list[i-1], &list[i]) <= 0
	}
	if sorted {
		return
	}
	idx := make([]int, len(list))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return cmp.Or(compare(&list[i], &list[j]), cmp.Compare(i, j)) })
	moved := make([]E, len(list))
	for i, j := range idx {
		moved[i] = list[j]
	}
	copy(list, moved)
}
