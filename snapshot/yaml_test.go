package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// parseErr parses src as t.yaml and returns the error text ("" for none).
func parseErr(src string) (Parsed, string) {
	var ten Parsed
	if err := ten.ParseTenancy("t.yaml", []byte(src)); err != nil {
		return ten, err.Error()
	}
	return ten, ""
}

const yamlDept = "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: d}\nspec:\n  queues:\n    - {name: d-q, nodepool: default, resources: {gpu: {deserved: 4, limit: 4}}}\n"

// Empty documents are skipped, as kubectl and kustomize do.
func TestEmptyDocumentsAreSkipped(t *testing.T) {
	for name, src := range map[string]string{
		"leading ---":         "---\n" + yamlDept,
		"trailing ---":        yamlDept + "---\n",
		"--- twice":           "---\n---\n" + yamlDept + "---\n---\n",
		"comments only":       yamlDept + "---\n# nothing here yet\n---\n" + strings.Replace(yamlDept, "name: d}", "name: e}", 1),
		"leading comment doc": "# a header\n---\n" + yamlDept,
	} {
		ten, err := parseErr(src)
		if err != "" || len(ten.Departments) == 0 {
			t.Errorf("%s: err %q, %d departments", name, err, len(ten.Departments))
		}
	}
	for name, src := range map[string]string{"empty": "", "only ---": "---\n", "--- twice": "---\n---\n", "comments": "# a\n# b\n"} {
		if ten, err := parseErr(src); err != "" || !reflect.DeepEqual(ten, Parsed{}) {
			t.Errorf("%s: err %q, tenancy %+v", name, err, ten)
		}
	}
	// A document that says null is not empty: it is not a mapping either.
	if _, err := parseErr(yamlDept + "---\nnull\n"); err != "t.yaml:8: a document must be a mapping" {
		t.Errorf("null document: %q", err)
	}
}

