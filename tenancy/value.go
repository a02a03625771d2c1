package tenancy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/krmplan/krmplan/quota"
)

// ValueKind is what a Value holds.
type ValueKind uint8

// The kinds of Value. The zero Value is ValueNull.
const (
	ValueNull   ValueKind = iota // absent: an omitted field, or a field of an object that does not exist yet
	ValueString                  // a name, a label, a namespace
	ValueNumber                  // a quota number (quota.Value; -1 is unlimited)
	ValueInt                     // a queue's priority (int32)
	ValueList                    // a project's defaultNodePools
)

// Value is one field's value before or after a change. It is immutable:
// the list of a ValueList is the Value's own.
type Value struct {
	kind ValueKind
	str  string
	num  quota.Value
	i    int32
	list []string
}

// Null is the absent value.
var Null = Value{}

// String returns the string value s.
func String(s string) Value { return Value{kind: ValueString, str: s} }

// Number returns the quota number v.
func Number(v quota.Value) Value { return Value{kind: ValueNumber, num: v} }

// Int returns the whole number n (a priority).
func Int(n int32) Value { return Value{kind: ValueInt, i: n} }

// List returns the list l, copied (an empty or nil l is the empty list).
func List(l []string) Value { return Value{kind: ValueList, list: append([]string{}, l...)} }

// NumberOf is Number of *v, Null when v is nil (an omitted quota field).
func NumberOf(v *quota.Value) Value {
	if v == nil {
		return Null
	}
	return Number(*v)
}

// Kind is what v holds.
func (v Value) Kind() ValueKind { return v.kind }

// IsNull reports whether v is absent.
func (v Value) IsNull() bool { return v.kind == ValueNull }

// Str is v's string; ok is false for another kind.
func (v Value) Str() (s string, ok bool) { return v.str, v.kind == ValueString }

// Number is v's quota number; ok is false for another kind.
func (v Value) Number() (n quota.Value, ok bool) { return v.num, v.kind == ValueNumber }

// Int is v's whole number; ok is false for another kind.
func (v Value) Int() (n int32, ok bool) { return v.i, v.kind == ValueInt }

// List is v's list, which the caller must not change; ok is false for
// another kind.
func (v Value) List() (l []string, ok bool) { return v.list, v.kind == ValueList }

// Equal reports whether v and w are the same value: the same kind, and
// the same string, list or whole number, or numbers that are equal (4 and
// 4.0 are).
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case ValueString:
		return v.str == w.str
	case ValueNumber:
		return v.num.Equal(w.num)
	case ValueInt:
		return v.i == w.i
	case ValueList:
		return slices.Equal(v.list, w.list)
	}
	return true
}

// AppendJSON appends v's JSON to b, as plan.json writes it: null, a
// string as encoding/json writes it, a quota number in its reduced form
// ("0.5", "-1"), a whole number, a list of strings.
func (v Value) AppendJSON(b []byte) []byte {
	switch v.kind {
	case ValueString:
		s, _ := json.Marshal(v.str) // a string always marshals
		return append(b, s...)
	case ValueNumber:
		return append(b, v.num.String()...)
	case ValueInt:
		return strconv.AppendInt(b, int64(v.i), 10)
	case ValueList:
		l, _ := json.Marshal(v.list)
		return append(b, l...)
	}
	return append(b, "null"...)
}

// MarshalJSON is AppendJSON.
func (v Value) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

// String is v's JSON text, as the plan views print a value: `"h100"`,
// `4`, `["a","b"]`, `null`.
func (v Value) String() string { return string(v.AppendJSON(nil)) }

// DecodeValue reads the JSON b as a value of kind k: null, or the kind's
// JSON (a string, a quota number as quota.Parse reads it, a whole number
// within int32, a list of strings). An error says what b is not.
func DecodeValue(k ValueKind, b []byte) (Value, error) {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return Null, nil
	}
	switch k {
	case ValueString:
		var s string
		if len(b) == 0 || b[0] != '"' || json.Unmarshal(b, &s) != nil {
			return Null, fmt.Errorf("%s is not a string", b)
		}
		return String(s), nil
	case ValueNumber:
		var n quota.Value
		if err := n.UnmarshalJSON(b); err != nil {
			return Null, err
		}
		return Number(n), nil
	case ValueInt:
		n, err := strconv.ParseInt(string(b), 10, 32)
		if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			return Null, fmt.Errorf("%s is not a whole number between %d and %d", b, math.MinInt32, math.MaxInt32)
		}
		return Int(int32(n)), nil
	case ValueList:
		var l []string
		if len(b) == 0 || b[0] != '[' || json.Unmarshal(b, &l) != nil {
			return Null, fmt.Errorf("%s is not a list of strings", b)
		}
		return List(l), nil
	}
	return Null, fmt.Errorf("%s: no value belongs here", b)
}
