package hcllimit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// depthOf is the deepest level Check finds in src (0 when it stays
// within MaxDepth: Check only reports a depth beyond it).
func depthOf(src string) int {
	tokens, _ := hclsyntax.LexConfig([]byte(src), "t.hcl", hcl.InitialPos)
	s := scanner{}
	for i := range tokens {
		s.token(tokens, i)
	}
	return s.max
}

// The levels Check counts, on small sources.
func TestDepth(t *testing.T) {
	for src, want := range map[string]int{
		"a = 1\n":                        0,
		"a = 1 + 2 + 3\n":                2,
		"a = (1)\n":                      1,
		"a = [[1], [2, 3]]\n":            2,
		"a = x[0][1]\n":                  3, // two chained indexes, and the bracket
		"a = local.a.b\n":                2,
		"a = -1\nb = -2\nc = -3\n":       1, // a newline ends each chain
		"a = [-1, -2, -3]\n":             2,
		"a = 1 + 2 # c\nb = 3 + 4 # c\n": 1,
		"b { c { d = 1 } }\n":            2,
		"a = \"${x}\"\n":                 2,
		"a = \"%{if x}${y}%{endif}\"\n":  3, // quote, if, ${
		"a = true ? 1 : false ? 2 : 3\n": 2,
		"a = f(1 + 2, 3 + 4)\n":          2,
		"a = (1 +\n 2 +\n 3)\n":          3, // newlines inside parentheses end nothing
	} {
		if got := depthOf(src); got != want {
			t.Errorf("%q: depth %d, want %d", src, got, want)
		}
	}
}

// Each construct the parser recurses on, nested 100,000 deep, is refused
// before it is parsed, with the deepest level and where it passes the
// limit.
func TestTooDeep(t *testing.T) {
	const n = 100000
	for name, tc := range map[string]struct {
		src   string
		depth int
	}{
		"parentheses": {"a = " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n", n},
		"lists":       {"a = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n", n},
		"blocks":      {strings.Repeat("a {", n) + strings.Repeat("}", n), n},
		"unary":       {"a = " + strings.Repeat("-", n) + "1\n", n},
		"sum":         {"a = 1" + strings.Repeat(" + 1", n) + "\n", n},
		"ternary":     {"a = " + strings.Repeat("true ? ", n) + "1" + strings.Repeat(" : 2", n) + "\n", n},
		"indexes":     {"a = x" + strings.Repeat("[0]", n) + "\n", n + 1},
		"templates":   {"a = " + strings.Repeat(`"${`, n) + "1" + strings.Repeat(`}"`, n) + "\n", 2 * n},
		"unclosed":    {"a = " + strings.Repeat("(", n), n},
	} {
		diags, parse := Check([]byte(tc.src), "t.hcl", hcl.InitialPos)
		if parse || len(diags) != 1 {
			t.Errorf("%s: parse %v, diagnostics %v", name, parse, diags)
			continue
		}
		d := diags[0]
		want := fmt.Sprintf("The expression nests %d levels deep; krmplan allows 256. Each bracket, brace, parenthesis, quote, "+
			"template sequence and operator chained in one expression is a level; this is where the nesting passes 256.", tc.depth)
		if d.Summary != DepthSummary || d.Detail != want {
			t.Errorf("%s: %s: %s\nwant %s", name, d.Summary, d.Detail, want)
		}
		if d.Subject == nil || d.Subject.Start.Byte <= 0 {
			t.Errorf("%s: subject %v", name, d.Subject)
		}
	}
	if diags, parse := Check([]byte("a = "+strings.Repeat("(", MaxDepth)+"1"+strings.Repeat(")", MaxDepth)), "t.hcl", hcl.InitialPos); !parse || len(diags) != 0 {
		t.Errorf("%d levels: parse %v, %v", MaxDepth, parse, diags)
	}
}

// Number literals are read as quota.Parse reads them: an error names the
// literal, and none is rounded.
func TestNumbers(t *testing.T) {
	src := "a = 1e3000000\nb = 0.10000000000000000000000000000000000001\nc = " + strings.Repeat("1", 3000000) + "\nd = 1e17 + 0.5\n"
	diags, parse := Check([]byte(src), "t.hcl", hcl.InitialPos)
	if parse {
		t.Error("a literal of 3,000,000 digits may be parsed")
	}
	want := []string{
		"t.hcl:1,5-14: Number out of range; The number 1e3000000 is too large: quota numbers must be below 10^18 in magnitude.",
		"t.hcl:2,5-45: Number out of range; The number 0.10000000000000000000000000000000000001 has more than 18 digits after the decimal point: " +
			"quota numbers are exact decimals with at most 18. krmplan does not round a number: write it with at most 18 digits after the point.",
		"t.hcl:3,5-3000005: Number out of range; The number 1111111111111111111111111111111111111111… is 3000000 characters long: quota numbers are written in at most 100.",
	}
	if len(diags) != len(want) {
		t.Fatalf("diagnostics %v", diags)
	}
	for i, d := range diags {
		if d.Error() != want[i] {
			t.Errorf("got  %s\nwant %s", d.Error(), want[i])
		}
	}
	if diags, parse := Check([]byte("a = 1e3000000\n"), "t.hcl", hcl.InitialPos); !parse || len(diags) != 1 {
		t.Errorf("a short literal out of range stops the parse: %v %v", parse, diags)
	}
	if !BadNumber("1e18") || BadNumber("999999999999999999") {
		t.Error("BadNumber")
	}
}

// A source denser than 2 tokens per 5 bytes (beyond MaxTokens) is refused
// before it is lexed, and the estimate is never below hclsyntax's count
// on real files.
func TestTokens(t *testing.T) {
	src := "a = [" + strings.Repeat("1,", 2_000_000) + "]\n"
	diags, parse := Check([]byte(src), "t.hcl", hcl.InitialPos)
	want := "t.hcl:1,1-1: File too dense; The source holds about 4000005 tokens (words, numbers, symbols and line breaks) in 4000007 bytes; " +
		"krmplan reads at most 1600002, or 2 per 5 bytes in a larger file (the HCL parser needs about 500 bytes of memory for each)."
	if parse || len(diags) != 1 || diags[0].Error() != want {
		t.Errorf("parse %v, %v\nwant %s", parse, diags, want)
	}
	for _, src := range []string{
		"a = 1\n", "b { c = \"x y\" }\n", "# comment\nd = [1, 2.5, -3]\n", "e = <<EOT\nline ${x}\nEOT\n",
		"f = \"%{if a}b%{endif}\"\n", "g = local.x[0].y\n", "h = 1e3 + 0.5\n", "i = \"né\"\n", "j = {a = 1, \"b\" = 2}\n",
	} {
		tokens, _ := hclsyntax.LexConfig([]byte(src), "t.hcl", hcl.InitialPos)
		if est := estimateTokens([]byte(src)); est < len(tokens)-1 { // the EOF token has no byte
			t.Errorf("%q: estimate %d, %d tokens", src, est, len(tokens))
		}
	}
}
