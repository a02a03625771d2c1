// Package kubeyaml says how a YAML scalar reaches the API server, and how
// a YAML 1.2 tool reads the same text, so that krmplan can refuse the
// spellings the two read differently and never write one.
//
// kubectl, Helm and Argo CD turn YAML into JSON with sigs.k8s.io/yaml,
// which parses with a fork of go-yaml v2 (go.yaml.in/yaml/v2) and so
// resolves plain scalars by YAML 1.1's rules as that library implements
// them: `010` is 8, `0x10` is 16, `1_000` is 1000, `yes`, `on`, `y` are
// booleans. yaml.v3, kustomize's kyaml, yq and the YAML 1.2 core schema
// read `010` as 10, `1_000` and `yes` as strings. Kubectl below is an exact
// copy of the first reading (proven equal to sigs.k8s.io/yaml itself by
// this package's property and fuzz tests), YAML12 of the second.
package kubeyaml

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is the JSON type a reading gives a scalar.
type Kind uint8

// The kinds of a Value.
const (
	Null Kind = iota + 1
	Bool
	Int
	Float
	String
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Int, Float:
		return "number"
	case String:
		return "string"
	}
	return "nothing"
}

// Value is one reading of a scalar.
type Value struct {
	Kind Kind
	// Text is the value: the string itself for String; "true" or "false";
	// for Int and Float the number in decimal, as kubectl's JSON writes it
	// (Kubectl: "8", "0.3", "1e+21") or as the text means it (YAML12:
	// "0.30000000000000001"); "null".
	Text string
	// Err is set instead when the reading fails: kubectl cannot send the
	// scalar (a tag it cannot decode, such as !!int on 4.5; infinity or NaN,
	// which JSON cannot hold; bad base64 under !!binary).
	Err string
	// float is a Float's value (kubectl turns float keys into text with
	// it); unsigned marks an Int that only fits a uint64, which go-yaml v2
	// does not turn into a float under !!float.
	float    float64
	unsigned bool
}

// Scalar is a YAML scalar as yaml.v3 parsed it.
type Scalar struct {
	// Tag is the explicit tag: as yaml.v3 gives it in Node.Tag when
	// Node.Style has TaggedStyle ("!!int", "!local", or a full
	// "tag:example.com,2000:x"), "!" for the non-specific tag (which
	// yaml.v3 does not keep: read it from the source), "" for none.
	Tag string
	// Plain is true for a scalar written without quotes and without a
	// block indicator (| or >).
	Plain bool
	// Value is the scalar's text after YAML's escapes and folding
	// (yaml.v3's Node.Value).
	Value string
}

// The tags of YAML's types, in the long form the go-yaml v2 parser uses.
const (
	tagPrefix    = "tag:yaml.org,2002:"
	tagNull      = tagPrefix + "null"
	tagBool      = tagPrefix + "bool"
	tagStr       = tagPrefix + "str"
	tagInt       = tagPrefix + "int"
	tagFloat     = tagPrefix + "float"
	tagTimestamp = tagPrefix + "timestamp"
	tagBinary    = tagPrefix + "binary"
	tagMerge     = tagPrefix + "merge"
)

// longTag expands yaml.v3's short "!!x" to "tag:yaml.org,2002:x".
func longTag(tag string) string {
	if strings.HasPrefix(tag, "!!") {
		return tagPrefix + tag[2:]
	}
	return tag
}

// shortTag is the "!!x" form of a long tag, for messages.
func shortTag(tag string) string {
	if strings.HasPrefix(tag, tagPrefix) {
		return "!!" + tag[len(tagPrefix):]
	}
	return tag
}

// Kubectl returns the value kubectl sends for s: sigs.k8s.io/yaml v1.6.0
// decodes the scalar with go-yaml v2 into an interface{} (decode.go's
// scalar: an untagged quoted or block scalar is a string, anything else
// goes through resolve.go's resolve) and encodes that with encoding/json.
func Kubectl(s Scalar) Value {
	tag := longTag(s.Tag)
	if tag == "" && !s.Plain {
		return Value{Kind: String, Text: s.Value}
	}
	if tag == "" {
		// The spellings of nearly every tenancy value, read without
		// converting: words, and numbers in plain decimal that an int64 or
		// a float64 gives back as written.
		if s.Value != "" && hints[s.Value[0]] == 0 {
			return Value{Kind: String, Text: s.Value}
		}
		if k := plainDecimal(s.Value); k != 0 {
			return Value{Kind: k, Text: s.Value}
		}
	}
	if tag == tagBinary {
		b, err := base64.StdEncoding.DecodeString(s.Value)
		if err != nil {
			return Value{Err: "!!binary value contains invalid base64 data"}
		}
		return Value{Kind: String, Text: validUTF8(b)}
	}
	if !resolvable(tag) {
		// The non-specific tag "!", a local or a foreign tag: go-yaml v2
		// keeps the text, as a string.
		return Value{Kind: String, Text: s.Value}
	}
	rtag, v := resolve11(tag, s.Value)
	switch {
	case tag == "", tag == rtag, tag == tagStr:
	case tag == tagFloat && rtag == tagInt && !v.unsigned:
		f, _ := strconv.ParseFloat(v.Text, 64) // v2 converts the int64 to a float64
		v = floatValue(f)
	default:
		return Value{Err: "cannot decode " + shortTag(rtag) + " `" + s.Value + "` as a " + shortTag(tag)}
	}
	return v
}