// Only KRM's kinds need metadata; other documents are kept aside with
// whatever name they have.
func TestOtherKindsNeedNoMetadata(t *testing.T) {
	src := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [tenancy.yaml]\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\n---\n" +
		"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: spot\n---\n" +
		"kind: Other\nmetadata: [not, a, mapping]\n---\n" + yamlDept
	ten, err := parseErr(src)
	if err != "" {
		t.Fatal(err)
	}
	want := []OtherDocument{
		{APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization", File: "t.yaml", Line: 1},
		{APIVersion: "v1", Kind: "ConfigMap", Name: "notes", File: "t.yaml", Line: 5},
		{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: "spot", File: "t.yaml", Line: 9},
		{Kind: "Other", File: "t.yaml", Line: 14},
	}
	if !reflect.DeepEqual(ten.Other, want) || len(ten.Departments) != 1 || len(ten.NodePools) != 0 {
		t.Errorf("other = %+v, departments %d, pools %d", ten.Other, len(ten.Departments), len(ten.NodePools))
	}
	if _, err := parseErr("apiVersion: kai.resources/v1alpha1\nkind: Department\nspec: {queues: []}\n"); err != "t.yaml:1: Department (no metadata.name): the document has no metadata; kubectl refuses an object without metadata.name" {
		t.Errorf("a KRM kind without metadata: %q", err)
	}
	// metadata: with nothing under it (null, as a deleted name leaves it)
	// is no metadata to kubectl either (resource name may not be empty).
	if _, err := parseErr("apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata:\nspec: {queues: []}\n"); err != "t.yaml:1: Department (no metadata.name): the document has no metadata; kubectl refuses an object without metadata.name" {
		t.Errorf("a KRM kind with metadata null: %q", err)
	}
}

// A KRM kind at another or a mistyped apiVersion is an error at the
// apiVersion's line, not a document set aside.
func TestKRMKindAtAnotherAPIVersion(t *testing.T) {
	pad := strings.Repeat("# padding\n", 28) // the apiVersion on line 29
	for src, want := range map[string]string{
		pad + strings.Replace(yamlDept, "kai.resources/v1alpha1", "kai.resource/v1alpha1", 1):                       "t.yaml:29: Department has apiVersion kai.resource/v1alpha1; krmplan reads kai.resources/v1alpha1 (KRM's only version)",
		"apiVersion: kai.resources/v1beta1\nkind: ManagedNodesConfig\nmetadata: {name: kai-managed-nodes-config}\n": "t.yaml:1: ManagedNodesConfig has apiVersion kai.resources/v1beta1; krmplan reads kai.resources/v1alpha1 (KRM's only version)",
		yamlDept + "---\nkind: Project\napiVersion: Kai.Resources/v1alpha1\nmetadata: {name: p}\n":                  "t.yaml:9: Project has apiVersion Kai.Resources/v1alpha1; krmplan reads kai.resources/v1alpha1 (KRM's only version)",
		"kind: NodePool\nmetadata: {name: h100}\n":                                                                  "t.yaml:1: NodePool has no apiVersion; krmplan reads kai.resources/v1alpha1 (KRM's only version)",
		"apiVersion: v1alpha1\nkind: KRMConfig\nmetadata: {name: krm}\n":                                            "t.yaml:1: KRMConfig has apiVersion v1alpha1; krmplan reads kai.resources/v1alpha1 (KRM's only version)",
		"apiVersion: kai-resources/v1alpha1\nkind: Project\nmetadata: {name: p}\n":                                  "t.yaml:1: Project has apiVersion kai-resources/v1alpha1; krmplan reads kai.resources/v1alpha1 (KRM's only version)",
		"apiVersion: kai.resources/v1alpha1\nkind: Departmant\nmetadata: {name: d}\n":                               "t.yaml:2: kai.resources/v1alpha1 has no kind Departmant (did you mean Department?); krmplan reads NodePool, Department, Project, ManagedNodesConfig, KRMConfig",
		"apiVersion: kai.resources/v1alpha1\nkind: project\nmetadata: {name: p}\n":                                  "t.yaml:2: kai.resources/v1alpha1 has no kind project (did you mean Project?); krmplan reads NodePool, Department, Project, ManagedNodesConfig, KRMConfig",
	} {
		if _, err := parseErr(src); err != want {
			t.Errorf("%q:\n got %q\nwant %q", src, err, want)
		}
	}
	// Another group's kind of the same name is not KRM's.
	if ten, err := parseErr("apiVersion: project.openshift.io/v1\nkind: Project\nmetadata: {name: p}\n"); err != "" || len(ten.Other) != 1 {
		t.Errorf("an OpenShift project: %q, %+v", err, ten.Other)
	}
}

// The range of quota numbers is quota.Parse's, as for desired.hcl.
func TestQuotaNumberRange(t *testing.T) {
	q := func(gpu string) string {
		return strings.Replace(yamlDept, "{deserved: 4, limit: 4}", gpu, 1)
	}
	// A number beyond a float64 is not "the string": it is too large.
	// One that a float64 rounds is sent rounded, so it is refused with
	// both readings; 18 digits of an integer stay exact (int64).
	for gpu, want := range map[string]string{
		"{deserved: 1e30, limit: -1}":                  `t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/deserved: "1e30" is too large: quota numbers must be below 10^18 in magnitude`,
		"{deserved: 1e309, limit: -1}":                 `t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/deserved: "1e309" is too large: quota numbers must be below 10^18 in magnitude`,
		"{deserved: 0.0000000000000000001, limit: -1}": `t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/deserved: "0.0000000000000000001" has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18`,
		`{deserved: 1, limit: "1e30"}`:                 `t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/limit is the string "1e30"; KRM rejects a string there, write the number unquoted`,
		"{deserved: 999999999999999999.000000000000000001, limit: -1}": "t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/deserved is `999999999999999999.000000000000000001`: " +
			"kubectl reads the number 1000000000000000000 (kubectl sends it as a float64, which keeps 15 to 17 significant digits), " +
			"YAML 1.2 tools the number 999999999999999999.000000000000000001; write it with at most 15 significant digits",
		"{deserved: 999999999999999999, limit: -1}": "",
	} {
		if _, err := parseErr(q(gpu)); err != want {
			t.Errorf("%s:\n got %q\nwant %q", gpu, err, want)
		}
	}
}

// Every YAML syntax error names the line of the problem, where yaml.v3
// names the line before the collection that holds it, or none.
func TestYAMLSyntaxErrorLines(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"\t- bad\n", "t.yaml:1: invalid YAML: found character that cannot start any token"},
		{"a: 1\n\t- bad\n", "t.yaml:2: invalid YAML: found a tab character that violates indentation"},
		{"apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: d}\nspec:\n  queues:\n    - name: d-q\n     nodepool: default\n",
			"t.yaml:7: invalid YAML: did not find expected '-' indicator"},
		{"a: [1, 2]]\n", "t.yaml:1: invalid YAML: did not find expected key"},
		{"a: 1\nb: {c: [1, 2}\n", "t.yaml:2: invalid YAML: did not find expected ',' or ']'"},
		{"a: 1\nb: {c: 1, d: [}\n", "t.yaml:2: invalid YAML: did not find expected node content"},
		{"a:\n  b: 1\n c: 2\n", "t.yaml:3: invalid YAML: did not find expected key"},
		{"a: 1\n---\nb: 2\n---\nc: {d: 1\ne: 2\n", "t.yaml:5: invalid YAML: did not find expected ',' or '}'"}, // the unclosed {
		{"a: 1\nb: *nope\n", "t.yaml:2: invalid YAML: unknown anchor 'nope' referenced"},
		{"a: 1\nb: x\x01\n", "t.yaml:2: invalid YAML: control characters are not allowed"},
		{"a: 1\n\nb: \xff\n", "t.yaml:3: invalid YAML: invalid leading UTF-8 octet"},
		{"a: 1\nb: \"abc\n", "t.yaml:2: invalid YAML: found unexpected end of stream"},
	} {
		if _, err := parseErr(tc.src); err != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, err, tc.want)
		}
	}
}

