package snapshot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// members is n object members "0":v, "1":v, ... (the keys in hex, in
// descending order when desc), joined by commas.
func members(n int, v string, desc bool) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		k := i
		if desc {
			k = n - 1 - i
		}
		fmt.Fprintf(&b, "%q:%s", fmt.Sprintf("%x", k), v)
	}
	return b.String()
}

// containerKB is the size of the hostile lists and maps of these tests:
// a few times elementSlack, which they are refused soon after.
const containerKB = 512 << 10

// TestDecodeBoundsHostileListsAndMaps: a state whose lists of strings,
// maps, or lists of structs other than the tenancy's objects hold a great
// many short elements, with a digest that matches, is refused once the
// elements are more bytes than the file's (jsonfile.List, Map, Element),
// at the element's pointer, having allocated a few times the file's bytes
// at most. Before, each was read whole: 31 to 34 bytes allocated per byte
// for the lists of strings and the maps, 48 to 206 for the lists of
// structs (a million entries of 4 MB).
func TestDecodeBoundsHostileListsAndMaps(t *testing.T) {
	_, base := sealedState(t, "")
	s := string(base)
	rep := func(old, new string) []byte {
		if !strings.Contains(s, old) {
			t.Fatalf("the state has no %q", old)
		}
		return reseal(t, []byte(strings.Replace(s, old, new, 1)))
	}
	top := func(member, val string) []byte {
		return rep(`  "not_read": [`, fmt.Sprintf("  %q: %s,\n  \"not_read\": [", member, val))
	}
	empties := repeated(`""`, containerKB)
	objects := repeated(`{}`, containerKB)
	entries := members(containerKB/9, `""`, false)
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"a project's gitops", rep(`"metadata":{"name":"workspace"`, `"metadata":{"name":"workspace","gitops":{`+entries+`}`),
			"line 9: /projects/0/metadata/gitops/b48: " + tooMany(91608, 26071)},
		{"a project's defaultNodePools", rep(`"spec":{"parent":"platform"`, `"spec":{"parent":"platform","defaultNodePools":`+empties),
			"line 9: /projects/0/spec/defaultNodePools/5056: " + tooMany(81096, 15552)},
		{"the source's paths", rep(`"commit":"c0ffee"`, `"commit":"c0ffee","paths":`+empties), "line 5: /source/paths/5056: " + tooMany(80912, 15375)},
		{"a node's labels", top("nodes", `[{"name":"a","labels":{`+entries+`}}]`), "line 11: /nodes/0/labels/b51: " + tooMany(92320, 26783)},
		{"a node's capacity", top("nodes", `[{"name":"a","capacity":{`+members(containerKB/10, `"0"`, false)+`}}]`),
			"line 11: /nodes/0/capacity/bd5: " + tooMany(96544, 31002)},
		{"a live Queue's allocated", top("live_queues", `[{"name":"a","allocated":{`+entries+`}}]`),
			"line 11: /live_queues/0/allocated/b53: " + tooMany(92368, 26810)},
		{"an origin's values out of order", rep(`"values":{`, `"values":{`+members(containerKB/16, `"1:1 0 x"`, true)+","),
			"line 9: /projects/0/origin/values/7c98: " + tooMany(80888, 15344)},
		{"an other document's patches", top("other_documents", `[{"file":"a","line":1,"patches":`+objects+`}]`),
			"line 11: /other_documents/0/patches/563: " + tooMany(68264, 2685)},
		{"a profile's reminders", top("profile", `{"file":"a","reminders":`+objects+`}`), "line 11: /profile/reminders/1784: " + tooMany(71888, 6332)},
		{"a profile's mirrors", top("profile", `{"file":"a","resource_quota_mirrors":`+objects+`}`), "line 11: /profile/resource_quota_mirrors/776: " + tooMany(68864, 3321)},
		{"an expectation's variables", top("profile", `{"file":"a","expectations":[{"file":"a","variables":`+objects+`}]}`),
			"line 11: /profile/expectations/0/variables/1245: " + tooMany(70312, 4743)},
		{"the managed nodes' terms", top("managed_nodes_config", `{"metadata":{"name":"a"},"nodeSelectorTerms":`+objects+`}`),
			"line 11: /managed_nodes_config/nodeSelectorTerms/3145: " + tooMany(75992, 10449)},
		{"a term's expressions", top("managed_nodes_config", `{"metadata":{"name":"a"},"nodeSelectorTerms":[{"matchExpressions":`+objects+`}]}`),
			"line 11: /managed_nodes_config/nodeSelectorTerms/0/matchExpressions/1246: " + tooMany(70344, 4773)},
		{"an expression's values", top("managed_nodes_config", `{"metadata":{"name":"a"},"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"In","values":`+empties+`}]}]}`),
			"line 11: /managed_nodes_config/nodeSelectorTerms/0/matchExpressions/0/values/5079: " + tooMany(81848, 16309)},
	} {
		var err error
		got := allocated(func() { _, err = Decode("state.json", c.b) })
		if want := "state.json: not a krmplan snapshot: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s: got %v\nwant %s", c.name, err, want)
		}
		if got > allocBound*uint64(len(c.b)) {
			t.Errorf("%s: the decoding allocated %d bytes for a file of %d, more than %d per byte", c.name, got, len(c.b), allocBound)
		}
	}
}

// TestDecodeBoundsTheWholeFile: the projects of a state laid out as
// Marshal writes it, one a line, are decoded apart on every core, but
// counted in one budget: a state of projects each of whose gitops maps is
// far below the first 64 kB on its own (1,000 entries) is refused as a
// file of one such map is. Before (a budget for each project), it was
// read whole: 37 bytes allocated per byte.
func TestDecodeBoundsTheWholeFile(t *testing.T) {
	_, base := sealedState(t, "")
	s := string(base)
	i := strings.Index(s, "    {\"metadata\"")
	j := i + strings.Index(s[i:], "\n")
	project := strings.Replace(s[i:j], `"metadata":{"name":"workspace"`, `"metadata":{"name":"workspace","gitops":{`+members(1000, `""`, false)+`}`, 1)
	lines := strings.Repeat(project+",\n", 4*containerKB/len(project))
	b := reseal(t, []byte(s[:i]+lines+s[i:]))
	var err error
	got := allocated(func() { _, err = Decode("state.json", b) })
	if want := "state.json: not a krmplan snapshot: line 11: /projects/2/metadata/gitops/3cb: " + tooMany(93128, 27574); err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if got > allocBound*uint64(len(b)) {
		t.Errorf("the decoding allocated %d bytes for a file of %d, more than %d per byte", got, len(b), allocBound)
	}
}

// tooMany is jsonfile.TooManyError's words.
func tooMany(made, read int64) string {
	return (&jsonfile.TooManyError{Made: made, Read: read}).Error()
}
