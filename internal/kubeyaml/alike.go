package kubeyaml

import "github.com/cockroachdb/apd/v3"

// SameNumber reports whether two number texts ("8", "8.0", "1e+21") are
// the same number, compared exactly as decimals.
func SameNumber(a, b string) bool {
	if a == b {
		return true
	}
	var x, y apd.Decimal
	if _, _, err := x.SetString(a); err != nil {
		return false
	}
	if _, _, err := y.SetString(b); err != nil {
		return false
	}
	return x.Form == apd.Finite && y.Form == apd.Finite && x.Cmp(&y) == 0
}

// IsNumber reports whether a reading is a number kubectl can send.
func IsNumber(v Value) bool { return v.Err == "" && (v.Kind == Int || v.Kind == Float) }

// NumberAlike reports whether the number text, written plainly, is that
// very number to kubectl and to YAML 1.2: the test of a number a writer
// may put into a file. 0.30000000000000001 is not (kubectl sends 0.3).
func NumberAlike(text string) bool {
	if PlainDecimal(text) {
		return true
	}
	s := Scalar{Plain: true, Value: text}
	k, y := Kubectl(s), YAML12(s)
	return IsNumber(k) && IsNumber(y) && SameNumber(k.Text, text) && SameNumber(y.Text, text)
}

// StringAlike reports whether text, written plainly, is the string text
// to kubectl and to YAML 1.2: "on", "y", "010" or "1_000" are not (a
// boolean or a number to one of them).
func StringAlike(text string) bool {
	if PlainWord(text) {
		return true
	}
	s := Scalar{Plain: true, Value: text}
	k, y := Kubectl(s), YAML12(s)
	return k.Err == "" && k.Kind == String && k.Text == text && Same(k, y)
}
