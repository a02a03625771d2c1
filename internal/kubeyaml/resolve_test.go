package kubeyaml

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// The wrappers a scalar is tried in: its style and explicit tag.
var wrappers = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" },
	func(s string) string { return strconvQuote(s) },
	func(s string) string { return "!!int " + s },
	func(s string) string { return "!!float " + s },
	func(s string) string { return "!!str " + s },
	func(s string) string { return "!!bool " + s },
	func(s string) string { return "!!null " + s },
	func(s string) string { return "!!timestamp " + s },
	func(s string) string { return "!!binary " + s },
	func(s string) string { return "! " + s },
	func(s string) string { return "&a ! " + s },
	func(s string) string { return "!<!> " + s },
	func(s string) string { return "!local " + s },
	func(s string) string { return "!!int " + strconvQuote(s) },
	func(s string) string { return "! " + strconvQuote(s) },
	func(s string) string { return "|-\n  " + s },
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// kubectlReading is what sigs.k8s.io/yaml makes of the document "v: X":
// the JSON value of v, or the error.
func kubectlReading(doc string) (json.RawMessage, error) {
	j, err := sigsyaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return m["v"], nil
}

// scalarIn parses doc with yaml.v3 and returns the Scalar of v's value.
func scalarIn(doc string) (Scalar, bool) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil || len(root.Content) == 0 {
		return Scalar{}, false
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode || len(m.Content) != 2 || m.Content[1].Kind != yaml.ScalarNode {
		return Scalar{}, false
	}
	v := m.Content[1]
	start := offsetOf([]byte(doc), v.Line, v.Column)
	return ScalarOf(v, []byte(doc), start), true
}

// offsetOf is the byte offset of yaml.v3's line and column (ASCII only).
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off + col - 1
}

// agree checks Kubectl against sigs.k8s.io/yaml for doc "v: X"; it returns
// "" when they agree or neither reads the document as one scalar.
func agree(x string) string {
	doc := "v: " + x + "\n"
	s, ok := scalarIn(doc)
	if !ok {
		return ""
	}
	got := Kubectl(s)
	raw, err := kubectlReading(doc)
	switch {
	case err != nil && got.Err != "":
		return ""
	case err != nil:
		if strings.Contains(err.Error(), "did not find") || strings.Contains(err.Error(), "found") {
			return "" // a syntax go-yaml v2 refuses and yaml.v3 takes: not the resolver's business
		}
		return fmt.Sprintf("%q: sigs.k8s.io/yaml fails (%v), Kubectl gives %+v", x, err, got)
	case got.Err != "":
		return fmt.Sprintf("%q: sigs.k8s.io/yaml gives %s, Kubectl fails (%s)", x, raw, got.Err)
	}
	want := jsonOf(got)
	var str string
	if got.Kind == String && json.Unmarshal(raw, &str) == nil && str == got.Text {
		want = string(raw)
	}
	if string(raw) != want {
		return fmt.Sprintf("%q (scalar %+v): sigs.k8s.io/yaml gives %s, Kubectl %s", x, s, raw, want)
	}
	// As a key, too.
	kdoc := x + ": 1\n"
	var root yaml.Node
	if yaml.Unmarshal([]byte(kdoc), &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode || len(root.Content[0].Content) != 2 {
		return ""
	}
	kn := root.Content[0].Content[0]
	if kn.Kind != yaml.ScalarNode || IsMerge(ScalarOf(kn, []byte(kdoc), offsetOf([]byte(kdoc), kn.Line, kn.Column))) {
		return ""
	}
	key, kok, _ := Key(ScalarOf(kn, []byte(kdoc), offsetOf([]byte(kdoc), kn.Line, kn.Column)))
	j, err := sigsyaml.YAMLToJSON([]byte(kdoc))
	switch {
	case err != nil && !kok:
		return ""
	case err != nil:
		return fmt.Sprintf("key %q: sigs.k8s.io/yaml fails (%v), Key gives %q", x, err, key)
	case !kok:
		return fmt.Sprintf("key %q: sigs.k8s.io/yaml gives %s, Key fails", x, j)
	}
	var m map[string]int
	if err := json.Unmarshal(j, &m); err != nil {
		return fmt.Sprintf("key %q: %s: %v", x, j, err)
	}
	if _, ok := m[key]; !ok || len(m) != 1 {
		return fmt.Sprintf("key %q: sigs.k8s.io/yaml gives %s, Key %q", x, j, key)
	}
	return ""
}

// jsonOf is the JSON text of a reading.
func jsonOf(v Value) string {
	switch v.Kind {
	case String:
		b, _ := json.Marshal(v.Text)
		return string(b)
	}
	return v.Text
}

// spellings are the scalars every reading rule is about, and their near
// misses.
var spellings = []string{
	"0", "00", "010", "-010", "+010", "08", "09.5", "010.0", "0010", "0o17", "0O17", "-0o17", "0x1F", "0X1F", "-0x1F", "+0x1F",
	"0x_1F", "0b101", "0B101", "-0b101", "0b", "0x", "0o", "1_000", "1__0", "_1", "1_", "1_0.5", ".5", "+.5", "-.5", "5.", "1e3",
	"1E3", "1e+3", "1e-3", "1.5e3", ".5e3", "1e309", "-1e309", "1e-400", "4", "4.0", "-1", "-0", "-0.0", "0.1", "0.30000000000000001",
	"1.123456789012345678", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
	"-9223372036854775809", "0b1111111111111111111111111111111111111111111111111111111111111111",
	"-0b1111111111111111111111111111111111111111111111111111111111111111", "0x8000000000000000", "0xFFFFFFFFFFFFFFFFF",
	"y", "Y", "yes", "Yes", "YES", "yEs", "n", "N", "no", "No", "NO", "on", "On", "ON", "oN", "off", "Off", "OFF", "true", "True",
	"TRUE", "tRUE", "false", "False", "FALSE", "null", "Null", "NULL", "nULL", "~", "", ".nan", ".NaN", ".NAN", ".inf", ".Inf",
	".INF", "+.inf", "-.inf", "-.Inf", ".iNf", "inf", "nan", "Infinity", "0x1p-2", "1e1_0", "2001-12-14", "2001-12-14T21:59:43.10Z",
	"2001-12-14 21:59:43.10", "2001-12-14t21:59:43Z", "2001-13-14", "1-2-3", "12:30", "1:20:30", "190:20:30", "<<", "=", "a", "h100",
	"default", "kai/project", "-", "+", ".", "..", "1.2.3", "0.", "-.", "+-1", "--1", "1e", "1e+", "e3", "0e0", "1e1000000",
	"123456789012345678901234567890", "0o777777777777777777777777", "0x" + strings.Repeat("f", 70), "aGVsbG8=", "not base64!",
}

// Kubectl is sigs.k8s.io/yaml's reading of every spelling in every
// wrapper.
func TestKubectlAgreesWithSigsYAML(t *testing.T) {
	for _, x := range spellings {
		for _, w := range wrappers {
			if msg := agree(w(x)); msg != "" {
				t.Error(msg)
			}
		}
	}
}

// Random scalars from the characters that matter to the resolvers.
func TestKubectlAgreesOnRandomScalars(t *testing.T) {
	const alphabet = "0123456789+-._eExXoObByYnNtTfF~:aIinfl "
	r := rand.New(rand.NewPCG(1, 2))
	// Decimals around the fast path's bounds (15 significant digits, 1e-6,
	// 18 integer digits).
	for range 20000 {
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteByte('-')
		}
		b.WriteString(strconv.Itoa(r.IntN(10)))
		for range r.IntN(19) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		if r.IntN(3) > 0 {
			b.WriteByte('.')
			for range r.IntN(3) {
				b.WriteByte('0')
			}
			for range 1 + r.IntN(17) {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		if msg := agree(b.String()); msg != "" {
			t.Error(msg)
		}
	}
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		x := strings.TrimSpace(b.String())
		if msg := agree(wrappers[r.IntN(len(wrappers))](x)); msg != "" {
			t.Error(msg)
		}
	}
}

func FuzzKubectl(f *testing.F) {
	for i, x := range spellings {
		f.Add(x, uint8(i))
	}
	f.Fuzz(func(t *testing.T, x string, w uint8) {
		if strings.ContainsAny(x, "\n\r#:{}[],&*!|>'\"%@`") {
			return // structure, not a scalar
		}
		if msg := agree(wrappers[int(w)%len(wrappers)](x)); msg != "" {
			t.Error(msg)
		}
	})
}

// isYAMLFloat is go-yaml's regular expression.
func TestIsYAMLFloatIsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0129.eE+-x"
	for range 100000 {
		var b strings.Builder
		for range r.IntN(9) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		if s := b.String(); isYAMLFloat(s) != re.MatchString(s) {
			t.Errorf("%q: isYAMLFloat %v, regexp %v", s, isYAMLFloat(s), re.MatchString(s))
		}
	}
}

