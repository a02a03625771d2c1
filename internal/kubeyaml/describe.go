package kubeyaml

import "strconv"

// Describe names a reading for a message: "the boolean true", "the number
// 8", "the string \"yes\"", "null", or the reason it fails.
func Describe(v Value) string {
	if v.Err != "" {
		return "an error (" + v.Err + ")"
	}
	switch v.Kind {
	case Null:
		return "null"
	case Bool:
		return "the boolean " + v.Text
	case Int, Float:
		return "the number " + v.Text
	}
	return "the string " + quote(v.Text)
}

func quote(s string) string { return strconv.Quote(s) }

// Same reports whether two readings agree: the same kind and text (Int
// and Float compared as decimals are the caller's business: 4 and 4.0 are
// different texts here).
func Same(a, b Value) bool {
	return a.Err == "" && b.Err == "" && a.Kind == b.Kind && a.Text == b.Text
}
