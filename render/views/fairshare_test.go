package views

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner/preview"
	"github.com/krmplan/krmplan/quota"
)

// within80 fails the test for a line of out wider than 80 columns.
func within80(t *testing.T, what, out string) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > fsColumns {
			t.Errorf("%s line %d is %d columns: %q", what, i+1, n, l)
		}
	}
}

func demoPreview(t *testing.T, d preview.Demand) *preview.Preview {
	t.Helper()
	pv, err := preview.Of(plantest.DemoState(t), d, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pv
}

// TestFairShareTextDemo: `krmplan fairshare` on the demo, every pool and
// resource, within 80 columns.
func TestFairShareTextDemo(t *testing.T) {
	var b bytes.Buffer
	if err := FairShareText(&b, demoPreview(t, preview.Full), 0); err != nil {
		t.Fatal(err)
	}
	within80(t, "fairshare", b.String())
	plantest.Golden(t, "fairshare", "demo.txt", b.Bytes())
}

// TestFairShareJSONDemo: the JSON document of the demo.
func TestFairShareJSONDemo(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, NewFairShareJSON(demoPreview(t, preview.Full), 0)); err != nil {
		t.Fatal(err)
	}
	plantest.Golden(t, "fairshare", "demo.json", b.Bytes())
}

// TestFairShareExplainDemo: the steps that give search-ranking-h100 its
// share, its department's level first.
func TestFairShareExplainDemo(t *testing.T) {
	ex, err := demoPreview(t, preview.Full).Explain("search-ranking-h100")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := FairShareExplainText(&b, ex, preview.Full); err != nil {
		t.Fatal(err)
	}
	within80(t, "explain", b.String())
	plantest.Golden(t, "fairshare", "explain-search-ranking-h100.txt", b.Bytes())
}

// TestPlanFairShareMove: the demo's clean plan moves 4 deserved h100
// cards from vision to research; under full demand that costs
// product-ml's queue (and its search-ranking project) one card and gives
// vision's segmentation one, none of which the plan changes.
func TestPlanFairShareMove(t *testing.T) {
	var b bytes.Buffer
	writeFairShareChange(&b, plantest.DemoPlan(t, "move-h100-cards.hcl"), DefaultColumns)
	want := `Fair share under full demand, before and after: what KAI's scheduler gives each
queue when every project queue asks for all it can get.

  Node pool h100, 96 cards, 1344000 millicores, 12000000 MB:
    gpu (cards)                             before     after
    product-ml-h100                             16        15 ~ not in the plan
      search-ranking-h100                        8         7 ~ not in the plan
    research-h100                               28        32 ~
      foundation-models-h100                    15        19 ~
    vision-h100                                 17        14
      detection-h100                            10         6
      segmentation-h100                          3         4   not in the plan
    The plan changes none of product-ml-h100, search-ranking-h100 and
    segmentation-h100, but moves their fair share.
~ could differ by one unit: a leftover unit went by queue name, the queues' ages
(creationTimestamp) unknown.

`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPlanFairShareOverThePool: 104 cards guaranteed on 96: every queue
// still gets its deserved, and the plan says so.
func TestPlanFairShareOverThePool(t *testing.T) {
	var b bytes.Buffer
	writeFairShareChange(&b, plantest.DemoPlan(t, "over-the-pool.hcl"), DefaultColumns)
	out := b.String()
	within80(t, "over-the-pool", out)
	for _, want := range []string{
		"\n    After the plan, the guarantees at the top of the pool add up to 104 cards, 8\n    more than the pool's 96: every queue still gets its deserved (KAI never\n    scales a guarantee down), and nothing is left to share over quota.\n",
		"\n    research-h100                               28        43 ~\n",
		"\n      interpretability-h100                      3         7 ~ not in the plan\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "millicores more") {
		t.Errorf("cpu's oversubscription, which the plan does not change, is said:\n%s", out)
	}
}

// TestPlanFairShareDocs: the markdown table and the JSON member of the
// demo's clean plan.
func TestPlanFairShareDocs(t *testing.T) {
	p := plantest.DemoPlan(t, "move-h100-cards.hcl")
	plantest.Golden(t, "fairshare", "move-h100-cards.md", []byte(mdFairShare(p)))
	fs := newPlanFairShare(p)
	var got []string
	for _, c := range fs.Changes {
		got = append(got, c.NodePool+"/"+c.Queue+"/"+strings.Join(c.Resources, ",")+"/"+map[bool]string{true: "touched", false: "moved"}[c.Touched])
	}
	want := "h100/product-ml-h100/gpu/moved h100/search-ranking-h100/gpu/moved h100/research-h100/gpu/touched h100/foundation-models-h100/gpu/touched " +
		"h100/vision-h100/gpu/touched h100/detection-h100/gpu/touched h100/segmentation-h100/gpu/moved"
	if strings.Join(got, " ") != want {
		t.Errorf("changes %s\nwant %s", strings.Join(got, " "), want)
	}
	if len(fs.Before.Pools) != 1 || len(fs.After.Pools) != 1 || fs.After.Pools[0].NodePool != "h100" || len(fs.After.Pools[0].Queues) != 27 || fs.NotPreviewed != "" {
		t.Errorf("pools before %d, after %d, not previewed %q", len(fs.Before.Pools), len(fs.After.Pools), fs.NotPreviewed)
	}
	for _, q := range fs.After.Pools[0].Queues {
		if q.Queue == "search-ranking-h100" && (q.FairShare.GPU.String() != "7" || q.Guaranteed.GPU.String() != "7" || q.OverQuota.GPU.String() != "0" || strings.Join(q.AgeTie, ",") != "gpu,cpu,memory") {
			t.Errorf("search-ranking-h100 after: %+v", q)
		}
	}
}

// fullFairShareDoc is a fair-share document with every optional member
// set, for TestJSONDocumented.
func fullFairShareDoc() any {
	one := quota.FromInt(1)
	q := JSONFairShareQueue{Queue: "q", Kind: "Project", Owner: "p", ParentQueue: "d", FairShare: JSONAmounts{GPU: &one},
		AgeTie: []string{"gpu"}, Float64: map[string]JSONFloat{"gpu": {Exact: &one}}, Dropped: "x", NoDemand: "y"}
	doc := FairShareJSON{FormatVersion: JSONFormatVersion, LeftOut: []string{"z"}, Pools: []JSONFairSharePool{{NodePool: "n",
		CapacityUnknown: map[string]string{"cpu": "w"}, Oversubscribed: map[string]quota.Value{"gpu": one}, Queues: []JSONFairShareQueue{q}}}}
	b, _ := json.Marshal(doc)
	var v any
	json.Unmarshal(b, &v)
	return v
}
