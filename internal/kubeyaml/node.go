package kubeyaml

import "go.yaml.in/yaml/v3"

// ScalarOf returns the Scalar of a yaml.v3 scalar node n, whose source
// starts at byte start of src (the node's line and column, where its
// anchor or tag is written when it has one). yaml.v3 does not keep the
// non-specific tag "!": ScalarOf reads it from the source.
func ScalarOf(n *yaml.Node, src []byte, start int) Scalar {
	s := Scalar{Plain: n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0, Value: n.Value}
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		s.Tag = n.Tag
	case start >= 0 && start < len(src) && (src[start] == '!' || src[start] == '&'):
		if nonSpecificTag(src, start) {
			s.Tag = "!"
		}
	}
	return s
}

// nonSpecificTag reports whether the node properties at start (an anchor
// &name and a tag, in either order) hold the tag "!" alone, written as it
// is or verbatim (!<!>).
func nonSpecificTag(src []byte, start int) bool {
	i := start
	for range 2 {
		if i >= len(src) || (src[i] != '!' && src[i] != '&') {
			return false
		}
		j := i
		for j < len(src) && !blank(src[j]) {
			j++
		}
		if src[i] == '!' {
			return j == i+1 || string(src[i:j]) == "!<!>" // "!", or written verbatim
		}
		for j < len(src) && blank(src[j]) {
			j++
		}
		i = j
	}
	return false
}

func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// IsMerge reports whether kubectl reads the mapping key k as the merge key
// <<: go-yaml v2 takes "<<" written plain, under the non-specific tag "!"
// (quoted or not), or tagged !!merge.
func IsMerge(k Scalar) bool {
	if k.Value != "<<" {
		return false
	}
	switch longTag(k.Tag) {
	case "":
		return k.Plain
	case "!", tagMerge:
		return true
	}
	return false
}
