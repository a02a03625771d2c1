package live

import (
	"fmt"
	"testing"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
)

// TestUsageAsRead: each Queue's usage, read once, is what
// snapshot.LiveQueue.Usage reads from its status every time: the value in
// the spec's units, absent, or the error of a quantity that does not
// parse. Of two Queues of one name the later is the one found.
func TestUsageAsRead(t *testing.T) {
	lqs := []snapshot.LiveQueue{
		{Name: "a", Allocated: map[string]string{"nvidia.com/gpu": "3", "cpu": "1500m", "memory": "3Gi"},
			AllocatedNonPreemptible: map[string]string{"nvidia.com/gpu": "two"}},
		{Name: "b", Allocated: map[string]string{"nvidia.com/gpu": "1"}},
		{Name: "b", Allocated: map[string]string{"nvidia.com/gpu": "5"}},
	}
	qs := Read(lqs)
	var got []string
	for _, name := range []string{"a", "b"} {
		q := qs.Get(name)
		for _, r := range quota.Resources {
			for _, np := range []bool{false, true} {
				v, present, err := q.Usage(r, np)
				wv, wpresent, werr := q.LiveQueue.Usage(r, np)
				if !v.Equal(wv) || present != wpresent || fmt.Sprint(err) != fmt.Sprint(werr) {
					t.Errorf("%s %s non-preemptible %v: read %s %v %v, the status says %s %v %v", name, r, np, v, present, err, wv, wpresent, werr)
				}
				got = append(got, fmt.Sprintf("%s %s %v: %s %v %v", name, r, np, v, present, err))
			}
		}
	}
	want := []string{
		"a gpu false: 3 true <nil>",
		`a gpu true: 0 false nvidia.com/gpu "two": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
		"a cpu false: 1500 true <nil>",
		"a cpu true: 0 false <nil>",
		"a memory false: 3221.225472 true <nil>",
		"a memory true: 0 false <nil>",
		"b gpu false: 5 true <nil>",
		"b gpu true: 0 false <nil>",
		"b cpu false: 0 false <nil>",
		"b cpu true: 0 false <nil>",
		"b memory false: 0 false <nil>",
		"b memory true: 0 false <nil>",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("usage:\n%q\nwant\n%q", got, want)
	}
	if qs.Get("c") != nil {
		t.Error("a Queue c that the snapshot does not have")
	}
}

// TestResourcesCounted: a Queue holds the usage of every resource.
func TestResourcesCounted(t *testing.T) {
	if nResources != len(quota.Resources) {
		t.Fatalf("nResources is %d, quota.Resources has %d", nResources, len(quota.Resources))
	}
}