// The search for the line decodes the file about log2(lines) times.
func TestYAMLSyntaxErrorInALargeFile(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
	}
	b.WriteString("---\na: [1, 2\n") // line 20002
	if _, err := parseErr(b.String()); err != "t.yaml:20002: invalid YAML: did not find expected ',' or ']'" {
		t.Errorf("got %q", err)
	}
}

// A folder snapshot keeps a kustomization.yaml aside; a tenancy without
// any NodePool, Department or Project is an error naming the files.
func TestFromGitFolderAndEmptyTenancy(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("t/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [tenancy.yaml]\n")
	write("t/tenancy.yaml", "---\n"+yamlDept+"---\n")
	write("empty/tenancy.yaml", "# to be filled\n---\n")
	write("other/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n")
	write("other/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	for i := 0; i < 7; i++ {
		write(fmt.Sprintf("many/f%d.yaml", i), "# nothing\n")
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "one")
	st, err := FromGit(GitSource{Repo: dir, Paths: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Departments) != 1 || len(st.Other) != 1 || st.Other[0].Kind != "Kustomization" || st.Other[0].File != "t/kustomization.yaml" {
		t.Errorf("departments %d, other %+v", len(st.Departments), st.Other)
	}
	for paths, want := range map[string]string{
		"empty/tenancy.yaml": "no NodePool, Department or Project in empty/tenancy.yaml at HEAD; name the files or folders that hold the tenancy",
		"other":              "no NodePool, Department or Project in other/cm.yaml, other/kustomization.yaml at HEAD (only ConfigMap, Kustomization); name the files or folders that hold the tenancy",
		"many":               "no NodePool, Department or Project in many/f0.yaml, many/f1.yaml, many/f2.yaml, many/f3.yaml, many/f4.yaml and 2 more at HEAD; name the files or folders that hold the tenancy",
	} {
		if _, err := FromGit(GitSource{Repo: dir, Paths: []string{paths}}); err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", paths, err, want)
		}
	}
}

