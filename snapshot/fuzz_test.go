package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// kubectlDocs decodes src as kubectl apply -f does (cli-runtime's
// StreamVisitor: k8s.io/apimachinery's YAMLOrJSONDecoder into a
// RawExtension, sigs.k8s.io/yaml underneath), skipping empty and null
// documents. Each document is returned as the JSON kubectl sends, decoded
// with exact numbers.
func kubectlDocs(src []byte) ([]map[string]any, error) {
	return decodeAll(utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(src), 4096))
}

// kubectlYAMLDocs is kubectlDocs on the YAML path alone.
func kubectlYAMLDocs(src []byte) ([]map[string]any, error) {
	return decodeAll(utilyaml.NewYAMLToJSONDecoder(bytes.NewReader(src)))
}

// decodeAll decodes every document of d into a RawExtension, as kubectl
// does, and then with exact numbers; an empty or null document, which
// kubectl skips, is left out.
func decodeAll(d interface{ Decode(any) error }) ([]map[string]any, error) {
	var out []map[string]any
	for {
		var ext runtime.RawExtension
		err := d.Decode(&ext)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		raw := bytes.TrimSpace(ext.Raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("kubectl sends %s: %w", raw, err)
		}
		out = append(out, m)
	}
}

// agreesWithKubectl checks what ParseTenancy read against what kubectl
// sends for the same file: every document kubectl can decode, and every
// value krmplan read equal to the value the API server stores (numbers as
// float64 keeps them). It returns "" when they agree.
func agreesWithKubectl(t *Parsed, src []byte) string {
	docs, err := kubectlDocs(src)
	var syntax utilyaml.JSONSyntaxError
	if errors.As(err, &syntax) {
		// apimachinery's YAMLOrJSONDecoder reads a stream that starts with
		// '{' as JSON, and falls back to YAML on a syntax error, except
		// when fewer than 4 bytes are left (consumeWhitespace reads 4):
		// "{0}", "{}#0". Such a file is judged by its YAML reading.
		docs, err = kubectlYAMLDocs(src)
	}
	if err != nil {
		return fmt.Sprintf("krmplan read the file, kubectl refuses it: %v", err)
	}
	var pools, depts, projs, others int
	for _, m := range docs {
		kind, _ := m["kind"].(string)
		name := str(at(m, "metadata", "name"))
		if m["apiVersion"] != tenancy.APIVersion || !krmKind(kind) {
			others++
			continue
		}
		var msg string
		switch kind {
		case "NodePool":
			if pools >= len(t.NodePools) {
				return "kubectl sends a NodePool krmplan did not read: " + name
			}
			msg = sameNodePool(&t.NodePools[pools], m)
			pools++
		case "Department":
			if depts >= len(t.Departments) {
				return "kubectl sends a Department krmplan did not read: " + name
			}
			d := &t.Departments[depts]
			msg = sameObject(d.Metadata, nil, d.Spec.Queues, m)
			depts++
		case "Project":
			if projs >= len(t.Projects) {
				return "kubectl sends a Project krmplan did not read: " + name
			}
			p := &t.Projects[projs]
			msg = sameObject(p.Metadata, &p.Spec, p.Spec.Queues, m)
			projs++
		default:
			others++ // the singletons: krmplan keeps the one it reads, the rest in Other
		}
		if msg != "" {
			return kind + " " + name + ": " + msg
		}
	}
	if pools != len(t.NodePools) || depts != len(t.Departments) || projs != len(t.Projects) {
		return fmt.Sprintf("krmplan read %d pools, %d departments, %d projects; kubectl sends %d, %d, %d",
			len(t.NodePools), len(t.Departments), len(t.Projects), pools, depts, projs)
	}
	return ""
}

