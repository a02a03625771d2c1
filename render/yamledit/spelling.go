package yamledit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cockroachdb/apd/v3"
	"github.com/krmplan/krmplan/internal/kubeyaml"
)

// bothReadAs reports whether the plain scalar text is read as the string
// text by kubectl (sigs.k8s.io/yaml, YAML 1.1) and by YAML 1.2 tools alike:
// "on", "y", "010" or "1_000" written plainly are a boolean or a number to
// one of them, so a splice quotes them.
func bothReadAs(text string) bool {
	s := kubeyaml.Scalar{Plain: true, Value: text}
	k, y := kubeyaml.Kubectl(s), kubeyaml.YAML12(s)
	return k.Err == "" && k.Kind == kubeyaml.String && k.Text == text && kubeyaml.Same(k, y)
}

// checkSpellings refuses a change whose numbers no spelling gives to
// kubectl and YAML 1.2 alike: kubectl sends a number with a point or an
// exponent as a float64, so 0.30000000000000001 would reach the cluster
// as 0.3 while the file says otherwise.
func checkSpellings(c Change) error {
	dec := json.NewDecoder(bytes.NewReader(c.Value))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or not JSON: fromJSON reports that
		}
		n, ok := tok.(json.Number)
		if !ok || numberSafe(n.String()) {
			continue
		}
		k := kubeyaml.Kubectl(kubeyaml.Scalar{Plain: true, Value: n.String()})
		file, line := c.File, 0
		switch {
		case c.Pos != nil && c.Origin != nil:
			file, line = c.Origin.File, c.Pos.Line
		case c.Origin != nil:
			file, line = c.Origin.File, c.Origin.Line
		}
		return &Error{File: file, Line: line, Msg: fmt.Sprintf("%s: %s cannot be written so that kubectl and YAML 1.2 read it alike: kubectl sends it as %s (a float64 keeps 15 to 17 significant digits); plan a number with at most 15 significant digits",
			c.What, n, k.Text)}
	}
}

// numberSafe reports whether the number text, written plainly, is that
// very number to kubectl and to YAML 1.2.
func numberSafe(text string) bool {
	if kubeyaml.PlainDecimal(text) {
		return true
	}
	s := kubeyaml.Scalar{Plain: true, Value: text}
	k, y := kubeyaml.Kubectl(s), kubeyaml.YAML12(s)
	number := func(v kubeyaml.Value) bool {
		return v.Err == "" && (v.Kind == kubeyaml.Int || v.Kind == kubeyaml.Float)
	}
	return number(k) && number(y) && sameDecimal(k.Text, text) && sameDecimal(y.Text, text)
}

func sameDecimal(a, b string) bool {
	var x, y apd.Decimal
	if _, _, err := x.SetString(a); err != nil {
		return false
	}
	if _, _, err := y.SetString(b); err != nil {
		return false
	}
	return x.Form == apd.Finite && y.Form == apd.Finite && x.Cmp(&y) == 0
}
