package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/quota"
)

// TestFairshareAgainstKAI runs every pool KAI Scheduler's own proportion
// plugin divided (fairshare/testdata/kai-examples, the eight examples, and
// fairshare/testdata/kai-random, see their READMEs) through the commands as
// a user runs them: the pool as a tenancy file committed to git and a
// --cluster-data file, `krmplan snapshot --git-repo`, then `krmplan
// fairshare --format json`, and compares every queue's fair share of every
// resource with KAI's, to the unit. A pool KRM cannot express is skipped
// and counted, with the reason (kaiCase.inexpressible).
func TestFairshareAgainstKAI(t *testing.T) {
	var cases []kaiCase
	examples, _ := filepath.Glob("../../fairshare/testdata/kai-examples/*.json")
	if len(examples) != 8 {
		t.Fatalf("%d example files, want 8", len(examples))
	}
	for _, f := range examples {
		var c kaiCase
		readKAIJSON(t, f, &c)
		c.file = filepath.Base(f)
		cases = append(cases, c)
	}
	random, _ := filepath.Glob("../../fairshare/testdata/kai-random/*.json")
	if testing.Short() {
		random = nil
	}
	for _, f := range random {
		var cs []kaiCase
		readKAIJSON(t, f, &cs)
		for i := range cs {
			cs[i].file = fmt.Sprintf("%s #%d", filepath.Base(f), i)
		}
		cases = append(cases, cs...)
	}

	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	skipped, demands := map[string]int{}, map[string]int{}
	var run []int
	for i := range cases {
		c := &cases[i]
		if why := c.inexpressible(); why != "" {
			if i < len(examples) {
				t.Errorf("%s: example not run: %s", c.file, why)
			}
			skipped[why]++
			continue
		}
		run = append(run, i)
		demands[c.demand()]++
		writeTestFile(t, filepath.Join(repo, fmt.Sprintf("pool-%03d.yaml", i)), c.tenancyYAML())
		writeTestFile(t, filepath.Join(dir, fmt.Sprintf("cluster-%03d.json", i)), c.clusterData(t))
	}
	gitCommitAll(t, repo)
	for _, i := range run {
		c := &cases[i]
		state := filepath.Join(dir, fmt.Sprintf("state-%03d.json", i))
		krmplanOK(t, c.file, "snapshot", "--git-repo", repo, "--tenancy", fmt.Sprintf("pool-%03d.yaml", i),
			"--cluster-data", filepath.Join(dir, fmt.Sprintf("cluster-%03d.json", i)), "-o", state)
		out := krmplanOK(t, c.file, "fairshare", "--state", state, "--demand", c.demand(), "--format", "json")
		c.compare(t, out)
	}
	want := 150 // the examples and the random pools
	if testing.Short() {
		want = len(examples) // -short runs the examples alone
	}
	if len(run) < want {
		t.Errorf("only %d of %d pools expressible as a tenancy (skipped: %v)", len(run), len(cases), skipped)
	}
	t.Logf("%d pools (--demand %v) through snapshot and fairshare agree with KAI; skipped, as KRM cannot express them: %v",
		len(run), demands, skipped)
}

// kaiCase is a pool KAI divided, in the format of
// fairshare/testdata/kai-examples (its README).
type kaiCase struct {
	file     string
	Name     string                        `json:"name"`
	Nodes    []kaiNode                     `json:"nodes"`
	Capacity *kaiAmount                    `json:"capacity"`
	KValue   *float64                      `json:"kValue"`
	Usage    map[string]map[string]float64 `json:"usage"`
	Queues   []kaiQueue                    `json:"queues"`
	Expected map[string]kaiAmount          `json:"expected"`
	// ExpectedCapacity is what KAI counted from the nodes.
	ExpectedCapacity *kaiAmount             `json:"expectedCapacity"`
	Variants         []map[string]kaiAmount `json:"variants"`
}

type kaiNode struct {
	Name          string            `json:"name"`
	Allocatable   map[string]string `json:"allocatable"`
	Ready         *bool             `json:"ready"`
	Unschedulable bool              `json:"unschedulable"`
}

// kaiAmount is gpu cards, cpu millicores, memory MB.
type kaiAmount struct {
	GPU    *json.Number `json:"gpu"`
	CPU    *json.Number `json:"cpu"`
	Memory *json.Number `json:"memoryMB"`
}

