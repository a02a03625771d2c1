package snapshot

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/kubeyaml"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot/krmschema"
	"go.yaml.in/yaml/v3"
)

// scalar checks one scalar against its schema. The value must be what
// kubectl can send (kubeyaml.Kubectl), of the schema's type, and read the
// same by YAML 1.2 tools (kubeyaml.YAML12): a spelling the two read
// differently is refused with both readings and the fix. A null is the
// field left out (the API server drops it) and is the typed reader's
// business.
func (c *docCheck) scalar(n *yaml.Node, s *krmschema.Field) error {
	start := c.start(n)
	if n.Style == 0 && start < 0 {
		// Plain and untagged: a word is a string, a plain decimal a number,
		// to kubectl and to YAML 1.2 alike.
		switch {
		case s.Type == krmschema.TypeAny,
			(s.Type == krmschema.TypeString || s.Type == krmschema.TypeIntOrString) && kubeyaml.PlainWord(n.Value),
			s.Type == krmschema.TypeNumber && kubeyaml.PlainDecimal(n.Value):
			return nil
		}
	}
	sc := kubeyaml.ScalarOf(n, c.lines.Src(), start)
	k := kubeyaml.Kubectl(sc)
	if k.Err != "" {
		return c.errf(n, "%s is %s, which kubectl cannot send: %s", c.pointer(), c.written(n), c.kubectlError(k))
	}
	if s.Type == krmschema.TypeAny || k.Kind == kubeyaml.Null {
		return nil
	}
	y := kubeyaml.YAML12(sc)
	switch s.Type {
	case krmschema.TypeObject, krmschema.TypeArray:
		return c.errf(n, "%s is %s, %s; KRM's schema wants %s there", c.pointer(), c.written(n), kubeyaml.Describe(k), typeName(s))
	case krmschema.TypeString:
		return c.stringScalar(n, sc, k, y)
	case krmschema.TypeNumber:
		return c.numberScalar(n, sc, k, y)
	case krmschema.TypeInteger:
		return c.integerScalar(n, sc, k, y, s.Bits)
	case krmschema.TypeBoolean:
		if k.Kind == kubeyaml.Bool && kubeyaml.Same(k, y) {
			return nil
		}
		return c.mismatch(n, sc, k, y, s, "write true or false")
	case krmschema.TypeIntOrString:
		if (k.Kind == kubeyaml.String || k.Kind == kubeyaml.Int) && kubeyaml.Same(k, y) {
			return nil
		}
		return c.mismatch(n, sc, k, y, s, "quote it: "+strconv.Quote(sc.Value))
	}
	return nil
}

func (c *docCheck) kubectlError(k kubeyaml.Value) string {
	if strings.HasPrefix(k.Err, "json: unsupported value") {
		return "JSON has no infinity or NaN (" + k.Err + "); KRM's numbers are finite, -1 is unlimited"
	}
	return k.Err
}

func (c *docCheck) stringScalar(n *yaml.Node, sc kubeyaml.Scalar, k, y kubeyaml.Value) error {
	if k.Kind == kubeyaml.String && kubeyaml.Same(k, y) {
		return nil
	}
	fix := "quote it: " + strconv.Quote(sc.Value)
	if y.Kind == kubeyaml.String || !kubeyaml.Same(k, y) {
		fix = "quote it (" + strconv.Quote(sc.Value) + ") if you mean the text"
	}
	return c.mismatch(n, sc, k, y, &krmschema.Field{Type: krmschema.TypeString}, fix)
}

func (c *docCheck) numberScalar(n *yaml.Node, sc kubeyaml.Scalar, k, y kubeyaml.Value) error {
	if number(k) && number(y) && kubeyaml.SameNumber(k.Text, y.Text) {
		return nil // the range is the typed reader's (docReader.number)
	}
	if sc.Plain && number(y) {
		if _, err := quota.Parse(y.Text); err != nil {
			var re *quota.RangeError
			if errors.As(err, &re) {
				re.Text = sc.Value
				return c.errf(n, "%s: %v", c.pointer(), re)
			}
		}
	}
	switch {
	case k.Kind == kubeyaml.String && !sc.Plain && quotaNumber(sc.Value):
		return c.errf(n, "%s is the string %q; KRM rejects a string there, write the number unquoted", c.pointer(), sc.Value)
	case k.Kind == kubeyaml.String && kubeyaml.Same(k, y):
		return c.errf(n, "%s: %q is not a number", c.pointer(), sc.Value)
	}
	fix := "KRM needs a number there"
	if number(k) {
		var safe []string
		for _, t := range []string{k.Text, y.Text} {
			if number(y) || t == k.Text {
				if safeNumber(t) && !slices.Contains(safe, t) {
					safe = append(safe, t)
				}
			}
		}
		switch len(safe) {
		case 0:
			fix = "write it with at most 15 significant digits"
		case 1:
			fix = "write " + safe[0]
		default:
			fix = "write " + safe[0] + " or " + safe[1]
		}
	}
	return c.mismatch(n, sc, k, y, &krmschema.Field{Type: krmschema.TypeNumber}, fix)
}

