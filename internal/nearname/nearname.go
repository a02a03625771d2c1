// Package nearname finds the name a person probably meant: the one nearest
// to a misspelt name among those that exist (a project, a department, a
// node pool, a kind, a key), for the "did you mean" of a message. The
// distance is Levenshtein's, from github.com/agext/levenshtein (the library
// HCL's own suggestions use), counted in characters (runes).
package nearname

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agext/levenshtein"
)

// Distance is the Levenshtein distance between a and b: the fewest
// characters inserted, deleted or replaced to turn one into the other.
func Distance(a, b string) int { return levenshtein.Distance(a, b, nil) }

// Nearest returns the candidate nearest to name, ignoring case, or "" when
// none is near: a candidate is near when it differs from name in case only,
// or by at most 2 characters and fewer than half of name's characters (so
// "a" never suggests "b"). A name of 4 characters or fewer is near only
// what adds or drops characters ("h10" is near "h100"): the short names of
// node pools are GPU classes, where one character replaced is another card
// ("a100" is not a misspelt "h100"). Of two equally near candidates the
// first wins. A candidate equal to name is not a suggestion.
func Nearest(name string, candidates []string) string {
	lower := strings.ToLower(name)
	n := utf8.RuneCountInString(name)
	limit := min(2, (n-1)/2)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := Distance(lower, strings.ToLower(c))
		if d > 0 && n <= 4 && abs(utf8.RuneCountInString(c)-n) != d {
			continue // a replaced character in a short name
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// DidYouMean is `did you mean "x"?` for the candidate x nearest to name
// (Nearest), or "" when none is near.
func DidYouMean(name string, candidates []string) string {
	if near := Nearest(name, candidates); near != "" {
		return fmt.Sprintf("did you mean %q?", near)
	}
	return ""
}