func (a kaiAmount) at(r quota.Resource) *json.Number {
	switch r {
	case quota.GPU:
		return a.GPU
	case quota.CPU:
		return a.CPU
	}
	return a.Memory
}

type kaiQuota struct {
	Deserved        quota.Value `json:"deserved"`
	Limit           quota.Value `json:"limit"`
	OverQuotaWeight quota.Value `json:"overQuotaWeight"`
}

type kaiQueue struct {
	Name              string          `json:"name"`
	Parent            string          `json:"parent"`
	Priority          *int            `json:"priority"`
	CreationTimestamp string          `json:"creationTimestamp"`
	GPU               *kaiQuota       `json:"gpu"`
	CPU               *kaiQuota       `json:"cpu"`
	Memory            *kaiQuota       `json:"memory"`
	Request           json.RawMessage `json:"request"`
	NoResources       bool            `json:"noResources"`
}

func (q *kaiQueue) quota(r quota.Resource) *kaiQuota {
	switch r {
	case quota.GPU:
		return q.GPU
	case quota.CPU:
		return q.CPU
	}
	return q.Memory
}

// request is "" (none), "full", or the amounts' JSON.
func (q *kaiQueue) request() string {
	s := strings.TrimSpace(string(q.Request))
	if s == `"full"` {
		return "full"
	}
	return s
}

// inexpressible says why KRM's tenancy cannot hold the pool, "" when it
// can: a KRM tenancy is two levels (departments, their projects), a
// department runs no workloads of its own, a project's queue whose
// department has no queue on the pool is a root queue rather than one KAI
// drops, a snapshot holds no historical usage, and KAI counts a Node's
// allocatable in whole cards, millicores and bytes (rounded up).
func (c *kaiCase) inexpressible() string {
	if c.Capacity != nil && !wholeUnits(*c.Capacity) {
		return "a capacity in fractions of a card, millicore or byte"
	}
	byName := map[string]*kaiQueue{}
	for i := range c.Queues {
		byName[c.Queues[i].Name] = &c.Queues[i]
	}
	if (c.KValue != nil && *c.KValue != 0) || len(c.Usage) > 0 {
		return "historical usage"
	}
	for i := range c.Queues {
		q := &c.Queues[i]
		if q.Parent == "" {
			continue
		}
		p := byName[q.Parent]
		switch {
		case p == nil:
			return "a queue whose parent is not in the pool"
		case p.Parent != "":
			return "three levels"
		case p.request() != "":
			return "a parent queue with requests of its own"
		}
	}
	return ""
}

// children counts each queue's children.
func (c *kaiCase) children() map[string]int {
	n := map[string]int{}
	for _, q := range c.Queues {
		if q.Parent != "" {
			n[q.Parent]++
		}
	}
	return n
}

// demand is the --demand the pool needs: full when every child queue and
// every childless top-level queue that requests anything requests without
// bound (a childless top-level queue that requests nothing is then a
// department without projects); live, with each leaf's requested, else.
func (c *kaiCase) demand() string {
	kids := c.children()
	for _, q := range c.Queues {
		r := q.request()
		switch {
		case kids[q.Name] > 0:
		case q.Parent != "" && r != "full", q.Parent == "" && r != "" && r != "full":
			return "live"
		}
	}
	return "full"
}

// department reports whether queue q is a department's: a top-level queue
// with children, or under full demand a childless one that requests
// nothing.
func (c *kaiCase) department(q *kaiQueue, kids map[string]int) bool {
	return q.Parent == "" && (kids[q.Name] > 0 || (c.demand() == "full" && q.request() == ""))
}

