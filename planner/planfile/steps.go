package planfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
)

// diffSteps describes the first difference between the steps a file holds
// and the steps the changes make, "" when there is none.
func diffSteps(got, want []planner.Step) string {
	for i := range max(len(got), len(want)) {
		if i >= len(got) {
			return fmt.Sprintf("%s is missing", stepName(i, want[i]))
		}
		if i >= len(want) {
			return fmt.Sprintf("%s is not one the changes make", stepName(i, got[i]))
		}
		if d := diffStep(got[i], want[i]); d != "" {
			return stepName(i, got[i]) + ": " + d
		}
	}
	return ""
}

// stepName is "step 1 (patch Project a)".
func stepName(i int, st planner.Step) string {
	return fmt.Sprintf("step %d (%s %s %s)", i+1, st.Action, st.Object.Kind, st.Object.Name)
}

// diffStep describes how a step of the file differs from the step the
// changes make, "" when it does not.
func diffStep(got, want planner.Step) string {
	switch {
	case got.Action != want.Action || got.Object != want.Object:
		return fmt.Sprintf("the changes make %s %s %s here", want.Action, want.Object.Kind, want.Object.Name)
	case got.Phase != want.Phase:
		return fmt.Sprintf("it is in phase %q, its changes are in phase %q", shown(string(got.Phase)), want.Phase)
	case !slices.Equal(got.Changes, want.Changes):
		return fmt.Sprintf("it applies changes %s, the changes make it apply %s", indices(got.Changes), indices(want.Changes))
	}
	if gm, wm, same := compared(got.Manifest, want.Manifest); !same {
		return fmt.Sprintf("the manifest is %s, the changes give %s", shown(gm), shown(wm))
	}
	for k := range max(len(got.Ops), len(want.Ops)) {
		switch {
		case k >= len(got.Ops):
			return fmt.Sprintf("op %d (%s %s) is missing", k+1, want.Ops[k].Op, want.Ops[k].Path)
		case k >= len(want.Ops):
			return fmt.Sprintf("op %d (%s %s) is not one of the plan's changes", k+1, shown(got.Ops[k].Op), shown(got.Ops[k].Path))
		}
		g, w := got.Ops[k], want.Ops[k]
		if gv, wv, same := compared(g.Value, w.Value); g.Op != w.Op || g.Path != w.Path || !same {
			return fmt.Sprintf("op %d is %s %s %s, the changes give %s %s %s", k+1, shown(g.Op), shown(g.Path), shown(gv), w.Op, w.Path, shown(wv))
		}
	}
	return ""
}

// maxIndices is the most indices of a step's changes a message lists.
const maxIndices = 10

// indices is a step's changes for a message, the first maxIndices of
// them: "[0, 2]", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 999990 more]" (an
// edited file's step may list millions).
func indices(ix []int) string { return "[" + words.List(ix, maxIndices) + "]" }

// sameJSON compares two JSON texts by their compact form (numbers and
// escapes as written, so 2 and 2.0 differ, as they do in a plan).
func sameJSON(a, b json.RawMessage) bool {
	_, _, same := compared(a, b)
	return same
}

// compared is a and b in their compact form (compact) and whether they
// are the same JSON (sameJSON): a message about two values that differ
// shows the forms they were compared by, each made once (an op's value in
// an edited file may be tens of megabytes). An empty text is "", which no
// other text's compact form is.
func compared(a, b json.RawMessage) (ca, cb string, same bool) {
	ca, cb = compact(a), compact(b)
	return ca, cb, ca == cb
}

// maxShown is the most characters of one value a message shows.
const maxShown = 200

// shown is s for a message, cut to maxShown characters: an edited file
// may hold a value of megabytes.
func shown(s string) string { return clip(s, maxShown) }

// clip is s cut to n characters, saying how long it was.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// The first n runes, as []rune(s)[:n] reads them (a byte that is not
	// UTF-8 is U+FFFD), without making runes of the whole of s: an op's
	// value in a hostile plan may be tens of megabytes.
	var head strings.Builder
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		head.WriteRune(r)
		i += size
	}
	if i == len(s) {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", head.String(), len(s))
}

// compact is b without insignificant space, or b as it is when it is not
// JSON.
func compact(b json.RawMessage) string {
	var c bytes.Buffer
	if json.Compact(&c, b) != nil {
		return string(b)
	}
	return c.String()
}
