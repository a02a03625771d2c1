package fairshare

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/krmplan/krmplan/quota"
)

// caseFile is a pool with the fair shares KAI computed, in the format of
// testdata/kai-examples (see its README); the differential cases in
// testdata/kai-random use it too, with capacity given instead of nodes.
type caseFile struct {
	Name     string      `json:"name"`
	Nodes    []caseNode  `json:"nodes"`
	Capacity *caseAmount `json:"capacity"`
	KValue   *float64    `json:"kValue"`
	Queues   []caseQueue `json:"queues"`
	// Usage is KAI's normalised historical usage per queue and resource
	// (gpu, cpu, memory).
	Usage    map[string]map[string]float64 `json:"usage"`
	Expected map[string]caseAmount
	// ExpectedCapacity is what the pool divides.
	ExpectedCapacity *caseAmount `json:"expectedCapacity"`
	// Variants lists other results KAI gave for the same pool on other
	// runs (its map order differs from run to run); empty when every run
	// agreed.
	Variants []map[string]caseAmount `json:"variants"`
}

type caseNode struct {
	Name          string            `json:"name"`
	Allocatable   map[string]string `json:"allocatable"`
	Ready         *bool             `json:"ready"`
	Unschedulable bool              `json:"unschedulable"`
}

// caseAmount is one amount per resource as a JSON number: KAI's float64
// written in its shortest form (memory in MB: the bytes' shortest form
// with the point moved), compared as exact rationals.
type caseAmount struct {
	GPU    *json.Number `json:"gpu"`
	CPU    *json.Number `json:"cpu"`
	Memory *json.Number `json:"memoryMB"`
}

type caseQuota struct {
	Deserved        quota.Value `json:"deserved"`
	Limit           quota.Value `json:"limit"`
	OverQuotaWeight quota.Value `json:"overQuotaWeight"`
}

type caseQueue struct {
	Name              string          `json:"name"`
	Parent            string          `json:"parent"`
	Priority          *int            `json:"priority"`
	CreationTimestamp string          `json:"creationTimestamp"`
	GPU               *caseQuota      `json:"gpu"`
	CPU               *caseQuota      `json:"cpu"`
	Memory            *caseQuota      `json:"memory"`
	Request           json.RawMessage `json:"request"`
}

func readCase(t *testing.T, path string) caseFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c caseFile
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// readCases reads a file holding a JSON array of cases.
func readCases(t *testing.T, path string) []caseFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cs []caseFile
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cs
}

// pool builds the Pool of a case; capacity from the nodes through
// Capacity unless the case gives it.
func (c *caseFile) pool(t *testing.T) Pool {
	t.Helper()
	var p Pool
	p.KValue = c.KValue
	if c.Capacity != nil {
		for r := range 3 {
			if n := c.Capacity.at(r); n != nil {
				v := quota.MustParse(n.String())
				*p.Capacity.at(r) = &v
			}
		}
	} else {
		nodes := make([]Node, len(c.Nodes))
		for i, n := range c.Nodes {
			nodes[i] = Node{Name: n.Name, Unschedulable: n.Unschedulable, Allocatable: n.Allocatable}
			if n.Ready != nil {
				nodes[i].Conditions = map[string]string{"Ready": map[bool]string{true: "True", false: "False"}[*n.Ready]}
			}
		}
		cp, err := Capacity(nodes)
		if err != nil {
			t.Fatal(err)
		}
		p.Capacity = cp
	}
	for _, cq := range c.Queues {
		q := Queue{Name: cq.Name, Parent: cq.Parent, Priority: cq.Priority}
		if cq.CreationTimestamp != "" {
			tm, err := time.Parse(time.RFC3339, cq.CreationTimestamp)
			if err != nil {
				t.Fatal(err)
			}
			q.Created = tm
		}
		for r, cr := range []*caseQuota{cq.GPU, cq.CPU, cq.Memory} {
			if cr != nil {
				*q.Quota.at(r) = Quota{cr.Deserved, cr.Limit, cr.OverQuotaWeight}
			}
		}
		q.Demand = c.demand(t, cq)
		u := c.Usage[cq.Name]
		q.Usage = PerResource[float64]{u["gpu"], u["cpu"], u["memory"]}
		p.Queues = append(p.Queues, q)
	}
	return p
}