// tenancyYAML is the pool as KRM objects: NodePool p, a Department per
// parent queue, a Project per other queue, each with one queue of the
// case's name on p. A top-level project queue is a project of Department
// elsewhere, which has no queue on p (KRM then makes the project's queue
// a root queue of p).
func (c *kaiCase) tenancyYAML() string {
	var b strings.Builder
	b.WriteString("apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: p}\nspec: {labelKey: example.com/pool, labelValue: p}\n" +
		"---\napiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: elsewhere}\nspec: {queues: []}\n")
	kids := c.children()
	for i := range c.Queues {
		q := &c.Queues[i]
		kind, parent := "Project", "  parent: elsewhere\n"
		switch {
		case c.department(q, kids):
			kind, parent = "Department", ""
		case q.Parent != "":
			parent = "  parent: " + q.Parent + "\n"
		}
		fmt.Fprintf(&b, "---\napiVersion: kai.resources/v1alpha1\nkind: %s\nmetadata: {name: %s}\nspec:\n%s  queues:\n    - name: %s\n      nodepool: p\n",
			kind, q.Name, parent, q.Name)
		if q.Priority != nil {
			fmt.Fprintf(&b, "      priority: %d\n", *q.Priority)
		}
		if q.NoResources {
			continue
		}
		b.WriteString("      resources:\n")
		for _, r := range quota.Resources {
			if qq := q.quota(r); qq != nil {
				fmt.Fprintf(&b, "        %s: {deserved: %s, limit: %s, overQuotaWeight: %s}\n", r, qq.Deserved, qq.Limit, qq.OverQuotaWeight)
			}
		}
	}
	return b.String()
}