func at(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

func str(v any) string { s, _ := v.(string); return s }

func sameNodePool(p *tenancy.NodePool, m map[string]any) string {
	if msg := sameMeta(p.Metadata, m); msg != "" {
		return msg
	}
	if p.Spec.LabelKey != str(at(m, "spec", "labelKey")) || p.Spec.LabelValue != str(at(m, "spec", "labelValue")) {
		return fmt.Sprintf("label pair %q=%q, kubectl %v=%v", p.Spec.LabelKey, p.Spec.LabelValue, at(m, "spec", "labelKey"), at(m, "spec", "labelValue"))
	}
	return ""
}

func sameMeta(meta tenancy.Meta, m map[string]any) string {
	if meta.Name != str(at(m, "metadata", "name")) {
		return fmt.Sprintf("name %q, kubectl %v", meta.Name, at(m, "metadata", "name"))
	}
	for _, k := range tenancy.GitOpsKeys {
		label, isLabel := at(m, "metadata", "labels", k).(string)
		ann, isAnn := at(m, "metadata", "annotations", k).(string)
		got, has := meta.GitOps[k]
		if has != (isLabel || isAnn) || (has && got != label && got != ann) {
			return fmt.Sprintf("%s %q, kubectl label %q annotation %q", k, got, label, ann)
		}
	}
	return ""
}

func sameObject(meta tenancy.Meta, spec *tenancy.ProjectSpec, queues []tenancy.Queue, m map[string]any) string {
	if msg := sameMeta(meta, m); msg != "" {
		return msg
	}
	if spec != nil {
		if spec.Parent != str(at(m, "spec", "parent")) || spec.Namespace != str(at(m, "spec", "namespace")) {
			return fmt.Sprintf("parent %q namespace %q, kubectl %v %v", spec.Parent, spec.Namespace, at(m, "spec", "parent"), at(m, "spec", "namespace"))
		}
		pools, _ := at(m, "spec", "defaultNodePools").([]any)
		if len(pools) != len(spec.DefaultNodePools) {
			return fmt.Sprintf("defaultNodePools %q, kubectl %v", spec.DefaultNodePools, pools)
		}
		for i, p := range pools {
			if str(p) != spec.DefaultNodePools[i] {
				return fmt.Sprintf("defaultNodePools %q, kubectl %v", spec.DefaultNodePools, pools)
			}
		}
	}
	list, _ := at(m, "spec", "queues").([]any)
	if len(list) != len(queues) {
		return fmt.Sprintf("%d queues, kubectl %d", len(queues), len(list))
	}
	for i, q := range list {
		if msg := sameQueue(&queues[i], q); msg != "" {
			return fmt.Sprintf("queue %d: %s", i, msg)
		}
	}
	return ""
}

func sameQueue(q *tenancy.Queue, m any) string {
	if q.Name != str(at(m, "name")) || q.NodePool != str(at(m, "nodepool")) {
		return fmt.Sprintf("name %q nodepool %q, kubectl %v %v", q.Name, q.NodePool, at(m, "name"), at(m, "nodepool"))
	}
	prio, has := at(m, "priority").(json.Number)
	if has != (q.Priority != nil) || (has && string(prio) != strconv.Itoa(int(*q.Priority))) {
		return fmt.Sprintf("priority %v, kubectl %v", q.Priority, at(m, "priority"))
	}
	for _, r := range []quota.Resource{quota.GPU, quota.CPU, quota.Memory} {
		block := q.Resources.Get(r)
		jm, has := at(m, "resources", string(r)).(map[string]any)
		if has != (block != nil) {
			return fmt.Sprintf("%s block %v, kubectl %v", r, block != nil, at(m, "resources", string(r)))
		}
		if block == nil {
			continue
		}
		for _, qf := range tenancy.QuotaFields {
			f := qf.String()
			v := *block.Slot(qf)
			n, has := jm[f].(json.Number)
			if has != (v != nil) {
				return fmt.Sprintf("%s.%s %v, kubectl %v", r, f, v, jm[f])
			}
			if has && !storedAs(v, string(n)) {
				return fmt.Sprintf("%s.%s is %s, the API server stores %s", r, f, v, stored(string(n)))
			}
		}
	}
	return ""
}

// stored is a JSON number as the API server keeps it: an integer as it
// is, anything else as a float64's shortest text.
func stored(n string) string {
	if _, err := strconv.ParseInt(n, 10, 64); err == nil {
		return n
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return n
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func storedAs(v *quota.Value, n string) bool {
	s, err := quota.Parse(stored(n))
	return err == nil && s.Cmp(*v) == 0
}

// fuzzSeeds are the files the fuzz target starts from: the bundled
// tenancies and the spellings of the reading rules.
func fuzzSeeds(f *testing.F) {
	for _, p := range []string{"../examples/sample/tenancy.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	q := func(gpu string) string { return strings.Replace(yamlDept, "{deserved: 4, limit: 4}", gpu, 1) }
	for _, s := range []string{
		yamlDept, q("{deserved: 010, limit: 0x10}"), q("{deserved: 1_000, limit: .5}"), q("{deserved: 0.30000000000000001}"),
		q("{deserved: !!int 4, limit: !!float 4}"), q("{<<: {deserved: 1}, limit: 2}"), q("{limit: 2, <<: {limit: 1}}"),
		strings.Replace(yamlDept, "name: d-q", "name: on", 1), strings.Replace(yamlDept, "nodepool: default", "nodepool: 010", 1),
		yamlDept + "---\n" + strings.Replace(yamlDept, "name: d}", "name: e}", 1),
		yamlDept + "...\n" + strings.Replace(yamlDept, "name: d}", "name: e}", 1),
		"apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: p, labels: {argocd.argoproj.io/instance: x}}\nspec:\n  parent: d\n  namespace: n\n  defaultNodePools: [a]\n  queues:\n  - &q {name: p-a, nodepool: a, priority: 7, resources: {gpu: {deserved: 1}}}\n  - {<<: *q, name: p-b, nodepool: b}\n",
		"a: &a [1, 2]\nb: &b [*a, *a]\nc: [*b, *b]\n",
		"apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: h100}\nspec: {labelKey: k, labelValue: '1.0'}\n",
		"apiVersion: kai.resources/v1alpha1\nkind: ManagedNodesConfig\nmetadata: {name: x}\nspec: {inclusion_criteria: {nodeSelectorTerms: [{matchExpressions: [{key: k, operator: In, values: [a]}]}]}}\n",
	} {
		f.Add([]byte(s))
	}
}

// FuzzParseTenancy: no input makes the reader panic or run long, and
// whatever it reads is what kubectl sends — the oracle is kubectl's own
// decoding (k8s.io/apimachinery and sigs.k8s.io/yaml), run on the same
// bytes. The corpus of found inputs is kept in testdata/fuzz as
// regression cases.
func FuzzParseTenancy(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		var ten Parsed
		start := time.Now()
		err := ten.ParseTenancy("f.yaml", src)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%d bytes took %v", len(src), d)
		}
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("not a ParseError: %v", err)
		}
		if err != nil {
			if pe.File != "f.yaml" || pe.Msg == "" {
				t.Fatalf("an error without its file or message: %+v", pe)
			}
			return
		}
		if msg := agreesWithKubectl(&ten, src); msg != "" {
			t.Fatalf("%s\ninput: %q", msg, src)
		}
	})
}