// resolvable is go-yaml v2's resolvableTag.
func resolvable(tag string) bool {
	switch tag {
	case "", tagStr, tagBool, tagInt, tagFloat, tagNull, tagTimestamp:
		return true
	}
	return false
}

// resolve11 is go-yaml v2's resolve for a resolvable tag, with the value
// as encoding/json then writes it. A timestamp is its text: v2 decodes a
// timestamp into an interface{} as the string it was written as.
func resolve11(tag, in string) (string, Value) {
	if tag == tagStr {
		return tagStr, Value{Kind: String, Text: in}
	}
	hint := byte('N')
	if in != "" {
		hint = hints[in[0]]
	}
	if hint == 0 {
		return tagStr, Value{Kind: String, Text: in}
	}
	if v, ok := special11(in); ok {
		return v.tag, v.Value
	}
	switch hint {
	case '.':
		if f, err := strconv.ParseFloat(in, 64); err == nil {
			return tagFloat, floatValue(f)
		}
	case 'D', 'S':
		if tag == "" || tag == tagTimestamp {
			if isTimestamp(in) {
				return tagTimestamp, Value{Kind: String, Text: in}
			}
		}
		plain := in
		if strings.IndexByte(in, '_') >= 0 {
			plain = strings.ReplaceAll(in, "_", "")
		}
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return tagInt, Value{Kind: Int, Text: strconv.FormatInt(i, 10)}
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return tagInt, Value{Kind: Int, Text: strconv.FormatUint(u, 10), unsigned: true}
		}
		if isYAMLFloat(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return tagFloat, floatValue(f)
			}
		}
		if v, ok := binary11(plain); ok {
			return tagInt, v
		}
	}
	return tagStr, Value{Kind: String, Text: in}
}

// binary11 is v2's "0b" and "-0b" integers, which strconv's base 0 has
// already read unless they overflow int64 (a "0b" one may still fit in a
// uint64; a "-0b" one that overflows is read as int64's bound).
func binary11(plain string) (Value, bool) {
	switch {
	case strings.HasPrefix(plain, "0b"):
		if i, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
			return Value{Kind: Int, Text: strconv.FormatInt(i, 10)}, true
		}
		if u, err := strconv.ParseUint(plain[2:], 2, 64); err == nil {
			return Value{Kind: Int, Text: strconv.FormatUint(u, 10), unsigned: true}, true
		}
	case strings.HasPrefix(plain, "-0b"):
		if i, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
			return Value{Kind: Int, Text: strconv.FormatInt(i, 10)}, true
		}
	}
	return Value{}, false
}

// hints is go-yaml's resolveTable: what the first byte of a plain scalar
// says it may be. 0: only a string.
var hints = func() (t [256]byte) {
	t['+'], t['-'] = 'S', 'S'
	for c := '0'; c <= '9'; c++ {
		t[c] = 'D'
	}
	for _, c := range "yYnNtTfFoO~" {
		t[c] = 'M'
	}
	t['.'] = '.'
	return t
}()

type tagged struct {
	tag string
	Value
}

// special11 is go-yaml v2's resolveMap: the words YAML 1.1 reads as
// booleans and null, the special floats, and the merge key.
func special11(in string) (tagged, bool) {
	switch in {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return tagged{tagBool, Value{Kind: Bool, Text: "true"}}, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return tagged{tagBool, Value{Kind: Bool, Text: "false"}}, true
	case "", "~", "null", "Null", "NULL":
		return tagged{tagNull, Value{Kind: Null, Text: "null"}}, true
	case ".nan", ".NaN", ".NAN":
		return tagged{tagFloat, floatValue(math.NaN())}, true
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return tagged{tagFloat, floatValue(math.Inf(1))}, true
	case "-.inf", "-.Inf", "-.INF":
		return tagged{tagFloat, floatValue(math.Inf(-1))}, true
	case "<<":
		return tagged{tagMerge, Value{Kind: String, Text: "<<"}}, true
	}
	return tagged{}, false
}