// clusterData is the --cluster-data file: the case's nodes (or one node
// of the case's capacity) labelled for pool p, and under live demand or
// where ages are known a live Queue per queue, with its creationTimestamp
// and its requested ("full" as KAI's run asked: 10^12 cards, 10^15
// millicores, 10^21 bytes).
func (c *kaiCase) clusterData(t *testing.T) string {
	type node struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Allocatable map[string]string `json:"allocatable"`
		Ready       bool              `json:"ready"`
		Cordoned    bool              `json:"cordoned"`
	}
	type liveQueue struct {
		Name              string            `json:"name"`
		Requested         map[string]string `json:"requested,omitempty"`
		CreationTimestamp string            `json:"creationTimestamp,omitempty"`
	}
	doc := struct {
		Nodes      []node      `json:"nodes"`
		LiveQueues []liveQueue `json:"live_queues"`
		Namespaces []string    `json:"namespaces"`
	}{LiveQueues: []liveQueue{}, Namespaces: []string{}}
	labels := map[string]string{"example.com/pool": "p"}
	for _, n := range c.Nodes {
		doc.Nodes = append(doc.Nodes, node{Name: n.Name, Labels: labels, Allocatable: n.Allocatable,
			Ready: n.Ready == nil || *n.Ready, Cordoned: n.Unschedulable})
	}
	if c.Capacity != nil {
		doc.Nodes = append(doc.Nodes, node{Name: "node", Labels: labels, Ready: true,
			Allocatable: quantities(t, *c.Capacity)})
	}
	live := c.demand() == "live"
	for _, q := range c.Queues {
		lq := liveQueue{Name: q.Name, CreationTimestamp: q.CreationTimestamp}
		switch r := q.request(); {
		case !live:
		case r == "full":
			lq.Requested = map[string]string{"nvidia.com/gpu": "1e12", "cpu": "1e12", "memory": "1e21"}
		case r != "":
			var a kaiAmount
			if err := json.Unmarshal(q.Request, &a); err != nil {
				t.Fatalf("%s: queue %s: request: %v", c.file, q.Name, err)
			}
			lq.Requested = quantities(t, a)
		}
		if lq.Requested != nil || lq.CreationTimestamp != "" {
			doc.LiveQueues = append(doc.LiveQueues, lq)
		}
	}
	if len(doc.LiveQueues) == 0 && !live {
		doc.LiveQueues = nil // no Queue read: ages unknown, as in git
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// quantities writes amounts in KRM units as a Kubernetes resource list:
// cards, millicores ("m"), MB ("M").
func quantities(t *testing.T, a kaiAmount) map[string]string {
	out := map[string]string{}
	for _, r := range quota.Resources {
		n := a.at(r)
		if n == nil {
			continue
		}
		v, err := quota.Parse(n.String())
		if err != nil {
			t.Fatalf("%s %s: %v", r, n, err)
		}
		out[map[quota.Resource]string{quota.GPU: "nvidia.com/gpu", quota.CPU: "cpu", quota.Memory: "memory"}[r]] =
			v.String() + map[quota.Resource]string{quota.GPU: "", quota.CPU: "m", quota.Memory: "M"}[r]
	}
	return out
}

// compare checks the fairshare document against KAI's shares: every queue
// of the case present, each resource's fair_share equal to KAI's (or to
// another of KAI's runs, or marked order_dependent where KAI's own runs
// differ, or within the last of 18 decimals where marked rounded).
func (c *kaiCase) compare(t *testing.T, out string) {
	t.Helper()
	var doc struct {
		Pools []struct {
			NodePool string                  `json:"node_pool"`
			Capacity map[string]*json.Number `json:"capacity"`
			Queues   []struct {
				Queue     string                  `json:"queue"`
				FairShare map[string]*json.Number `json:"fair_share"`
				Float64   map[string]struct {
					OrderDependent bool `json:"order_dependent"`
					Rounded        bool `json:"rounded"`
				} `json:"float64"`
			} `json:"queues"`
		} `json:"pools"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: fairshare --format json: %v\n%s", c.file, err, out)
	}
	if len(doc.Pools) != 1 || doc.Pools[0].NodePool != "p" {
		t.Fatalf("%s: want the one pool p, got %s", c.file, out)
	}
	pool := doc.Pools[0]
	if e := c.ExpectedCapacity; e != nil {
		for _, r := range quota.Resources {
			if !sameNumber(e.at(r), pool.Capacity[string(r)]) {
				t.Errorf("%s: capacity %s: KAI %v, krmplan %v", c.file, r, e.at(r), pool.Capacity[string(r)])
			}
		}
	}
	seen := map[string]bool{}
	for _, q := range pool.Queues {
		seen[q.Queue] = true
		want, ok := c.Expected[q.Queue]
		if !ok {
			t.Errorf("%s: queue %s is not in KAI's result", c.file, q.Queue)
			continue
		}
		for _, r := range quota.Resources {
			have, mark := q.FairShare[string(r)], q.Float64[string(r)]
			if sameNumber(want.at(r), have) || mark.OrderDependent || (mark.Rounded && within(want.at(r), have, "1e-18")) {
				continue
			}
			if c.inVariants(q.Queue, r, have) {
				continue
			}
			t.Errorf("%s (%s): queue %s %s: KAI %v, krmplan fairshare %v", c.file, c.Name, q.Queue, r, want.at(r), have)
		}
	}
	var missing []string
	for name := range c.Expected {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%s: queues in KAI's result that fairshare does not show: %v", c.file, missing)
	}
}

// inVariants reports whether have is queue's share of r on another of
// KAI's runs.
func (c *kaiCase) inVariants(queue string, r quota.Resource, have *json.Number) bool {
	for _, v := range c.Variants {
		if a, ok := v[queue]; ok && sameNumber(a.at(r), have) {
			return true
		}
	}
	return false
}

// wholeUnits reports whether a is whole cards, millicores and bytes.
func wholeUnits(a kaiAmount) bool {
	for _, r := range quota.Resources {
		x := rat(a.at(r))
		if r == quota.Memory && x != nil {
			x.Mul(x, big.NewRat(1e6, 1))
		}
		if x != nil && !x.IsInt() {
			return false
		}
	}
	return true
}

func rat(n *json.Number) *big.Rat {
	if n == nil {
		return nil
	}
	x, ok := new(big.Rat).SetString(n.String())
	if !ok {
		return nil
	}
	return x
}

// sameNumber compares two JSON numbers as exact rationals; two nulls are
// the same.
func sameNumber(a, b *json.Number) bool {
	x, y := rat(a), rat(b)
	if x == nil || y == nil {
		return x == nil && y == nil && (a == nil) == (b == nil)
	}
	return x.Cmp(y) == 0
}

// within reports whether |a − b| ≤ eps.
func within(a, b *json.Number, eps string) bool {
	x, y := rat(a), rat(b)
	e, _ := new(big.Rat).SetString(eps)
	if x == nil || y == nil {
		return false
	}
	d := new(big.Rat).Sub(x, y)
	return d.Abs(d).Cmp(e) <= 0
}

func readKAIJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitCommitAll commits every file of repo, a new repository.
func gitCommitAll(t *testing.T, repo string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "tenancy"}} {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// krmplanOK runs krmplan ARGS in this process and returns its stdout,
// failing the test on a non-zero exit.
func krmplanOK(t *testing.T, what string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"krmplan"}, args...), strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("%s: krmplan %s: exit %d\n%s", what, strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}
