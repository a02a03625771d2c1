package fairshare

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/krmplan/krmplan/quota"
)

// spec builds a queue from "name key=value ...": d, l, w are the gpu
// deserved, limit and overQuotaWeight (omitted: 0, as KAI reads them),
// md, ml, mw the memory ones, cd, cl, cw the cpu ones; full, idle or
// req=N (req of every resource) is the demand (default idle); p= the
// priority, parent=, t= the creation time (RFC 3339), u= the gpu usage.
func spec(t *testing.T, s string) Queue {
	t.Helper()
	f := strings.Fields(s)
	q := Queue{Name: f[0]}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		val := func() quota.Value { return quota.MustParse(v) }
		switch k {
		case "d":
			q.Quota.GPU.Deserved = val()
		case "l":
			q.Quota.GPU.Limit = val()
		case "w":
			q.Quota.GPU.OverQuotaWeight = val()
		case "md":
			q.Quota.Memory.Deserved = val()
		case "ml":
			q.Quota.Memory.Limit = val()
		case "mw":
			q.Quota.Memory.OverQuotaWeight = val()
		case "cd":
			q.Quota.CPU.Deserved = val()
		case "cl":
			q.Quota.CPU.Limit = val()
		case "cw":
			q.Quota.CPU.OverQuotaWeight = val()
		case "full":
			q.Demand = PerResource[Demand]{Full, Full, Full}
		case "idle":
		case "req":
			d := Demand{Amount: val()}
			q.Demand = PerResource[Demand]{d, d, d}
		case "p":
			var p int
			fmt.Sscan(v, &p)
			q.Priority = &p
		case "parent":
			q.Parent = v
		case "t":
			tm, err := time.Parse(time.RFC3339, v)
			if err != nil {
				t.Fatal(err)
			}
			q.Created = tm
		case "u":
			fmt.Sscan(v, &q.Usage.GPU)
		default:
			t.Fatalf("spec %q: unknown key %q", s, k)
		}
	}
	return q
}

// gpuPool is a pool of capacity cards whose cpu and memory are unknown.
func gpuPool(t *testing.T, capacity string, specs ...string) Pool {
	t.Helper()
	c := quota.MustParse(capacity)
	p := Pool{Capacity: PerResource[*quota.Value]{GPU: &c}}
	for _, s := range specs {
		p.Queues = append(p.Queues, spec(t, s))
	}
	return p
}

