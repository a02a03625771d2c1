package views

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/krmplan/krmplan/internal/mdtext"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

func markdownOf(t *testing.T, p *planner.Plan) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// toHTML renders markdown as GitHub does: CommonMark with GFM tables, and
// raw HTML (<details>, comments) passed through.
func toHTML(t *testing.T, md []byte) string {
	t.Helper()
	var out bytes.Buffer
	g := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := g.Convert(md, &out); err != nil {
		t.Fatalf("markdown does not convert: %v", err)
	}
	return out.String()
}

func TestMarkdownGolden(t *testing.T) {
	for _, name := range []string{"move-one-card", "oversubscribed"} {
		t.Run(name, func(t *testing.T) {
			plantest.Golden(t, "golden", name+".md", markdownOf(t, plantest.SamplePlan(t, name+".hcl")))
		})
	}
}

func TestMarkdownRenders(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"move-one-card", []string{
			"<!-- krmplan:plan-id=",
			"<strong>Renderable</strong>: 0 to add, 2 to change, 0 to destroy",
			"<pre><code class=\"language-text\">Guaranteed GPU cards per node pool",
			"<table>", "<th>Object</th>", "<th>Before → After</th>",
			"<td>✏️ <code>project.benchmark</code></td>",
			"<td><code>1</code> → <code>2</code></td>",
			"<details>", "<summary>Rendered commands: 2 steps as kubectl patches, in order, every intermediate state verified</summary>",
			"<pre><code class=\"language-sh\"># 1/2 shrinking projects: Project workspace\nkubectl --context &quot;$KRMPLAN_CONTEXT&quot; patch projects.kai.resources workspace --type=json",
			"</details>",
			"labelled kai/project=&lt;project&gt; was not checked",
		}},
		{"oversubscribed", []string{
			"<strong>Not renderable</strong>: 1 error",
			"5 of 4 cards, 1 over",
			"<table>", "<td><code>1</code> → <code>2</code></td>",
			"❌ <strong>Error</strong> <code>projects-over-department</code>: platform-rtx: the projects are guaranteed 5 cards in total",
			"<details>", "<summary>Rendered commands: none — render refuses a plan with errors</summary>",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plantest.SamplePlan(t, tc.name+".hcl")
			md := markdownOf(t, p)
			if !bytes.HasPrefix(md, []byte("<!-- krmplan:plan-id="+p.PlanID+" -->\n")) {
				t.Errorf("the first line is not the plan-id marker: %q", md[:min(len(md), 100)])
			}
			if bytes.Contains(md, []byte("\x1b[")) {
				t.Error("colour in markdown")
			}
			h := toHTML(t, md)
			for _, w := range tc.want {
				if !strings.Contains(h, w) {
					t.Errorf("the HTML lacks %q:\n%s", w, h)
				}
			}
			if n := strings.Count(h, "<tr>"); n != len(p.Changes)+1 {
				t.Errorf("%d table rows, want a header and %d changes", n, len(p.Changes))
			}
		})
	}
}

// TestMarkdownEscapes: names and messages cannot break the table or
// inject HTML (mdtext's own tests cover each escape).
func TestMarkdownEscapes(t *testing.T) {
	h := toHTML(t, []byte("| a |\n| --- |\n| "+mdtext.Escape("x|<b>y</b>")+" |\n"))
	if !strings.Contains(h, "<td>x|&lt;b&gt;y&lt;/b&gt;</td>") {
		t.Errorf("escaped cell: %s", h)
	}
}

// bigPlan is a plan with n new projects of one queue each: every field is
// a change, so the comment grows with n.
func bigPlan(t *testing.T, n int) *planner.Plan {
	t.Helper()
	var hcl strings.Builder
	hcl.WriteString("department \"platform\" {\n  queue \"rtx-pro-6000\" {\n    gpu = { deserved = 4000, limit = 4000 }\n  }\n}\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&hcl, "project \"team-%04d\" {\n  department = \"platform\"\n  queue \"rtx-pro-6000\" {\n    name = \"team-%04d-rtx\"\n    gpu = { deserved = 0.5, limit = 1 }\n  }\n}\n", i, i)
	}
	return plantest.Plan(t, plantest.SampleState(t), "big.hcl", []byte(hcl.String()))
}

func TestMarkdownLimit(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{5, nil},
		{60, []string{"Left out to stay under GitHub's limit of 65,536 characters per comment: the rendered commands (",
			"Rendered commands: left out (too long for one comment)"}},
		{400, []string{"the rendered commands (", " changes", "more changes left out |"}},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			p := bigPlan(t, tc.n)
			md := markdownOf(t, p)
			if len(md) >= MarkdownLimit {
				t.Fatalf("%d bytes, not under %d", len(md), MarkdownLimit)
			}
			if !utf8.Valid(md) {
				t.Fatal("not valid UTF-8")
			}
			s := string(md)
			if tc.want == nil && strings.Contains(s, "Left out") {
				t.Errorf("a small plan left something out")
			}
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("lacks %q", w)
				}
			}
			h := toHTML(t, md)
			for _, w := range []string{"<table>", "<details>", "</details>"} {
				if !strings.Contains(h, w) {
					t.Errorf("the HTML lacks %s", w)
				}
			}
		})
	}
	// The cut is exact: a limit just above the whole comment keeps it all.
	p := bigPlan(t, 60)
	full := markdownBytes(p, 1<<30)
	if got := markdownBytes(p, len(full)+1); !bytes.Equal(got, full) {
		t.Error("a comment that fits was cut")
	}
	if got := markdownBytes(p, len(full)); bytes.Equal(got, full) || len(got) >= len(full) {
		t.Error("a comment one byte too long was not cut")
	}
}