// demand reads "full", an amount per resource ({"gpu": 1}), or nothing.
func (c *caseFile) demand(t *testing.T, cq caseQueue) PerResource[Demand] {
	var d PerResource[Demand]
	switch s := strings.TrimSpace(string(cq.Request)); {
	case s == "":
	case s == `"full"`:
		d = PerResource[Demand]{Full, Full, Full}
	default:
		var a caseAmount
		if err := json.Unmarshal(cq.Request, &a); err != nil {
			t.Fatalf("queue %s: request %s: %v", cq.Name, s, err)
		}
		for r := range 3 {
			if n := a.at(r); n != nil {
				*d.at(r) = Demand{Amount: quota.MustParse(n.String())}
			}
		}
	}
	return d
}

// got returns the division's shares in the case's format, from KAI's
// float64 values (FairShare rounds beyond 18 decimals; KAI does not).
func got(res Result) map[string]caseAmount {
	out := map[string]caseAmount{}
	for _, q := range res.Queues {
		var a caseAmount
		for r := range 3 {
			if s := q.Share.at(r); s.Known {
				n := json.Number(shortest(s.KAI(), shifts[r]))
				*a.ptr(r) = &n
			}
		}
		out[q.Name] = a
	}
	return out
}

// shortest writes f × 10^shift from f's shortest decimal form.
func shortest(f float64, shift int32) string {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	e, _ := strconv.Atoi(exp)
	return fmt.Sprintf("%se%d", mant, e+int(shift))
}

func (a *caseAmount) ptr(r int) **json.Number {
	return []**json.Number{&a.GPU, &a.CPU, &a.Memory}[r]
}

func (a caseAmount) String() string {
	return fmt.Sprintf("gpu %s cpu %s memory %s", a.text(0), a.text(1), a.text(2))
}

// at returns resource r's amount, nil when absent.
func (a caseAmount) at(r int) *json.Number { return *a.ptr(r) }

// text prints resource r's amount in plain decimals, "?" when absent.
func (a caseAmount) text(r int) string {
	n := a.at(r)
	if n == nil {
		return "?"
	}
	x, ok := new(big.Rat).SetString(n.String())
	if !ok {
		return n.String() + "(not a number)"
	}
	s := x.FloatString(40)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func (a caseAmount) equal(b caseAmount) bool { return a.String() == b.String() }

// diff lists the queues whose shares differ, sorted by name.
func diff(want, have map[string]caseAmount) []string {
	var out []string
	for name, w := range want {
		if h, ok := have[name]; !ok || !w.equal(h) {
			out = append(out, fmt.Sprintf("%s: KAI %s, got %s", name, w, h))
		}
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			out = append(out, name+": not in KAI's result")
		}
	}
	sort.Strings(out)
	return out
}

// TestKAIExamples divides the eight pools of ../shared/fairshare-examples
// (copied to testdata/kai-examples) and compares every queue's share of
// every resource, and the capacity counted from the nodes, with what KAI's
// proportion plugin computed.
func TestKAIExamples(t *testing.T) {
	files, _ := filepath.Glob("testdata/kai-examples/*.json")
	if len(files) != 8 {
		t.Fatalf("%d example files, want 8", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := readCase(t, f)
			p := c.pool(t)
			var capGot caseAmount
			for r := range 3 {
				if v := *p.Capacity.at(r); v != nil {
					n := json.Number(v.String())
					*capGot.ptr(r) = &n
				}
			}
			if !capGot.equal(*c.ExpectedCapacity) {
				t.Errorf("capacity %s, KAI divides %s", capGot, c.ExpectedCapacity)
			}
			res, err := Divide(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range diff(c.Expected, got(res)) {
				t.Error(d)
			}
		})
	}
}
