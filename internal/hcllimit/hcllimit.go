// Package hcllimit holds krmplan's HCL files (desired.hcl, its --var-file
// and --var values, the repository profile .krmplan.hcl) to limits, so
// that no input crashes krmplan or runs without end:
//
//   - Check, before a parser sees a source, for what makes hashicorp/hcl's
//     parser itself fail: nesting deep enough to overflow Go's stack
//     (100,000 parentheses crash the process, beyond any recover), more
//     tokens than its memory allows, and number literals that quota.Parse
//     refuses (one of millions of digits takes seconds to read);
//   - an Evaluator, while the expressions are evaluated: every value is
//     held to MaxElements, MaxBytes and MaxDepth and every number to
//     quota.Parse's range, division by zero is an error, and the work is
//     counted up to MaxWork, past which the evaluation ends.
//
// Check works on hclsyntax's own tokens, so what it counts is what the
// parser will see: comments and strings cannot hide a bracket from it.
// The README's "Limits" section lists every limit.
package hcllimit

import (
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/krmplan/krmplan/quota"
)

// MaxDepth is how deep an HCL source may nest. Each open bracket, brace,
// parenthesis, quote, template sequence ("${", "%{") and template
// directive (if, for) is a level, and so is each operator (+, ==, ?, !,
// an index "[", an attribute ".") chained in one expression, because the
// parser and the evaluator recurse once per operator too: `a + b + c` is
// 2 levels, `x[0][1]` 2 (plus the brackets themselves). A list element, a
// function argument or an attribute starts a new chain.
//
// 256 is far beyond any quota file (the demo's deepest is 5) and keeps the
// parser's and the evaluator's recursion within a few hundred kilobytes
// of stack.
const MaxDepth = 256

// MaxTokens is how many tokens (words, numbers, symbols, line breaks) a
// source may hold, or 2 per 5 bytes in a source of more than 3.75 MB:
// hcl's lexer and parser hold about 500 bytes of memory per token, so
// 4 MB of commas would take 2 GB, while a real desired.hcl has one token
// per 3 to 4 bytes (krmplan export of 50,000 projects: 29 MB, 7 million
// tokens; the demo generator's desired file for 50,000 projects: one per
// 3 bytes).
const MaxTokens = 1_500_000

// maxTokens is the token limit of a source of n bytes.
func maxTokens(n int) int { return max(MaxTokens, n/5*2) }

// DepthSummary, NumberSummary and TokensSummary are the summaries of
// Check's diagnostics.
const (
	DepthSummary  = "Nesting too deep"
	NumberSummary = "Number out of range"
	TokensSummary = "File too dense"
)

// Check lexes src (an HCL file, or an expression: they lex alike) and
// reports what breaks a limit:
//
//   - nesting deeper than MaxDepth: one diagnostic for the file, naming
//     its deepest level, with the token where the nesting first passes
//     MaxDepth as Subject;
//   - more tokens than MaxTokens (or 2 per 5 bytes): one diagnostic,
//     before anything is lexed;
//   - each number literal that quota.Parse refuses (10^18 or more, more
//     than 18 digits after the point, more than quota.MaxLength
//     characters), naming the literal: krmplan reads every number of its
//     HCL files as a quota number, and it never rounds one.
//
// parse is false when the source must not be parsed at all (too many
// tokens, too deep, or a literal too long to read); with parse true the other diagnostics are
// still errors, and a caller that goes on to parse must not use the
// literals they name (see BadNumber).
func Check(src []byte, filename string, start hcl.Pos) (diags hcl.Diagnostics, parse bool) {
	if n, limit := estimateTokens(src), maxTokens(len(src)); n > limit {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  TokensSummary,
			Detail: fmt.Sprintf("The source holds about %d tokens (words, numbers, symbols and line breaks) in %d bytes; krmplan reads at most %d, "+
				"or 2 per 5 bytes in a larger file (the HCL parser needs about 500 bytes of memory for each).", n, len(src), limit),
			Subject: &hcl.Range{Filename: filename, Start: start, End: start},
		}}, false
	}
	tokens, _ := hclsyntax.LexConfig(src, filename, start)
	s := scanner{}
	for i, tok := range tokens {
		if tok.Type == hclsyntax.TokenNumberLit {
			if d := numberDiagnostic(tok); d != nil {
				diags = append(diags, d)
				if d.Extra == tooLong {
					s.unreadable = true
				}
			}
		}
		s.token(tokens, i)
	}
	parse = !s.unreadable
	if s.max > MaxDepth {
		parse = false
		diags = append(hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  DepthSummary,
			Detail: fmt.Sprintf("The expression nests %d levels deep; krmplan allows %d. Each bracket, brace, parenthesis, quote, "+
				"template sequence and operator chained in one expression is a level; this is where the nesting passes %d.",
				s.max, MaxDepth, MaxDepth),
			Subject: s.over.Ptr(),
		}}, diags...)
	}
	return diags, parse
}

