package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/krmplan/krmplan/internal/escape"
	"k8s.io/apimachinery/pkg/util/validation"
)

// This file is the only way input reaches the scripts. A script is
// krmplan's own words (the constants of patch.go, rollback.go and
// report.go) and input in one of four forms, each of which sh reads as
// data, never as code:
//
//   - a comment: one line, "# " and the text with every control character
//     escaped (escape.Controls), so no newline in a ref, a path, a context
//     or a message can end the comment;
//   - a quoted word: single quotes, in which sh reads every byte as itself
//     but the closing quote, and each ' written as '\''; text the script
//     prints for a person (shown) has its control characters escaped
//     first, as a comment's;
//   - a Kubernetes object name, validated as a DNS-1123 subdomain (lower
//     case letters, digits, '-' and '.'), which sh reads as one plain word;
//   - a here-document body after a quoted delimiter (<<'KRMPLAN_EOF'), in
//     which sh expands nothing, with a delimiter that no line of the body
//     equals.
//
// JSON (the patch operations, a new object's manifest) is written with
// every character outside ASCII as a \u escape, so the script holds no
// byte that a terminal could read as a control sequence.

// word is one word of a command line, already safe for sh: one of
// krmplan's constants, a quoted word or a validated name.
type word string

// shell is a script being written; depth is the indentation (tabs) of
// the command lines it writes.
type shell struct {
	b     bytes.Buffer
	depth int
}

// comment writes text as one comment line, every control character
// escaped.
func (w *shell) comment(text string) {
	w.b.WriteString("# " + escape.Controls(text) + "\n")
}

// blank writes an empty line.
func (w *shell) blank() { w.b.WriteString("\n") }

// code writes one of krmplan's own lines (a constant).
func (w *shell) code(line string) { w.b.WriteString(strings.Repeat("\t", w.depth) + line + "\n") }

// command writes one command line of words.
func (w *shell) command(ws ...word) {
	w.b.WriteString(strings.Repeat("\t", w.depth))
	w.words(ws)
	w.b.WriteByte('\n')
}

// continued writes one command: its first words on the first line, then
// per words on each line after a backslash-newline, one tab deeper (one
// report argument triple a line).
func (w *shell) continued(ws []word, first, per int) {
	w.b.WriteString(strings.Repeat("\t", w.depth))
	for n := min(first, len(ws)); len(ws) > n; n = min(per, len(ws)) {
		w.words(ws[:n])
		w.b.WriteString(" \\\n" + strings.Repeat("\t", w.depth+1))
		ws = ws[n:]
	}
	w.words(ws)
	w.b.WriteByte('\n')
}

// assign writes name=value, name one of krmplan's variables.
func (w *shell) assign(name string, value word) {
	w.b.WriteString(name + "=" + string(value) + "\n")
}

// function writes a one-line function: name() { words; }.
func (w *shell) function(name string, ws ...word) {
	w.b.WriteString(name + "() { ")
	w.words(ws)
	w.b.WriteString("; }\n")
}

func (w *shell) words(ws []word) {
	for i, x := range ws {
		if i > 0 {
			w.b.WriteByte(' ')
		}
		w.b.WriteString(string(x))
	}
}

// hereDoc writes a command whose standard input is body, a here-document
// after a quoted delimiter: KRMPLAN_EOF, with as many _ appended as it
// takes for no line of body to equal it. body is ASCII text.
func (w *shell) hereDoc(body []byte, cmd []word) {
	delim := "KRMPLAN_EOF"
	lines := strings.Split(string(body), "\n")
	for taken := true; taken; {
		taken = false
		for _, l := range lines {
			if l == delim {
				delim += "_"
				taken = true
				break
			}
		}
	}
	w.command(append(cmd, word("<<'"+delim+"'"))...)
	w.b.Write(body)
	w.b.WriteString("\n" + delim + "\n")
}

// quoted is s as one single-quoted word: sh reads every byte of it as
// itself.
func quoted(s string) word {
	return word("'" + strings.ReplaceAll(s, "'", `'\''`) + "'")
}

// shown is text for a person as one quoted word: its control characters
// escaped (escape.Controls), so that printing it moves no cursor and
// colours nothing.
func shown(s string) word { return quoted(escape.Controls(s)) }

// objectName is the name of a Kubernetes object as a plain word. The API
// server requires a custom resource's name to be a DNS-1123 subdomain, so
// any other name is refused (it cannot be the object in the cluster); a
// valid name holds only [a-z0-9.-] and needs no quoting.
func objectName(kind, name string) (word, error) {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", fmt.Errorf("%s %q is not a valid Kubernetes object name: %s", kind, name, strings.Join(errs, "; "))
	}
	return word(name), nil
}

// asciiJSON is the JSON value raw, compacted, with DEL and every character
// outside ASCII written as a \u escape (a byte that is not UTF-8 as
// \ufffd, as a JSON decoder reads it); JSON has no other control
// character unescaped. Outside its strings JSON is printable ASCII, so
// each such character is inside a string, where the escape means the
// same text.
func asciiJSON(raw []byte) ([]byte, error) {
	var c bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		return nil, err
	}
	b := c.Bytes()
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if b[i] < 0x7f {
			out = append(out, b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			out = appendU(appendU(out, r1), r2)
		} else {
			out = appendU(out, r)
		}
		i += n
	}
	return out, nil
}

// appendU appends the JSON escape \uHHHH of the UTF-16 unit u.
func appendU(b []byte, u rune) []byte {
	return fmt.Appendf(b, `\u%04x`, u)
}
