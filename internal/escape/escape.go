// Package escape makes text from input safe to show: every writer of
// krmplan's views, messages, scripts and annotations passes names, paths,
// refs and messages through Controls, so that a byte in a file or a name
// cannot move the terminal's cursor, recolour or hide text, end a line
// early (a fake "all checks passed" line), end a shell comment, or reorder
// what a reader sees.
package escape

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Controls returns s with every character that is not plain text written
// as a Go-style escape: \n and \r; \xHH for the other ASCII control
// characters (ESC is \x1b, DEL \x7f) and for a byte that is not UTF-8;
// \uHHHH for the C1 control characters (U+0080–U+009F, which some
// terminals read as ESC sequences), the line and paragraph separators
// U+2028 and U+2029, and Unicode's format characters (category Cf: the
// bidirectional overrides that reorder a line, zero-width characters, the
// byte-order mark). A tab is kept: it only moves the cursor right, and
// source lines are indented with it. Anything else, a backslash included,
// is kept as it is; a string with nothing to escape is returned unchanged.
func Controls(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafeRune(r):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// Has reports whether Controls would change s.
func Has(s string) bool { return firstUnsafe(s) >= 0 }

// firstUnsafe is the byte offset of the first character Controls escapes
// in s, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != '\t' && (c < 0x20 || c == 0x7f) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafeRune(r) {
			return i
		}
		i += n
	}
	return -1
}

// unsafeRune reports whether Controls escapes the character r.
func unsafeRune(r rune) bool {
	switch {
	case r == '\t':
		return false
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Lines is Controls of each line of s: the line breaks of a message that
// is several lines on purpose stay, and every other character Controls
// escapes is escaped.
func Lines(s string) string {
	if !Has(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Controls(l)
	}
	return strings.Join(lines, "\n")
}