func TestLoadClusterDataRefusesNegativeCards(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cluster.json")
	for js, want := range map[string]string{
		`{"nodes":[{"name":"gpu-1","gpuCapacity":8,"gpuAllocatable":8,"ready":true,"cordoned":false},{"name":"gpu-2","gpuCapacity":-8,"gpuAllocatable":0,"ready":true,"cordoned":false}],"live_queues":[],"namespaces":[]}`: p + ": node gpu-2: gpuCapacity is -8; a card count cannot be negative",
		`{"nodes":[{"name":"gpu-3","gpuCapacity":8,"gpuAllocatable":-0.5,"ready":true,"cordoned":false}],"live_queues":[],"namespaces":[]}`:                                                                                 p + ": node gpu-3: gpuAllocatable is -0.5; a card count cannot be negative",
		`{"nodes":[{"name":"gpu-4","gpuCapacity":8,"gpuAllocatable":8,"ready":true,"cordoned":false}],"live_queues":[],"namespaces":[]}`:                                                                                    "",
	} {
		if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadClusterData(p)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

// What kubectl's document splitter and parser read otherwise than yaml.v3
// is refused at its line (proven against kubectl in internal/integration).
func TestKubectlStreamRules(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{yamlDept + "--- {kind: x}\n", `t.yaml:7: kubectl reads a line that starts with --- as a document separator and refuses text after it ("{kind: x}"): put the text on the next line`},
		{"%YAML 1.1\n---\n" + yamlDept, "t.yaml:1: kubectl does not read YAML directives (%YAML, %TAG): its document splitter cuts them from their document; remove the line"},
		{strings.ReplaceAll(yamlDept, "\n", "\r"), `t.yaml:1: a carriage return without a line feed after it: YAML reads it as a line break, kubectl's document splitter does not; end lines with \n or \r\n`},
		{strings.ReplaceAll(yamlDept, "\n", "\r\n"), ""},
		{yamlDept + "---\n!\u0085", "t.yaml:8: the character U+0085 (next line) is a line break to YAML, not to kubectl's document splitter nor to krmplan's positions; remove it or write it escaped in a double-quoted string"},
		{"\xff\xfea\x00", "t.yaml:1: the file is UTF-16 (it starts with a UTF-16 byte order mark); kubectl's document splitter cuts it at bytes that are not its line breaks: save it as UTF-8"},
		{"# a header\n\t# with a tab\n" + yamlDept, "t.yaml:2: kubectl cannot read this document: found character that cannot start any token (go-yaml v2, which kubectl uses, refuses a tab at the start of a line that yaml.v3 takes); indent with spaces"},
		{yamlDept + "---\n!\n", "t.yaml:8: a document must be a mapping"},
		{strings.Replace(yamlDept, "kind: Department", `kind: "Department "`, 1), `t.yaml:2: kind is "Department ", with spaces around Department; kai.resources/v1alpha1 has no such kind: write kind: Department`},
		{strings.Replace(yamlDept, "kind: Department\n", "", 1), "t.yaml:1: the document has apiVersion kai.resources/v1alpha1 but no kind; kubectl refuses a document without kind (Object 'Kind' is missing): write kind: NodePool, Department, Project"},
		{strings.Replace(yamlDept, "metadata: {name: d}", "metadata: {labels: {a: b}}", 1), "t.yaml:1: Department (no metadata.name): the object has no metadata.name; kubectl refuses it (resource name may not be empty)"},
	} {
		if _, err := parseErr(tc.src); err != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, err, tc.want)
		}
	}
}