// shares prints resource r's shares as "name=share ..." in queue order,
// with "~" after a share marked AgeTie and "!" after one with a Float
// mark.
func shares(t *testing.T, p Pool, r quota.Resource) string {
	t.Helper()
	res, err := Divide(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range res.Queues {
		s := q.Share.At(r)
		mark := ""
		if s.AgeTie {
			mark += "~"
		}
		if s.Float.Uncertain() {
			mark += "!"
		}
		v := s.FairShare().String()
		switch {
		case q.Dropped != "":
			v = "dropped"
		case !s.Known:
			v = "?"
		}
		out = append(out, q.Name+"="+v+mark)
	}
	return strings.Join(out, " ")
}

func TestRules(t *testing.T) {
	for _, c := range []struct {
		rule     string
		capacity string
		queues   []string
		want     string
	}{
		{"deserved is granted in full, never scaled down; an idle queue gets 0", "10",
			[]string{"a d=6 l=-1 w=1 full", "b d=5 l=-1 w=1 full", "c d=4 l=-1 w=1 idle"}, "a=6 b=5 c=0"},
		{"-1 deserved is the whole amount divided, beside the others' deserved", "10",
			[]string{"a d=-1 l=-1 w=1 full", "b d=3 l=-1 w=1 full"}, "a=10 b=3"},
		{"a limit below deserved caps the guarantee; weight 0 alone borrows nothing", "10",
			[]string{"a d=5 l=2 w=1 full", "b l=-1 full"}, "a=2 b=0"},
		{"an omitted limit is a ceiling of 0", "10",
			[]string{"a d=3 w=1 full", "b d=1 l=-1 full"}, "a=0 b=1"},
		{"weight 0 never borrows, even alone: the cards stay unassigned", "10",
			[]string{"a d=1 l=-1 full"}, "a=1"},
		{"strict bands; the higher band's rounding remainder falls through to the lower", "10",
			[]string{"h1 l=-1 w=1 p=200 full", "h2 l=-1 w=1 p=200 full", "h3 l=-1 w=1 p=200 full", "low l=-1 w=1 p=100 full"},
			"h1=3 h2=3 h3=3 low=1"},
		{"a lower band gets nothing while a higher band still wants more", "20",
			[]string{"high d=2 l=-1 w=1 p=200 full", "low d=2 l=-1 w=1 full"}, "high=18 low=2"},
		{"an omitted priority is 100: one band with an explicit 100", "4",
			[]string{"a l=-1 w=1 p=100 full", "b l=-1 w=1 full"}, "a=2 b=2"},
		{"priority -5 is below 0", "4",
			[]string{"a l=-1 w=1 p=-5 full", "b l=-1 w=1 p=0 full"}, "a=0 b=4"},
		{"whole cards per round: two thirds of a card is 0, then the leftover step", "2",
			[]string{"a l=-1 w=1 full", "b l=-1 w=1 full", "c l=-1 w=1 full"}, "a=1~ b=1~ c=0~"},
		{"a new round when a queue needed strictly less than its share", "10",
			[]string{"a l=-1 w=1 req=2", "b l=-1 w=1 full", "c l=-1 w=1 full"}, "a=2 b=4 c=4"},
		{"a queue that needs exactly its share starts no new round: leftovers instead", "10",
			[]string{"a l=-1 w=2 req=5", "b l=-1 w=1 full", "c l=-1 w=1 full"}, "a=5 b=3~ c=2~"},
		{"... while one unit less does", "10",
			[]string{"a l=-1 w=2 req=4", "b l=-1 w=1 full", "c l=-1 w=1 full"}, "a=4 b=3 c=3"},
		{"leftovers by remainder, largest first", "10",
			[]string{"a l=-1 w=1 full", "b l=-1 w=2 full"}, "a=3 b=7"},
		{"leftovers by age on equal remainders: the older queue first", "3",
			[]string{"a l=-1 w=1 full t=2025-02-01T00:00:00Z", "b l=-1 w=1 full t=2025-01-01T00:00:00Z"}, "a=1 b=2"},
		{"equal ages: by name, and that is certain", "3",
			[]string{"b l=-1 w=1 full t=2025-01-01T00:00:00Z", "a l=-1 w=1 full t=2025-01-01T00:00:00Z"}, "b=1 a=2"},
		{"an unknown age sorts after a known one, and both could differ", "3",
			[]string{"a l=-1 w=1 full", "b l=-1 w=1 full t=2025-01-01T00:00:00Z"}, "a=1~ b=2~"},
		{"the leftover is min(1, what is left)", "10.5",
			[]string{"a l=-1 w=1 full", "b l=-1 w=1 full", "c l=-1 w=1 full"}, "a=4~ b=3.5~ c=3~"},
		{"the leftover ignores the limit", "5",
			[]string{"a l=2.7 w=1 full", "b l=-1 w=1 full"}, "a=3~ b=2~"},
		{"the leftover ignores the demand", "5",
			[]string{"a l=-1 w=1 req=2.7", "b l=-1 w=1 full"}, "a=3~ b=2~"},
		{"a queue satisfied in a later round drops its remainder entry", "10",
			[]string{"a l=-1 w=1 req=2", "b l=-1 w=1 req=3.5", "c l=-1 w=1 full"}, "a=2 b=3.5 c=4.5"},
		{"a negative gpu deserved gives a negative grant and more surplus", "10",
			[]string{"a d=-3 l=-1 w=1 full", "b l=-1 w=1 full"}, "a=4~ b=6~"},
		{"a gpu limit of -2 is a limit, below 0", "10",
			[]string{"a d=1 l=-2 w=1 full", "b l=-1 w=1 full"}, "a=-2 b=12"},
		{"a queue whose parent is missing is dropped with its children", "10",
			[]string{"a l=-1 w=1 full", "o l=-1 w=1 parent=gone", "oc l=-1 w=1 parent=o full"}, "a=10 o=dropped oc=dropped"},
		{"a parent cycle is never divided", "10",
			[]string{"a l=-1 w=1 full", "x l=-1 w=1 parent=y full", "y l=-1 w=1 parent=x full"}, "a=10 x=dropped y=dropped"},
	} {
		t.Run(c.rule, func(t *testing.T) {
			if got := shares(t, gpuPool(t, c.capacity, c.queues...), quota.GPU); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestHierarchy(t *testing.T) {
	for _, c := range []struct {
		rule     string
		capacity string
		queues   []string
		want     string
	}{
		{"children divide the parent's fair share; their deserved is granted in full, even beyond it", "10",
			[]string{"dept d=2 l=4 w=1", "k1 d=3 l=-1 w=1 parent=dept full", "k2 d=3 l=-1 w=1 parent=dept full", "root l=-1 w=1 full"},
			"dept=4 k1=3 k2=3 root=6"},
		{"children's limits are not carried up: the department's surplus is stranded", "10",
			[]string{"a d=2 l=-1 w=1", "a1 l=1 w=1 parent=a full", "a2 l=1 w=1 parent=a full",
				"b d=2 l=-1 w=1", "b1 l=-1 w=1 parent=b full"},
			"a=5 a1=1 a2=1 b=5 b1=5"},
		{"a department without demanding projects claims nothing", "10",
			[]string{"a d=4 l=-1 w=1", "a1 d=1 l=-1 w=1 parent=a idle", "b d=2 l=-1 w=1", "b1 l=-1 w=1 parent=b full"},
			"a=0 a1=0 b=10 b1=10"},
		{"a project's priority ranks it among its siblings only", "10",
			[]string{"a d=1 l=-1 w=1 p=50", "a1 l=-1 w=1 p=500 parent=a full", "b d=1 l=-1 w=1 p=100", "b1 l=-1 w=1 parent=b full"},
			"a=1 a1=1 b=9 b1=9"},
		{"a project's -1 deserved is its department's whole fair share", "10",
			[]string{"a d=3 l=-1", "a1 d=-1 l=-1 parent=a full", "b d=7 l=-1", "b1 d=7 l=-1 parent=b full"},
			"a=3 a1=3 b=7 b1=7"},
		{"a tie decided by name at the top makes the children uncertain too", "3",
			[]string{"a l=-1 w=1", "a1 d=1 l=-1 w=1 parent=a full", "a2 d=1 l=-1 w=1 parent=a full", "b l=-1 w=1 full"},
			"a=2~ a1=1~ a2=1~ b=1~"},
	} {
		t.Run(c.rule, func(t *testing.T) {
			if got := shares(t, gpuPool(t, c.capacity, c.queues...), quota.GPU); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestInternalUnits: floors are whole millicores and whole bytes, and
// memory values are MB × 10^6 bytes with negatives read as -1.
func TestInternalUnits(t *testing.T) {
	one, thousand, hundred := quota.MustParse("1"), quota.MustParse("1000"), quota.MustParse("100")
	p := Pool{Capacity: PerResource[*quota.Value]{CPU: &thousand, Memory: &one}}
	for _, n := range []string{"a", "b", "c"} {
		p.Queues = append(p.Queues, spec(t, n+" cl=-1 cw=1 ml=-1 mw=1 full"))
	}
	if got, want := shares(t, p, quota.CPU), "a=334~ b=333~ c=333~"; got != want {
		t.Errorf("cpu: got %s, want %s", got, want)
	}
	if got, want := shares(t, p, quota.Memory), "a=0.333334~ b=0.333333~ c=0.333333~"; got != want {
		t.Errorf("memory: got %s, want %s", got, want)
	}
	if got := shares(t, p, quota.GPU); got != "a=? b=? c=?" {
		t.Errorf("gpu of unknown capacity: %s", got)
	}
	p = Pool{Capacity: PerResource[*quota.Value]{Memory: &hundred}, Queues: []Queue{
		spec(t, "a md=-5 ml=-2 mw=1 full"), spec(t, "b md=10 ml=-0.5 mw=1 full")}}
	// -5 MB deserved reads as -1: the whole 100 MB; -2 MB limit as none.
	if got, want := shares(t, p, quota.Memory), "a=100 b=10"; got != want {
		t.Errorf("negative memory: got %s, want %s", got, want)
	}
}

// TestTimeBasedTerm: KAI's weights max(0, n + k(n − usage)).
func TestTimeBasedTerm(t *testing.T) {
	k0, k1 := 0.0, 1.0
	for _, c := range []struct {
		k    *float64
		qs   []string
		want string
	}{
		{nil, []string{"a l=-1 w=1 u=0.5 full", "b l=-1 w=1 full"}, "a=3 b=6"},
		{&k1, []string{"a l=-1 w=1 u=1 full", "b l=-1 w=1 full"}, "a=0 b=9"},
		{&k0, []string{"a l=-1 w=1 u=0.5 full", "b l=-1 w=1 full"}, "a=5~ b=4~"},
	} {
		p := gpuPool(t, "9", c.qs...)
		p.KValue = c.k
		if got := shares(t, p, quota.GPU); got != c.want {
			t.Errorf("kValue %v %v: got %s, want %s", c.k, c.qs, got, c.want)
		}
	}
}

// TestAgeTieMarks: with equal remainders, a queue of known age keeps its
// place among the known ones; an unknown age could be anywhere.
func TestAgeTieMarks(t *testing.T) {
	p := gpuPool(t, "6",
		"a l=-1 w=1 full t=2025-01-01T00:00:00Z", "b l=-1 w=1 full t=2025-01-02T00:00:00Z",
		"c l=-1 w=1 full t=2025-01-03T00:00:00Z", "d l=-1 w=1 full")
	// Shares 1.5 each: one card each, then the two left over in the order
	// a, b, c, d. With d anywhere, a gets one in every order, c none.
	if got, want := shares(t, p, quota.GPU), "a=2 b=2~ c=1 d=1~"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestDivideErrors(t *testing.T) {
	bad := 1.0
	for _, c := range []struct {
		pool Pool
		want string
	}{
		{Pool{Queues: []Queue{{Name: "a"}, {Name: "a"}}}, `queue "a" is given twice`},
		{Pool{Queues: []Queue{{Name: "a"}, {}}}, `queue 2 has no name`},
		{Pool{Queues: []Queue{{Name: "a", Usage: PerResource[float64]{CPU: bad / 0}}}}, `queue "a": cpu usage +Inf is not a finite number`},
	} {
		if _, err := Divide(c.pool); err == nil || err.Error() != c.want {
			t.Errorf("Divide: %v, want %s", err, c.want)
		}
	}
	nan := 0.0
	nan /= nan
	if _, err := Divide(Pool{KValue: &nan}); err == nil || err.Error() != "kValue NaN is not a finite number" {
		t.Errorf("NaN kValue: %v", err)
	}
}

// TestDroppedReasons names why each dropped queue is not divided.
func TestDroppedReasons(t *testing.T) {
	res, err := Divide(gpuPool(t, "1", "o parent=gone", "oc parent=o", "x parent=y", "y parent=x"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range res.Queues {
		got = append(got, q.Name+": "+q.Dropped)
	}
	sort.Strings(got)
	want := []string{
		`o: its parent queue "gone" is not in the pool: KAI deletes it with its descendants`,
		`oc: its parent queue "o" is dropped`,
		`x: it is not under a top-level queue (its parents form a cycle, or one is dropped): KAI never divides it`,
		`y: it is not under a top-level queue (its parents form a cycle, or one is dropped): KAI never divides it`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDivideConcurrent: Divide and Explain share pooled buffers; divisions
// running at once must not see each other's.
func TestDivideConcurrent(t *testing.T) {
	pools := benchPools(500)
	want := make([]string, len(pools))
	for i, p := range pools {
		res, err := Divide(p)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = fmt.Sprint(got(res))
	}
	errs := make(chan string, 4)
	for w := range 4 {
		go func() {
			for i := range pools {
				j := (i + w*7) % len(pools)
				res, err := Divide(pools[j])
				if _, err2 := Explain(pools[j], pools[j].Queues[0].Name); err != nil || err2 != nil || fmt.Sprint(got(res)) != want[j] {
					errs <- fmt.Sprintf("pool %d differs when divided concurrently (%v, %v)", j, err, err2)
					return
				}
			}
			errs <- ""
		}()
	}
	for range 4 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestOverQuotaOfMinusOne: a negative deserved (KRM accepts one) can make
// a fair share of exactly -1, which is a number here, not "unlimited":
// b is guaranteed -2, gets 1 in the round and no leftover (a wins the
// tie by name), so its share is -1 and its over-quota part 1.
func TestOverQuotaOfMinusOne(t *testing.T) {
	p := gpuPool(t, "1", "b d=-2 l=-1 w=1 full", "a d=0 l=-1 w=1 full")
	if got := shares(t, p, quota.GPU); got != "b=-1~ a=2~" {
		t.Fatalf("shares %s", got)
	}
	res, err := Divide(p)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Queues[0].Share.GPU
	if g, o := s.Guaranteed().String(), s.OverQuota().String(); g != "-2" || o != "1" {
		t.Errorf("b: guaranteed %s, over quota %s; want -2 and 1", g, o)
	}
}
