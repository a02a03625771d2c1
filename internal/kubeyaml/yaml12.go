package kubeyaml

import (
	"math/big"
	"strings"
)

// YAML12 returns the value of s under the YAML 1.2 core schema (YAML
// 1.2.2, §10.3.2), the reading of yaml.v3's decimal text, kyaml, yq and
// the other YAML 1.2 tools: null is null, Null, NULL, ~ or nothing;
// booleans are true and false in three cases only; integers are decimal
// ([-+]?[0-9]+), 0o octal or 0x hexadecimal; floats are
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? and .inf, .nan;
// everything else is a string. A number's Text is its exact decimal value
// ("010" is 10, "0.30000000000000001" stays so), not a float64's.
//
// An explicit tag of the schema (!!str, !!int, !!float, !!bool, !!null)
// reads the text as that type (Err when it does not match); the
// non-specific "!" and every other tag give the text as a string.
func YAML12(s Scalar) Value {
	tag := longTag(s.Tag)
	switch {
	case tag == "" && !s.Plain, tag == tagStr, tag != "" && !resolvable(tag):
		return Value{Kind: String, Text: s.Value}
	case tag == "":
		return core12(s.Value)
	}
	v := core12(s.Value)
	want := map[string]Kind{tagNull: Null, tagBool: Bool, tagInt: Int, tagFloat: Float}[tag]
	switch {
	case want == 0: // !!timestamp is not in the core schema: its text
		return Value{Kind: String, Text: s.Value}
	case v.Kind == want:
		return v
	case want == Float && v.Kind == Int:
		v.Kind = Float
		return v
	}
	return Value{Err: "YAML 1.2 cannot read " + quote(s.Value) + " as a " + shortTag(tag)}
}

// core12 resolves a plain scalar by the core schema.
func core12(in string) Value {
	switch in {
	case "", "~", "null", "Null", "NULL":
		return Value{Kind: Null, Text: "null"}
	case "true", "True", "TRUE":
		return Value{Kind: Bool, Text: "true"}
	case "false", "False", "FALSE":
		return Value{Kind: Bool, Text: "false"}
	case ".nan", ".NaN", ".NAN":
		return Value{Kind: Float, Text: "NaN"}
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return Value{Kind: Float, Text: "+Inf"}
	case "-.inf", "-.Inf", "-.INF":
		return Value{Kind: Float, Text: "-Inf"}
	}
	if hints[in[0]] == 0 {
		return Value{Kind: String, Text: in}
	}
	if isDecimalInt(in) {
		return Value{Kind: Int, Text: trimZeros(in)}
	}
	if len(in) > 2 && in[0] == '0' && (in[1] == 'o' || in[1] == 'x') {
		base := 8
		if in[1] == 'x' {
			base = 16
		}
		if digitsOf(in[2:], base) {
			return Value{Kind: Int, Text: baseToDecimal(in, base)}
		}
	}
	if isYAMLFloat(in) {
		return Value{Kind: Float, Text: strings.TrimPrefix(in, "+")}
	}
	return Value{Kind: String, Text: in}
}

// trimZeros writes a decimal integer without its + sign and leading
// zeros: "+010" is "10", "-007" is "-7".
func trimZeros(s string) string {
	sign := ""
	switch s[0] {
	case '-':
		sign, s = "-", s[1:]
	case '+':
		s = s[1:]
	}
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return sign + s
}

// isDecimalInt matches [-+]?[0-9]+.
func isDecimalInt(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && digitsOf(s, 10)
}

// digitsOf reports whether s is non-empty and only digits of base 8, 10
// or 16.
func digitsOf(s string, base int) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '7':
		case c >= '8' && c <= '9' && base >= 10:
		case (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') && base == 16:
		default:
			return false
		}
	}
	return true
}

// maxBaseDigits bounds the octal and hexadecimal numbers converted to
// decimal text: a longer one is far beyond any quota number (and would
// cost quadratic time), and keeps its written text.
const maxBaseDigits = 64

// baseToDecimal is the 0o or 0x number in (prefix included) in decimal.
func baseToDecimal(in string, base int) string {
	if len(in)-2 > maxBaseDigits {
		return in
	}
	var n big.Int
	n.SetString(in[2:], base)
	return n.String()
}