// BadNumber reports whether quota.Parse refuses a number literal's text:
// Check has reported it, and it must not be used.
func BadNumber(text string) bool {
	_, err := quota.Parse(text)
	return err != nil
}

// tooLong marks (in Extra) the diagnostic of a literal too long to read.
var tooLong = &struct{ tooLong bool }{true}

func numberDiagnostic(tok hclsyntax.Token) *hcl.Diagnostic {
	text := string(tok.Bytes)
	_, err := quota.Parse(text)
	re, ok := err.(*quota.RangeError)
	if !ok {
		return nil // a literal the lexer took is a number; anything else is the parser's to report
	}
	d := &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  NumberSummary,
		Detail:   fmt.Sprintf("The number %s %s.", shortText(text), re.Rule()),
		Subject:  tok.Range.Ptr(),
	}
	switch {
	case re.TooLong:
		d.Extra = tooLong
	case re.TooPrecise:
		d.Detail += " krmplan does not round a number: write it with at most 18 digits after the point."
	}
	return d
}

// shortText is a literal as written, cut to its first 40 characters when
// it is longer than quota.MaxLength.
func shortText(text string) string {
	if len(text) > quota.MaxLength {
		return text[:40] + "…"
	}
	return text
}

// frame is one open bracket (or the file itself) and the operators
// chained in the expression that is being written inside it.
type frame struct {
	// newlines is set where a newline ends an expression: in the file,
	// a block body or an object.
	newlines bool
	chain    int // operators in the current expression
	// directive marks the level of a template if or for, which ends at
	// its endif or endfor, not at a token.
	directive bool
}

// scanner follows the nesting of a token stream.
type scanner struct {
	stack      []frame
	depth      int // levels open: frames and chained operators
	max        int
	over       hcl.Range // where depth first passed MaxDepth
	unreadable bool
}

func (s *scanner) top() *frame { return &s.stack[len(s.stack)-1] }

func (s *scanner) level(tok hclsyntax.Token) {
	s.depth++
	if s.depth > s.max {
		s.max = s.depth
	}
	if s.depth == MaxDepth+1 {
		s.over = tok.Range
	}
}

func (s *scanner) push(tok hclsyntax.Token, newlines, directive bool) {
	s.stack = append(s.stack, frame{newlines: newlines, directive: directive})
	s.level(tok)
}

// pop closes the innermost frame (when there is one beside the file's).
func (s *scanner) pop() {
	if len(s.stack) <= 1 {
		return
	}
	s.depth -= 1 + s.top().chain
	s.stack = s.stack[:len(s.stack)-1]
}

// endExpression ends the operator chain of the innermost frame.
func (s *scanner) endExpression() {
	f := s.top()
	s.depth -= f.chain
	f.chain = 0
}

