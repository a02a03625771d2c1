package gentenancy

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// YAML returns the tenancy as one file in the style of a hand-kept GitOps
// repository: a comment on every object, quota values in aligned columns
// (the same columns in the whole file), and the reason for a priority
// beside it.
func (t *Tenancy) YAML() []byte {
	w := &yamlWriter{}
	w.measure(t)
	b := &w.b
	b.Grow(900 * len(t.Projects))
	cards, nodes := 0, len(t.Nodes)
	for _, p := range t.Pools {
		cards += p.Cards()
	}
	if t.Cells == 1 && len(t.Projects) == ProjectsPerCell {
		b.WriteString("# The krmplan demo tenancy: 160 GPUs on 20 nodes in two node pools (h100:\n")
		b.WriteString("# 12 nodes x 8 cards, a100: 8 nodes x 8 cards), 8 departments, 48 projects.\n")
	} else {
		fmt.Fprintf(b, "# A generated tenancy: %d GPUs on %d nodes in %d node pools, %d departments,\n", cards, nodes, len(t.Pools), len(t.Departments))
		fmt.Fprintf(b, "# %d projects (%d copies of the demo's cell, each with its own numbers).\n", len(t.Projects), t.Cells)
	}
	b.WriteString(`# Each department holds a share of the pools it uses, and its projects split
# that share. Values sit in aligned columns and the reasons live in comments,
# the way GitOps repositories keep these files. Units: gpu in cards (0.5 is
# half a card), cpu in millicores, memory in MB; -1 is unlimited.
#
`)
	fmt.Fprintf(b, "# Written by examples/demo/gen (seed %d): edit the generator, not this file.\n", t.Spec.Seed)
	banner(b, "Node pools")
	for _, p := range t.Pools {
		fmt.Fprintf(b, "---\n# %s\n", p.Comment)
		fmt.Fprintf(b, "apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata:\n  name: %s\n", p.Name)
		b.WriteString("  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\n")
		fmt.Fprintf(b, "spec:\n  labelKey:   %s\n  labelValue: %s\n", LabelKey, p.LabelValue)
	}
	b.WriteString("---\n# KRM manages the nodes of every pool above.\n")
	b.WriteString("apiVersion: kai.resources/v1alpha1\nkind: ManagedNodesConfig\nmetadata:\n  name: kai-managed-nodes-config\n")
	b.WriteString("spec:\n  inclusion_criteria:\n    nodeSelectorTerms:\n      - matchExpressions:\n")
	fmt.Fprintf(b, "          - key: %s\n            operator: In\n", LabelKey)
	if len(t.Pools) <= 8 {
		names := make([]string, len(t.Pools))
		for i, p := range t.Pools {
			names[i] = p.Name
		}
		fmt.Fprintf(b, "            values: [%s]\n", strings.Join(names, ", "))
	} else {
		b.WriteString("            values:\n")
		for _, p := range t.Pools {
			fmt.Fprintf(b, "              - %s\n", p.Name)
		}
	}
	pi := 0
	for _, d := range t.Departments {
		banner(b, "Department "+d.Name)
		fmt.Fprintf(b, "---\n# %s\n", d.Comment)
		fmt.Fprintf(b, "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata:\n  name: %s\n", d.Name)
		b.WriteString("  annotations:\n    argocd.argoproj.io/sync-wave: \"2\"\nspec:\n  queues:\n")
		for _, q := range d.Queues {
			w.queue(q)
		}
		for ; pi < len(t.Projects) && t.Projects[pi].Parent == d.Name; pi++ {
			w.project(&t.Projects[pi])
		}
	}
	return b.Bytes()
}

// banner writes a section heading comment.
func banner(b *bytes.Buffer, title string) {
	fmt.Fprintf(b, "\n# ── %s %s\n", title, strings.Repeat("─", max(3, 72-len(title))))
}

type yamlWriter struct {
	b bytes.Buffer
	// width of the "<deserved>," and "<limit>," columns in every file row.
	dw, lw int
}

// measure finds the column widths: the longest deserved and limit of any
// resource row, with its comma.
func (w *yamlWriter) measure(t *Tenancy) {
	each := func(q Queue) {
		for _, row := range rows(q) {
			w.dw = max(w.dw, len(row[1])+1)
			w.lw = max(w.lw, len(row[2])+1)
		}
	}
	for _, d := range t.Departments {
		for _, q := range d.Queues {
			each(q)
		}
	}
	for _, p := range t.Projects {
		for _, q := range p.Queues {
			each(q)
		}
	}
}

// rows are a queue's resource rows: name, deserved, limit, weight.
func rows(q Queue) [3][4]string {
	return [3][4]string{
		{"gpu", q.Deserved.String(), q.Limit.String(), strconv.Itoa(q.Weight)},
		{"cpu", strconv.FormatInt(q.CPU, 10), "-1", "1"},
		{"memory", strconv.FormatInt(q.Memory, 10), "-1", "1"},
	}
}

func (w *yamlWriter) project(p *Project) {
	b := &w.b
	fmt.Fprintf(b, "---\n# %s\n", p.Comment)
	fmt.Fprintf(b, "apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata:\n  name: %s\n", p.Name)
	b.WriteString("  annotations:\n    argocd.argoproj.io/sync-wave: \"3\"\n")
	fmt.Fprintf(b, "spec:\n  namespace: %s\n  parent: %s\n", p.Name, p.Parent)
	pools := make([]string, len(p.Queues))
	for i, q := range p.Queues {
		pools[i] = q.Pool
	}
	fmt.Fprintf(b, "  defaultNodePools: [%s]\n  queues:\n", strings.Join(pools, ", "))
	for _, q := range p.Queues {
		w.queue(q)
	}
}

func (w *yamlWriter) queue(q Queue) {
	b := &w.b
	fmt.Fprintf(b, "    - name: %s\n      nodepool: %s\n", q.Name, q.Pool)
	switch {
	case q.Priority >= NonPreemptiblePriority:
		fmt.Fprintf(b, "      priority: %-4d # non-preemptible: runs only inside its guarantee, never evicted\n", q.Priority)
	case q.Priority > 0:
		fmt.Fprintf(b, "      priority: %-4d # preemptible: borrows idle cards and gives them back first\n", q.Priority)
	}
	b.WriteString("      resources:\n")
	for _, row := range rows(q) {
		fmt.Fprintf(b, "        %-7s {deserved: %-*s limit: %-*s overQuotaWeight: %s}\n", row[0]+":", w.dw, row[1]+",", w.lw, row[2]+",", row[3])
	}
}
