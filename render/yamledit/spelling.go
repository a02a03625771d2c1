package yamledit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/krmplan/krmplan/internal/kubeyaml"
	"go.yaml.in/yaml/v3"
)

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
		if !ok || kubeyaml.NumberAlike(n.String()) {
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

// checkTag refuses a change that puts a fraction under the explicit tag
// !!int (`deserved: !!int 1`, line is the value's): the splice keeps the
// tag and replaces the number after it, and kubectl (go-yaml v2) and
// yaml.v3 both refuse !!int 0.5. A whole number keeps the tag.
func checkTag(c Change, file string, line int, n *yaml.Node) error {
	if n.Tag != "!!int" || n.Style&yaml.TaggedStyle == 0 {
		return nil
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(string(c.Value)))
	if !ok || r.IsInt() {
		return nil
	}
	return &Error{File: file, Line: line, Msg: fmt.Sprintf("%s is written with the tag !!int, which holds only whole numbers, and the plan sets %s: remove the tag, or plan a whole number",
		c.What, strings.TrimSpace(string(c.Value)))}
}