func (s *scanner) operator(tok hclsyntax.Token) {
	s.top().chain++
	s.level(tok)
}

// token follows tokens[i].
func (s *scanner) token(tokens hclsyntax.Tokens, i int) {
	if s.stack == nil {
		s.stack = []frame{{newlines: true}}
	}
	tok := tokens[i]
	switch tok.Type {
	case hclsyntax.TokenOBrace:
		s.push(tok, true, false)
	case hclsyntax.TokenOBrack:
		if i > 0 && endsValue(tokens[i-1].Type) {
			s.operator(tok) // an index, chained on what precedes it
		}
		s.push(tok, false, false)
	case hclsyntax.TokenOParen:
		s.push(tok, false, false)
	case hclsyntax.TokenOQuote:
		s.push(tok, false, false)
	case hclsyntax.TokenOHeredoc:
		s.push(tok, false, false)
	case hclsyntax.TokenTemplateInterp:
		s.push(tok, false, false)
	case hclsyntax.TokenTemplateControl:
		s.directive(tokens, i)
	case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCQuote,
		hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
		s.closeFrame(tok.Type)
	case hclsyntax.TokenComma:
		s.endExpression()
	case hclsyntax.TokenNewline:
		if s.top().newlines {
			s.endExpression()
		}
	case hclsyntax.TokenComment:
		// A line comment takes the newline that ends it.
		if b := tok.Bytes; len(b) > 0 && b[len(b)-1] == '\n' && s.top().newlines {
			s.endExpression()
		}
	case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
		hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq,
		hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq, hclsyntax.TokenAnd, hclsyntax.TokenOr,
		hclsyntax.TokenBang, hclsyntax.TokenQuestion, hclsyntax.TokenDot:
		s.operator(tok)
	}
}

// closeFrame pops the innermost frame for a closing token of type closer
// (a mismatched one is the parser's to report), after the directive
// frames above it, which an unterminated if or for leaves.
func (s *scanner) closeFrame(closer hclsyntax.TokenType) {
	for len(s.stack) > 1 && s.top().directive && closer != hclsyntax.TokenTemplateSeqEnd {
		s.pop()
	}
	s.pop()
}

// directive follows a "%{": an if or a for opens a level until its endif
// or endfor; the sequence itself is a level until its "}".
func (s *scanner) directive(tokens hclsyntax.Tokens, i int) {
	tok := tokens[i]
	word := ""
	if i+1 < len(tokens) && tokens[i+1].Type == hclsyntax.TokenIdent {
		word = string(tokens[i+1].Bytes)
	}
	switch word {
	case "if", "for":
		s.push(tok, false, true)
	case "endif", "endfor":
		if s.top().directive {
			s.pop()
		}
	}
	s.push(tok, false, false)
}

// endsValue reports whether a token of type t can end an operand, so
// that a "[" after it is an index rather than a new list.
func endsValue(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenIdent, hclsyntax.TokenNumberLit, hclsyntax.TokenCBrack, hclsyntax.TokenCParen,
		hclsyntax.TokenCBrace, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc:
		return true
	}
	return false
}

// estimateTokens counts, without lexing, at least as many units as
// hclsyntax makes tokens of src (give or take the few tokens of blank
// string literals): each newline and each symbol byte, each run of letters
// and digits, each byte that is not UTF-8. Symbols inside strings and
// comments count too, so it overestimates those.
func estimateTokens(src []byte) int {
	n := 0
	word := false
	for i := 0; i < len(src); {
		c := src[i]
		size := 1
		isWord := false
		switch {
		case c >= 0x80:
			r, sz := utf8.DecodeRune(src[i:])
			size = sz
			isWord = r != utf8.RuneError || sz > 1
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			isWord = true
		case c == ' ' || c == '\t' || c == '\r':
			word = false
			i++
			continue
		}
		if !isWord || !word {
			n++
		}
		word = isWord
		i += size
	}
	return n
}
