package words

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 steps"}, {1, "1 step"}, {2, "2 steps"}, {1000, "1000 steps"}} {
		if got := Count(tc.n, "step"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestShortID(t *testing.T) {
	for in, want := range map[string]string{"": "", "abc": "abc", "0123456789ab": "0123456789ab", "0123456789abcdef": "0123456789ab"} {
		if got := ShortID(in); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestList(t *testing.T) {
	for _, c := range []struct {
		names []string
		max   int
		want  string
	}{
		{nil, 2, ""},
		{[]string{"a", "b"}, 2, "a, b"},
		{[]string{"a", "b", "c", "d"}, 2, "a, b and 2 more"},
	} {
		if got := List(c.names, c.max); got != c.want {
			t.Errorf("List(%q, %d) = %q, want %q", c.names, c.max, got, c.want)
		}
	}
	if got, want := List([]int{7, 0, 3}, 2), "7, 0 and 1 more"; got != want {
		t.Errorf("List of numbers = %q, want %q", got, want)
	}
}

func TestAnd(t *testing.T) {
	for want, xs := range map[string][]string{"": nil, "a": {"a"}, "a and b": {"a", "b"}, "a, b and c": {"a", "b", "c"}} {
		if got := And(xs); got != want {
			t.Errorf("And(%q) = %q, want %q", xs, got, want)
		}
	}
}
