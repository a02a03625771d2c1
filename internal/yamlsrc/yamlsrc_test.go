package yamlsrc

import (
	"reflect"
	"testing"
)

func TestLineIndexOffset(t *testing.T) {
	src := []byte("\ufeffa: é\nb: 1\r\nc: «x» 2\n")
	li := NewLineIndex(src)
	for _, tc := range []struct{ line, col, want int }{
		{1, 1, 3}, {1, 4, 6}, {2, 4, 12}, {3, 8, 24}, {9, 1, -1},
	} {
		if got := li.Offset(tc.line, tc.col); got != tc.want {
			t.Errorf("Offset(%d, %d) = %d, want %d", tc.line, tc.col, got, tc.want)
		}
	}
}

// The line starts are every offset after a newline, and 0: for an empty
// source, one without a final newline, one of newlines only.
func TestLineIndexStarts(t *testing.T) {
	for src, want := range map[string][]int{
		"":          {0},
		"a":         {0},
		"a\n":       {0, 2},
		"\n\n\n":    {0, 1, 2, 3},
		"ab\ncd\ne": {0, 3, 6},
	} {
		li := NewLineIndex([]byte(src))
		if !reflect.DeepEqual(li.starts, want) || cap(li.starts) != len(want) {
			t.Errorf("%q: starts %v (capacity %d), want %v", src, li.starts, cap(li.starts), want)
		}
	}
}

// TestDocumentMarkers: every "---" line after the first, not "----", not
// "--- " inside a line, and a marker followed by text or a CR.
func TestDocumentMarkers(t *testing.T) {
	src := []byte("---\na: 1\n---\nb: |\n  ---\n----\n--- # c\n---\r\nx: --- y\n---")
	got := DocumentMarkers(src)
	want := []int{9, 29, 37, 51}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := DocumentMarkers([]byte("a: 1\n")); len(got) != 0 {
		t.Errorf("no marker: got %v", got)
	}
}