func (c *docCheck) integerScalar(n *yaml.Node, sc kubeyaml.Scalar, k, y kubeyaml.Value, bits int) error {
	if k.Kind == kubeyaml.Int && kubeyaml.Same(k, y) {
		if bits == 32 {
			if _, err := strconv.ParseInt(k.Text, 10, 32); err != nil {
				return c.errf(n, "%s is %s, beyond an int32 (−2147483648 to 2147483647)", c.pointer(), c.written(n))
			}
		}
		return nil
	}
	fix := "KRM needs a whole number there"
	switch {
	case k.Kind == kubeyaml.Int:
		fix = "write " + k.Text
	case k.Kind == kubeyaml.Float && y.Kind == kubeyaml.Float && kubeyaml.SameNumber(k.Text, y.Text) && !strings.ContainsAny(k.Text, ".e"):
		fix = "write " + k.Text
	}
	return c.mismatch(n, sc, k, y, &krmschema.Field{Type: krmschema.TypeInteger}, fix)
}

// mismatch is the error for a scalar that is not of the schema's type or
// that kubectl and YAML 1.2 read differently: both readings, why kubectl
// reads it so, and the fix.
func (c *docCheck) mismatch(n *yaml.Node, sc kubeyaml.Scalar, k, y kubeyaml.Value, s *krmschema.Field, fix string) error {
	if kubeyaml.Same(k, y) || (y.Err == "" && k.Kind == y.Kind && (k.Kind == kubeyaml.Int || k.Kind == kubeyaml.Float) && kubeyaml.SameNumber(k.Text, y.Text)) {
		if strings.HasPrefix(fix, "KRM needs") {
			fix = ""
		} else {
			fix = ": " + fix
		}
		return c.errf(n, "%s is %s, %s; KRM's schema wants %s there%s", c.pointer(), c.written(n), kubeyaml.Describe(k), typeName(s), fix)
	}
	why := why11(sc, k, y)
	if why != "" {
		why = " (" + why + ")"
	}
	return c.errf(n, "%s is %s: kubectl reads %s%s, YAML 1.2 tools %s; %s", c.pointer(), c.written(n), kubeyaml.Describe(k), why, kubeyaml.Describe(y), fix)
}

// why11 says why kubectl reads a spelling as it does, where YAML 1.2
// reads it otherwise.
func why11(sc kubeyaml.Scalar, k, y kubeyaml.Value) string {
	v := strings.TrimLeft(sc.Value, "+-")
	switch {
	case k.Kind == kubeyaml.Bool && y.Kind == kubeyaml.String:
		return "YAML 1.1 reads y, yes, on, n, no and off as booleans"
	case k.Kind == kubeyaml.Int && len(v) > 1 && v[0] == '0' && strings.Trim(v, "01234567_") == "":
		return "YAML 1.1 reads a leading 0 as octal"
	case (k.Kind == kubeyaml.Int || k.Kind == kubeyaml.Float) && strings.Contains(sc.Value, "_"):
		return "YAML 1.1 drops the underscores"
	case k.Kind == kubeyaml.Int && len(v) > 1 && v[0] == '0' && strings.ContainsAny(v[1:2], "bBoOxX"):
		return "go-yaml v2 reads the 0b, 0o and 0x prefixes in either case, and with a sign"
	case k.Kind == kubeyaml.Float && (y.Kind == kubeyaml.Int || y.Kind == kubeyaml.Float):
		return "kubectl sends it as a float64, which keeps 15 to 17 significant digits"
	case k.Kind == kubeyaml.String && y.Kind == kubeyaml.Float:
		return "beyond a float64, kubectl keeps it as text"
	}
	return ""
}

func number(v kubeyaml.Value) bool { return kubeyaml.IsNumber(v) }

// quotaNumber reports whether text, unquoted, would be a quota number (in
// range or not).
func quotaNumber(text string) bool {
	var re *quota.RangeError
	_, err := quota.Parse(text)
	return err == nil || errors.As(err, &re)
}

// safeNumber reports whether text, written plainly, is a quota number that
// kubectl and YAML 1.2 read alike.
func safeNumber(text string) bool {
	if !canonicalNumber(text) {
		return false
	}
	if _, err := quota.Parse(text); err != nil {
		return false
	}
	return kubeyaml.NumberAlike(text)
}

// canonicalNumber reports whether text is a number in plain decimal
// (-?digits, an optional fraction), the spelling every reader agrees on.
func canonicalNumber(text string) bool {
	t := strings.TrimPrefix(text, "-")
	whole, frac, dot := strings.Cut(t, ".")
	if whole == "" || strings.Trim(whole, "0123456789") != "" || (len(whole) > 1 && whole[0] == '0') {
		return false
	}
	return !dot || (frac != "" && strings.Trim(frac, "0123456789") == "")
}
