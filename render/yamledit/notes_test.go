package yamledit

import "testing"

// namesWord finds a project's name as a name, not inside a longer one: a
// derived queue name and a sentence's end count, another name does not.
func TestNamesWord(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"# nlp", true},
		{"# KRM names it nlp-h100", true},
		{"# the nlp team.", true},
		{"# (nlp)", true},
		{`# was "nlp"`, true},
		{"# nlp2", false},
		{"# team-nlp", false},
		{"# xnlp and nlpx", false},
		{"# my_nlp", false},
		{"# nlp_x, then nlp", true},
		{"# NLP", false},
		{"# n", false},
	} {
		if got := namesWord(c.s, "nlp"); got != c.want {
			t.Errorf("namesWord(%q, nlp) = %v, want %v", c.s, got, c.want)
		}
	}
}
