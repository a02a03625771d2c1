package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
	"github.com/zclconf/go-cty/cty"
)

// Export writes the tenancy t as a desired.hcl (formatted with hclwrite):
// every node pool, department and project, every queue with its name,
// priority and quota fields exactly as read, -1 as `unlimited`. Planning
// the result against the same snapshot reports no changes, so a person
// starts from what exists and edits the numbers. from names the snapshot
// in the header, one comment line each (snapshot.State.Provenance).
//
// An omitted field is left out (the overlay keeps the snapshot's value,
// which KRM reads as 0). desired.hcl has one queue block per pool, so a
// second queue of one object on the same pool cannot be written: it is
// left out with a comment, and named in the returned warnings.
func Export(s *tenancy.Tenancy, from ...string) ([]byte, []string) {
	body, warnings := ExportObjects(s, nil)
	return append([]byte(exportHeader(from)), body...), warnings
}

// ExportObjects writes the objects of t that only names (all of them when
// only is nil) as desired.hcl blocks, formatted, without a header: each as
// Export writes it, and with `file = "…"` where only gives a file (a new
// object's placement). Planning the result against a tenancy sets each
// named object to what t holds. The warnings are Export's.
func ExportObjects(t *tenancy.Tenancy, only map[tenancy.ObjectAddr]string) ([]byte, []string) {
	var warnings []string
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	block := func(k tenancy.Kind, name string) (*hclwrite.Body, bool) {
		file, ok := only[k.Object(name)]
		if only != nil && !ok {
			return nil, false
		}
		b := body.AppendNewBlock(k.Info().Block, []string{name}).Body()
		if file != "" {
			b.SetAttributeValue("file", cty.StringVal(file))
		}
		return b, true
	}
	for i := range t.NodePools {
		np := &t.NodePools[i]
		b, ok := block(tenancy.KindNodePool, np.Metadata.Name)
		if !ok {
			continue
		}
		if np.Spec.LabelKey != "" || np.Spec.LabelValue != "" {
			b.SetAttributeValue("label_key", cty.StringVal(np.Spec.LabelKey))
			b.SetAttributeValue("label_value", cty.StringVal(np.Spec.LabelValue))
		}
		body.AppendNewline()
	}
	for i := range t.Departments {
		d := &t.Departments[i]
		if b, ok := block(tenancy.KindDepartment, d.Metadata.Name); ok {
			warnings = append(warnings, exportQueues(b, tenancy.KindDepartment, d.Metadata.Name, d.Spec.Queues)...)
			body.AppendNewline()
		}
	}
	for i := range t.Projects {
		p := &t.Projects[i]
		if b, ok := block(tenancy.KindProject, p.Metadata.Name); ok {
			exportProject(b, p)
			warnings = append(warnings, exportQueues(b, tenancy.KindProject, p.Metadata.Name, p.Spec.Queues)...)
			body.AppendNewline()
		}
	}
	return []byte(strings.TrimRight(string(hclwrite.Format(f.Bytes())), "\n") + "\n"), warnings
}

// exportProject writes a project's own attributes: its department, and
// its namespace and defaultNodePools when set.
func exportProject(b *hclwrite.Body, p *tenancy.Project) {
	b.SetAttributeValue("department", cty.StringVal(p.Spec.Parent))
	if p.Spec.Namespace != "" {
		b.SetAttributeValue("namespace", cty.StringVal(p.Spec.Namespace))
	}
	if p.Spec.DefaultNodePools == nil {
		return
	}
	vals := make([]cty.Value, len(p.Spec.DefaultNodePools))
	for j, n := range p.Spec.DefaultNodePools {
		vals[j] = cty.StringVal(n)
	}
	if len(vals) == 0 {
		b.SetAttributeValue("default_node_pools", cty.ListValEmpty(cty.String))
	} else {
		b.SetAttributeValue("default_node_pools", cty.ListVal(vals))
	}
}

func exportHeader(from []string) string {
	var b strings.Builder
	b.WriteString("# desired.hcl exported by krmplan from the snapshot\n")
	for _, l := range from {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	b.WriteString("#\n")
	b.WriteString("# Every object and queue as it is: planning this file against the same\n")
	b.WriteString("# snapshot reports no changes. Change the numbers you want to change; a\n")
	b.WriteString("# block or attribute you remove keeps the snapshot's value (nothing is\n")
	b.WriteString("# deleted). gpu is in cards, cpu in millicores, memory in MB; unlimited is -1.\n\n")
	return b.String()
}

func exportQueues(b *hclwrite.Body, kind tenancy.Kind, owner string, qs []tenancy.Queue) []string {
	var warnings []string
	seen := map[string]string{}
	for _, q := range qs {
		if prev, dup := seen[q.NodePool]; dup {
			msg := fmt.Sprintf("%s %q: queue %q is a second queue on node pool %q (after %q); desired.hcl has one queue per pool, so it is not exported",
				kind.Info().Word, owner, q.Name, q.NodePool, prev)
			warnings = append(warnings, msg)
			b.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment,
				Bytes: []byte(fmt.Sprintf("# not exported: queue %q, a second queue on node pool %q (one queue per pool)\n", q.Name, q.NodePool))}})
			continue
		}
		seen[q.NodePool] = q.Name
		qb := b.AppendNewBlock("queue", []string{q.NodePool}).Body()
		if q.Name != "" {
			qb.SetAttributeValue("name", cty.StringVal(q.Name))
		} else {
			// No name: KRM derives the Queue's, and a queue block without
			// name keeps the snapshot's (none).
			qb.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment,
				Bytes: []byte(fmt.Sprintf("# no name: KRM names its Queue %s\n", q.KAIName(owner)))}})
		}
		if q.Priority != nil {
			qb.SetAttributeValue("priority", cty.NumberIntVal(int64(*q.Priority)))
		}
		for _, r := range quota.Resources {
			if toks := resourceTokens(q.Resources.Get(r)); toks != nil {
				qb.SetAttributeRaw(string(r), toks)
			}
		}
	}
	return warnings
}

// resourceTokens writes a resource as a one-line object,
// `{ deserved = 4, limit = unlimited, over_quota_weight = 1 }`, with the
// fields present; nil when none is.
func resourceTokens(r *tenancy.Resource) hclwrite.Tokens {
	if r == nil {
		return nil
	}
	var toks hclwrite.Tokens
	for _, f := range tenancy.QuotaFields {
		v := *r.Slot(f)
		if v == nil {
			continue
		}
		if len(toks) > 0 {
			toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")})
		}
		toks = append(toks, hclwrite.TokensForIdentifier(ResourceKeys[f])...)
		toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenEqual, Bytes: []byte("=")})
		toks = append(toks, numberTokens(*v)...)
	}
	if toks == nil {
		return nil
	}
	out := hclwrite.Tokens{{Type: hclsyntax.TokenOBrace, Bytes: []byte("{")}}
	out = append(out, toks...)
	return append(out, &hclwrite.Token{Type: hclsyntax.TokenCBrace, Bytes: []byte("}")})
}

// numberTokens writes v exactly as its decimal text; -1 is `unlimited`.
func numberTokens(v quota.Value) hclwrite.Tokens {
	if v.IsUnlimited() {
		return hclwrite.TokensForIdentifier("unlimited")
	}
	s := v.String()
	var toks hclwrite.Tokens
	if strings.HasPrefix(s, "-") {
		toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenMinus, Bytes: []byte("-")})
		s = s[1:]
	}
	return append(toks, &hclwrite.Token{Type: hclsyntax.TokenNumberLit, Bytes: []byte(s)})
}