// A file with a tab only kubectl refuses (line 2) and, further on, a tab
// yaml.v3 refuses too (line 24 or 25), in the same document or a later
// one, is refused at line 2, the first a reader from the start meets, not
// where yaml.v3 stops; a tab on the line of yaml.v3's error is reported in
// yaml.v3's words.
func TestKubectlTabBeforeASyntaxError(t *testing.T) {
	queues := strings.Repeat("    - {name: d-q, nodepool: default}\n", 16)
	body := "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: d}\nspec:\n  queues:\n" + queues
	kubectl := "t.yaml:2: kubectl cannot read this document: found character that cannot start any token (go-yaml v2, which kubectl uses, refuses a tab at the start of a line that yaml.v3 takes); indent with spaces"
	for _, tc := range []struct{ src, want string }{
		{"# a header\n\t# with a tab\n" + body + "\tkey: v\n", kubectl},
		{"# a header\n\t# with a tab\n" + body + "---\n\tkey: v\n", kubectl},
		{"# a header\n# no tab\n" + body + "\tkey: v\n", "t.yaml:24: invalid YAML: found character that cannot start any token"},
	} {
		if _, err := parseErr(tc.src); err != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, err, tc.want)
		}
	}
}

// Each KRM object is read strictly, every value as kubectl sends it; each
// error names the object, the queue and the JSON pointer.
func TestStrictObjects(t *testing.T) {
	q := func(queue string) string {
		return strings.Replace(yamlDept, "{name: d-q, nodepool: default, resources: {gpu: {deserved: 4, limit: 4}}}", queue, 1)
	}
	for _, tc := range []struct{ src, want string }{
		{q("{name: d-q, nodepool: default, resources: {gpu: {deserved: 4, overQuotaWieght: 2}}}"),
			`t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu: unknown field "overQuotaWieght" (did you mean overQuotaWeight?); kubectl apply refuses it (strict field validation), and with --validate=warn the API server drops it`},
		{q("{name: d-q, nodepool: default, resources: {gpu: {deserved: 4, limit: 4, limit: 0}}}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/limit is set twice in one mapping, on line 6 at columns 69 and 79; kubectl keeps the last silently, YAML 1.2 tools refuse the file: keep one"},
		{q("{name: d-q, nodepool: default, resources: {gpu: {limit: 2, <<: {limit: 1}}}}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/limit at line 6 is also set by the merge key << after it (line 6): kubectl (go-yaml v2) takes the merged value, YAML's merge rule the key's own; move limit below the << line"},
		{q("{<<: {limit: 1}, name: d-q, nodepool: default, resources: {gpu: {<<: {limit: 1}, deserved: 1}}}"),
			`t.yaml:6: Department d, queue d-q: /spec/queues/0: unknown field "limit"; kubectl apply refuses it (strict field validation), and with --validate=warn the API server drops it`},
		{q("{name: on, nodepool: default}"),
			`t.yaml:6: Department d, queue on: /spec/queues/0/name is ` + "`on`" + `: kubectl reads the boolean true (YAML 1.1 reads y, yes, on, n, no and off as booleans), YAML 1.2 tools the string "on"; quote it ("on") if you mean the text`},
		{q("{name: d-q, nodepool: 10}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/nodepool is `10`, the number 10; KRM's schema wants a string there: quote it: \"10\""},
		{q("{name: d-q, nodepool: default, priority: 4.0}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/priority is `4.0`, the number 4; KRM's schema wants a whole number there: write 4"},
		{q("{name: d-q, nodepool: default, priority: 3000000000}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/priority is `3000000000`, beyond an int32 (−2147483648 to 2147483647)"},
		{q("{name: d-q, nodepool: default, resources: [gpu]}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/resources is a list; KRM's schema wants a mapping there"},
		{q("{name: d-q, nodepool: default, resources: {gpu: {deserved: .inf}}}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/deserved is `.inf`, which kubectl cannot send: JSON has no infinity or NaN (json: unsupported value: +Inf); KRM's numbers are finite, -1 is unlimited"},
		// The spelling quoted is the scalar's own, with its tag, not the rest of its line.
		{q("{name: d-q, nodepool: default, resources: {gpu: {deserved: !!int 010, limit: 4}}}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/resources/gpu/deserved is `!!int 010`: kubectl reads the number 8 (YAML 1.1 reads a leading 0 as octal), YAML 1.2 tools the number 10; write 8 or 10"},
		{q("{name: d-q, nodepool: default, priority: \"5\", resources: {gpu: {deserved: 4}}}"),
			"t.yaml:6: Department d, queue d-q: /spec/queues/0/priority is `\"5\"`, the string \"5\"; KRM's schema wants a whole number there"},
		{q("\n      name: d-q\n      nodepool: default\n      resources:\n        gpu:\n          deserved: !!int 010   # eight cards"),
			"t.yaml:11: Department d, queue d-q: /spec/queues/0/resources/gpu/deserved is `!!int 010`: kubectl reads the number 8 (YAML 1.1 reads a leading 0 as octal), YAML 1.2 tools the number 10; write 8 or 10"},
		{strings.Replace(yamlDept, "metadata: {name: d}", "metadata: {name: d, labels: {y: x}}", 1),
			"t.yaml:3: Department d: /metadata/labels has the key `y`, which kubectl reads as \"true\" (YAML 1.1); quote it: \"y\""},
		{strings.Replace(yamlDept, "metadata: {name: d}", "metadata: {name: d, lables: {a: b}}", 1),
			`t.yaml:3: Department d: /metadata: unknown field "lables" (did you mean labels?); kubectl apply refuses it (strict field validation), and with --validate=warn the API server drops it`},
		{"apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: p}\nspec: {labelKey: k, labelValue: yes}\n",
			`t.yaml:4: NodePool p: /spec/labelValue is ` + "`yes`" + `: kubectl reads the boolean true (YAML 1.1 reads y, yes, on, n, no and off as booleans), YAML 1.2 tools the string "yes"; quote it ("yes") if you mean the text`},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {enabled: yes, notes: [on, off]}\n", ""},
	} {
		if _, err := parseErr(tc.src); err != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, err, tc.want)
		}
	}
}

// A project without spec.parent, or with parent: "", is a root project
// (valid KRM, krm-facts 4), and a queue entry with name: "" is valid: KRM
// names its Queue after the owner. The entry keeps the name as written;
// the name key itself is required by KRM's CRD, so its absence is refused
// with the name KRM would derive.
func TestRootProjectsAndUnnamedQueues(t *testing.T) {
	const proj = "apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: p}\nspec:\n"
	for src, want := range map[string]string{
		proj + "  queues:\n    - {name: \"\", nodepool: h100}\n":                    "",
		proj + "  parent: \"\"\n  queues:\n    - {name: \"\", nodepool: default}\n": "",
		proj + "  parent: d\n  queues:\n    - {name: p-q, nodepool: default}\n":     "d",
	} {
		ten, err := parseErr(src)
		if err != "" || len(ten.Projects) != 1 {
			t.Fatalf("%q: %q", src, err)
		}
		p := ten.Projects[0]
		if p.Spec.Parent != want || (want == "" && p.Spec.Queues[0].Name != "") {
			t.Errorf("%q: parent %q, queue name %q", src, p.Spec.Parent, p.Spec.Queues[0].Name)
		}
	}
	for src, want := range map[string]string{
		proj + "  queues:\n    - {nodepool: h100}\n":    `t.yaml:6: Project p: /spec/queues/0: the queue has no name key, which KRM's CRD requires: write name: "" to have KRM name its Queue p-h100, or give it a name`,
		proj + "  queues:\n    - {nodepool: default}\n": `t.yaml:6: Project p: /spec/queues/0: the queue has no name key, which KRM's CRD requires: write name: "" to have KRM name its Queue p, or give it a name`,
	} {
		if _, err := parseErr(src); err != want {
			t.Errorf("%q:\n got %q\nwant %q", src, err, want)
		}
	}
}

// The KRMConfig's fields krmplan uses, with the project-controller's
// extraArgs winning over args as KRM's operator passes them last.
func TestKRMConfigFields(t *testing.T) {
	const head = "apiVersion: kai.resources/v1alpha1\nkind: KRMConfig\nmetadata: {name: krm-config}\nspec:\n"
	ten, err := parseErr(head + "  global: {namespaceProjectLabelKey: team}\n  projectController:\n" +
		"    args: {projectNamePrefix: ws, resourceManualOverrideLabelKey: hands-off}\n    features: {createNamespaces: false}\n")
	if err != "" {
		t.Fatal(err)
	}
	c := ten.KRMConfig
	if c == nil || c.LabelKey() != "team" || c.NamePrefix() != "ws" || c.OverrideKey() != "hands-off" || c.CreatesNamespaces() {
		t.Errorf("KRMConfig %+v", c)
	}
	ten, err = parseErr(head + "  projectController:\n    args: {projectNamePrefix: ws}\n" +
		"    extraArgs: [--project-name-prefix=x, --namespace-project-label-key, t2, -v=2]\n")
	if c := ten.KRMConfig; err != "" || c.NamePrefix() != "x" || c.LabelKey() != "t2" || c.OverrideKey() != "kai.resources/resource-manual-override" || !c.CreatesNamespaces() {
		t.Errorf("extraArgs: %q, %+v", err, c)
	}
	if _, err := parseErr(head + "  projectController:\n    features: {createNamespaces: 1}\n"); err != "t.yaml:6: KRMConfig krm-config: /spec/projectController/features/createNamespaces is `1`, the number 1; KRM's schema wants true or false there: write true or false" {
		t.Errorf("createNamespaces: 1: %q", err)
	}
	if _, err := parseErr(head + "  projectController:\n    extraArgs: --namespaces\n"); err != "t.yaml:6: KRMConfig krm-config: /spec/projectController/extraArgs is `--namespaces`, the string \"--namespaces\"; KRM's schema wants a list there" {
		t.Errorf("extraArgs that is not a list: %q", err)
	}
}

// kubectl reads a document with an items list as a list (kind List, as
// `kubectl get -o yaml` writes it, or DepartmentList) and applies each
// item: KRM objects there would reach the cluster unread by krmplan, so
// such a list is refused, naming them. A list of other objects is kept
// aside like any other document.
func TestListOfKRMObjectsIsRefused(t *testing.T) {
	item := func(kind, name string) string {
		return "  - apiVersion: kai.resources/v1alpha1\n    kind: " + kind + "\n    metadata: {name: " + name + "}\n    spec: {}\n"
	}
	for src, want := range map[string]string{
		"apiVersion: v1\nkind: List\nmetadata: {resourceVersion: \"\"}\nitems:\n" + item("Department", "eng") + item("Project", "alpha"):                              "t.yaml:1: the document is a List whose items kubectl applies one by one: Department eng, Project alpha; krmplan reads a KRM object only as a document of its own: write each item as a document, separated by ---",
		"apiVersion: kai.resources/v1alpha1\nkind: ProjectList\nitems:\n" + item("Project", "a") + item("Project", "b") + item("Project", "c") + item("Project", "d"): "t.yaml:1: the document is a ProjectList whose items kubectl applies one by one: Project a, Project b, Project c and 1 more; krmplan reads a KRM object only as a document of its own: write each item as a document, separated by ---",
		yamlDept + "---\napiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n":                                            "",
	} {
		if _, err := parseErr(src); err != want {
			t.Errorf("%q:\n got %q\nwant %q", src, err, want)
		}
	}
}