// isYAMLFloat is go-yaml's yamlStyleFloat,
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$, without a regexp.
func isYAMLFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// timestampFormats are go-yaml's allowedTimestampFormats.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp is go-yaml's parseTimestamp, reporting only success.
func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}

// floatValue is f as encoding/json writes a float64: the shortest text
// that reads back as f, in e-notation below 1e-6 and from 1e21, with a
// one-digit negative exponent written without its leading zero. JSON has
// no infinity and no NaN: kubectl fails on them (Err is set; Kind stays
// Float, as a key they are text).
func floatValue(f float64) Value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{Kind: Float, Err: "json: unsupported value: " + strconv.FormatFloat(f, 'g', -1, 64), float: f}
	}
	abs := f
	if abs < 0 {
		abs = -abs
	}
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return Value{Kind: Float, Text: string(b), float: f}
}

// Key returns the JSON object key kubectl makes of a mapping key s:
// sigs.k8s.io/yaml turns go-yaml v2's int, float and bool keys into text
// (strconv.Itoa; FormatFloat 'g' at 32 bits; "true"/"false") and refuses
// a null one. ok is false, with the reason, when kubectl cannot use it.
func Key(s Scalar) (key string, ok bool, reason string) {
	v := Kubectl(s)
	switch {
	case v.Kind == Int && v.unsigned:
		return "", false, "kubectl refuses a key beyond int64 (unsupported map key of type: uint64)"
	}
	switch v.Kind {
	case String, Int, Bool:
		return v.Text, true, ""
	case Float:
		f := v.float
		if v.Err == "" {
			f, _ = strconv.ParseFloat(v.Text, 64)
		}
		switch k := strconv.FormatFloat(f, 'g', -1, 32); k {
		case "+Inf":
			return ".inf", true, ""
		case "-Inf":
			return "-.inf", true, ""
		case "NaN":
			return ".nan", true, ""
		default:
			return k, true, ""
		}
	case Null:
		return "", false, "kubectl refuses a null key (unsupported map key of type: <nil>)"
	}
	return "", false, v.Err
}

// validUTF8 is b as encoding/json writes a string: each byte that is not
// part of valid UTF-8 becomes U+FFFD.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out.WriteRune(utf8.RuneError)
		} else {
			out.Write(b[:n])
		}
		b = b[n:]
	}
	return out.String()
}

// PlainWord reports whether s, written plainly and untagged, is a string
// to every reader because of its first character alone (a letter other
// than those of y/n/true/false/on/off/null, or a symbol that starts no
// number): the spelling of nearly every name.
func PlainWord(s string) bool { return s != "" && hints[s[0]] == 0 && s != "<<" }

// PlainDecimal reports whether s, written plainly, is a number that
// kubectl sends exactly as it is written and YAML 1.2 reads alike: a
// plain decimal (-?(0|[1-9][0-9]*), an optional fraction not ending in 0)
// that an int64 or a float64 gives back digit for digit.
func PlainDecimal(s string) bool { return plainDecimal(s) != 0 }

// plainDecimal reports the kind of a number that kubectl sends exactly as
// it is written: Int for -?(0|[1-9][0-9]*) of at most 18 digits (an
// int64), Float for the same with a fraction that does not end in 0, of at
// most 15 significant digits and not below 1e-6 (encoding/json then writes
// a float64's shortest text, which is those digits). 0 otherwise.
func plainDecimal(s string) Kind {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	whole := s[start:i]
	if whole == "" || (len(whole) > 1 && whole[0] == '0') {
		return 0
	}
	if i == len(s) {
		if len(whole) > 18 || (whole == "0" && start == 1) {
			return 0 // beyond int64, or -0 (sent as 0)
		}
		return Int
	}
	if s[i] != '.' {
		return 0
	}
	frac := s[i+1:]
	if frac == "" || frac[len(frac)-1] == '0' || len(whole) > 15 {
		return 0
	}
	for j := 0; j < len(frac); j++ {
		if frac[j] < '0' || frac[j] > '9' {
			return 0
		}
	}
	digits := len(whole) + len(frac)
	if whole == "0" {
		zeros := len(frac) - len(strings.TrimLeft(frac, "0"))
		if zeros >= 6 {
			return 0
		}
		digits = len(frac) - zeros
	}
	if digits > 15 {
		return 0
	}
	return Float
}
