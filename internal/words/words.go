// Package words holds the small phrases that every writer of krmplan's
// messages and views shares, so that they read alike everywhere.
package words

import (
	"fmt"
	"strings"
)

// Count is n and the noun, in the plural unless n is 1: "1 step",
// "0 steps", "3 steps". The plural adds an s (every noun krmplan counts
// takes one).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ShortID is the first 12 characters of a commit or plan id (all of a
// shorter one), as krmplan names a commit or a plan in a line of text.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// And joins xs as a sentence lists them: "a", "a and b", "a, b and c".
func And(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// List joins xs, each as fmt.Sprint writes it (names, numbers), with
// ", ", at most max of them, then "and N more": "a, b and 2 more". Only
// the max listed are formatted, so that a hostile list of millions costs
// a message of max elements.
func List[T any](xs []T, max int) string {
	parts := make([]string, min(len(xs), max))
	for i := range parts {
		parts[i] = fmt.Sprint(xs[i])
	}
	if len(xs) <= max {
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(parts, ", "), len(xs)-max)
}