// The readings the README's table lists.
func TestReadings(t *testing.T) {
	for _, tc := range []struct{ x, kubectl, yaml12 string }{
		{"010", "the number 8", "the number 10"},
		{"0o17", "the number 15", "the number 15"},
		{"0x1F", "the number 31", "the number 31"},
		{"0X1F", "the number 31", `the string "0X1F"`},
		{"0b101", "the number 5", `the string "0b101"`},
		{"1_000", "the number 1000", `the string "1_000"`},
		{"0.30000000000000001", "the number 0.3", "the number 0.30000000000000001"},
		{"1e3", "the number 1000", "the number 1e3"},
		{".5", "the number 0.5", "the number .5"},
		{"1e309", `the string "1e309"`, "the number 1e309"},
		{"yes", "the boolean true", `the string "yes"`},
		{"off", "the boolean false", `the string "off"`},
		{"y", "the boolean true", `the string "y"`},
		{"True", "the boolean true", "the boolean true"},
		{"~", "null", "null"},
		{"2001-12-14", `the string "2001-12-14"`, `the string "2001-12-14"`},
		{".inf", "an error (json: unsupported value: +Inf)", "the number +Inf"},
	} {
		s := Scalar{Plain: true, Value: tc.x}
		if got := Describe(Kubectl(s)); got != tc.kubectl {
			t.Errorf("%s: Kubectl %s, want %s", tc.x, got, tc.kubectl)
		}
		if got := Describe(YAML12(s)); got != tc.yaml12 {
			t.Errorf("%s: YAML12 %s, want %s", tc.x, got, tc.yaml12)
		}
	}
	for _, tc := range []struct{ tag, x, kubectl string }{
		{"!!int", "010", "the number 8"},
		{"!!int", "4.5", "an error (cannot decode !!float `4.5` as a !!int)"},
		{"!!float", "4", "the number 4"},
		{"!!float", "18446744073709551615", "an error (cannot decode !!int `18446744073709551615` as a !!float)"},
		{"!!str", "010", `the string "010"`},
		{"!", "010", `the string "010"`},
		{"!!binary", "aGk=", `the string "hi"`},
	} {
		if got := Describe(Kubectl(Scalar{Tag: tc.tag, Plain: true, Value: tc.x})); got != tc.kubectl {
			t.Errorf("%s %s: Kubectl %s, want %s", tc.tag, tc.x, got, tc.kubectl)
		}
	}
}
