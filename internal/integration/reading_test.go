package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/krmplan/krmplan/internal/testapiserver"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The reading rules of the tenancy reader, proven against the real API
// server: for every spelling krmplan accepts, what `kubectl apply` (the
// kubectl built with the test apiserver) stores is exactly what krmplan
// read; for every spelling it refuses, the server stores the YAML 1.1
// reading, which is not the YAML 1.2 one, or refuses the object, or
// kubectl refuses the file.

// applyFx runs kubectl apply against the shared control plane.
type applyFx struct {
	t   *testing.T
	env *testapiserver.Env
	dyn dynamic.Interface
	dir string
	n   int
}

func newApplyFx(t *testing.T) *applyFx {
	env := testapiserver.Need(t)
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	// TestLive ends by deleting CRDs: put back what is missing.
	dir, err := testapiserver.CRDDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{Paths: []string{dir}, ErrorIfPathMissing: true}); err != nil {
		t.Fatalf("installing the CRDs again: %v", err)
	}
	return &applyFx{t: t, env: env, dyn: dyn, dir: t.TempDir()}
}

// name is a fresh object name for one case ("rd-7"), sharing nothing with
// the other tests of the package.
func (a *applyFx) name() string {
	a.n++
	return fmt.Sprintf("rd-%d", a.n)
}

// kubectl runs kubectl with args and the file src; out is what it
// printed, ok its success.
func (a *applyFx) kubectl(src string, args ...string) (out string, ok bool) {
	a.t.Helper()
	p := filepath.Join(a.dir, fmt.Sprintf("f%d.yaml", a.n))
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		a.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append(args, "-f", p)...)
	cmd.Env = a.env.Environ(a.env.Kubeconfig)
	b, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		a.t.Fatalf("kubectl %v: %v", args, ctx.Err())
	}
	return strings.TrimSpace(string(b)), err == nil
}

// apply is kubectl apply with strict field validation; the objects are
// deleted when the test ends.
func (a *applyFx) apply(src string) (string, bool) {
	a.t.Helper()
	out, ok := a.kubectl(src, "apply", "--validate=strict")
	a.t.Cleanup(func() { a.kubectl(src, "delete", "--ignore-not-found", "--wait=false") })
	return out, ok
}

// stored is the object the server holds, nil when there is none.
func (a *applyFx) stored(kind, name string) map[string]any {
	a.t.Helper()
	gvr := map[string]schema.GroupVersionResource{"NodePool": live.GVRNodePool, "Department": live.GVRDepartment, "Project": live.GVRProject}[kind]
	o, err := a.dyn.Resource(gvr).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return o.Object
}

// field is where a case writes its spelling, and how krmplan's reading
// and the stored value of it are found.
type field struct {
	kind string
	// doc is the document with the spelling in place of %s, the object's
	// name in place of NAME.
	doc string
	// read is krmplan's reading as text; storedAt the stored value's path.
	read     func(t *snapshot.Parsed) string
	storedAt []string
}

var (
	deservedField = field{"Department",
		"apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: NAME}\nspec:\n  queues:\n    - name: NAME-q\n      nodepool: default\n      resources:\n        gpu: {deserved: %s, limit: -1}\n",
		func(t *snapshot.Parsed) string {
			return t.Departments[0].Spec.Queues[0].Resources.GPU.Deserved.String()
		},
		[]string{"spec", "queues", "0", "resources", "gpu", "deserved"}}
	priorityField = field{"Department",
		"apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: NAME}\nspec:\n  queues:\n    - name: NAME-q\n      nodepool: default\n      priority: %s\n",
		func(t *snapshot.Parsed) string { return strconv.Itoa(int(*t.Departments[0].Spec.Queues[0].Priority)) },
		[]string{"spec", "queues", "0", "priority"}}
	labelValueField = field{"NodePool",
		"apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: NAME}\nspec:\n  labelKey: example.com/gpu\n  labelValue: %s\n",
		func(t *snapshot.Parsed) string { return t.NodePools[0].Spec.LabelValue },
		[]string{"spec", "labelValue"}}
	nodepoolField = field{"Department",
		"apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: NAME}\nspec:\n  queues:\n    - name: NAME-q\n      nodepool: %s\n",
		func(t *snapshot.Parsed) string { return t.Departments[0].Spec.Queues[0].NodePool },
		[]string{"spec", "queues", "0", "nodepool"}}
	parentField = field{"Project",
		"apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: NAME}\nspec:\n  parent: %s\n  queues: []\n",
		func(t *snapshot.Parsed) string { return t.Projects[0].Spec.Parent },
		[]string{"spec", "parent"}}
	gitopsField = field{"NodePool",
		"apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata:\n  name: NAME\n  labels: {argocd.argoproj.io/instance: %s}\nspec: {}\n",
		func(t *snapshot.Parsed) string { return t.NodePools[0].Metadata.GitOps["argocd.argoproj.io/instance"] },
		[]string{"metadata", "labels", "argocd.argoproj.io/instance"}}
)

// storedText is a stored value as text: a string as it is, a number as
// the server's JSON gives it (int64 or float64).
func storedText(o map[string]any, path []string) (string, bool) {
	var v any = o
	for _, k := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[k]
		case []any:
			i, _ := strconv.Atoi(k)
			if i >= len(c) {
				return "", false
			}
			v = c[i]
		default:
			return "", false
		}
	}
	switch v := v.(type) {
	case string:
		return v, true
	case int64:
		return strconv.FormatInt(v, 10), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return fmt.Sprint(v), v != nil
}

// sameValue compares krmplan's reading with the stored text: numbers as
// exact decimals, anything else as text.
func sameValue(read, stored string) bool {
	a, errA := quota.Parse(read)
	b, errB := quota.Parse(stored)
	if errA == nil && errB == nil {
		return a.Cmp(b) == 0
	}
	return read == stored
}

// Every spelling krmplan accepts is stored as krmplan read it.
func TestAcceptedSpellingsAreStoredAsRead(t *testing.T) {
	a := newApplyFx(t)
	for _, tc := range []struct {
		f        field
		spelling string
	}{
		{deservedField, "4"}, {deservedField, "4.0"}, {deservedField, "-1"}, {deservedField, "0.5"}, {deservedField, "0.1"},
		{deservedField, "1e3"}, {deservedField, "1.5E+3"}, {deservedField, ".5"}, {deservedField, "+5"}, {deservedField, "08"},
		{deservedField, "0o17"}, {deservedField, "0x1F"}, {deservedField, "!!float 4"}, {deservedField, "!!int 12"},
		{deservedField, "999999999999999999"}, {deservedField, "123456789012.345"},
		{priorityField, "100"}, {priorityField, "-5"}, {priorityField, "0x10"},
		{labelValueField, "h100"}, {labelValueField, `"on"`}, {labelValueField, "'010'"}, {labelValueField, `"true"`},
		{labelValueField, "2024-01-01"}, {labelValueField, "!!str 010"}, {labelValueField, "! 010"}, {labelValueField, "|-\n    yes"},
		{nodepoolField, "rtx-pro-6000"}, {nodepoolField, `"1.0"`},
		{parentField, "research"}, {parentField, `"no"`},
		{gitopsField, "team-a"}, {gitopsField, `"y"`},
	} {
		name := a.name()
		src := fmt.Sprintf(strings.ReplaceAll(tc.f.doc, "NAME", name), tc.spelling)
		var ten snapshot.Parsed
		if err := ten.ParseTenancy("t.yaml", []byte(src)); err != nil {
			t.Errorf("%s %s: krmplan refuses it: %v", tc.f.kind, tc.spelling, err)
			continue
		}
		read := tc.f.read(&ten)
		if out, ok := a.apply(src); !ok {
			t.Errorf("%s %s: kubectl apply refuses what krmplan accepts:\n%s", tc.f.kind, tc.spelling, out)
			continue
		}
		stored, ok := storedText(a.stored(tc.f.kind, name), tc.f.storedAt)
		if !ok || !sameValue(read, stored) {
			t.Errorf("%s %s: krmplan read %q, the API server stores %q", tc.f.kind, tc.spelling, read, stored)
		}
	}
}

// Every spelling krmplan refuses for reading differently in YAML 1.1 and
// 1.2: the API server stores the YAML 1.1 reading (stored), which is not
// the YAML 1.2 one (yaml12), or refuses the object (stored ""); krmplan's
// message names both readings (refusal, a part of it).
func TestRefusedSpellingsAreStoredOtherwise(t *testing.T) {
	a := newApplyFx(t)
	for _, tc := range []struct {
		f                       field
		spelling                string
		stored, yaml12, refusal string
	}{
		{deservedField, "010", "8", "10", "kubectl reads the number 8 (YAML 1.1 reads a leading 0 as octal), YAML 1.2 tools the number 10; write 8 or 10"},
		{deservedField, "-010", "-8", "-10", "kubectl reads the number -8"},
		{deservedField, "!!int 010", "8", "10", "kubectl reads the number 8"},
		{deservedField, "1_000", "1000", `"1_000"`, `kubectl reads the number 1000 (YAML 1.1 drops the underscores), YAML 1.2 tools the string "1_000"; write 1000`},
		{deservedField, "0b101", "5", `"0b101"`, `kubectl reads the number 5 (go-yaml v2 reads the 0b, 0o and 0x prefixes in either case, and with a sign), YAML 1.2 tools the string "0b101"`},
		{deservedField, "0X1F", "31", `"0X1F"`, `YAML 1.2 tools the string "0X1F"; write 31`},
		{deservedField, "-0x1F", "-31", `"-0x1F"`, `YAML 1.2 tools the string "-0x1F"; write -31`},
		{deservedField, "0.30000000000000001", "0.3", "0.30000000000000001", "kubectl reads the number 0.3 (kubectl sends it as a float64, which keeps 15 to 17 significant digits)"},
		{deservedField, "yes", "", `"yes"`, `kubectl reads the boolean true (YAML 1.1 reads y, yes, on, n, no and off as booleans), YAML 1.2 tools the string "yes"; KRM needs a number there`},
		{priorityField, "010", "8", "10", "kubectl reads the number 8"},
		{priorityField, "0b11", "3", `"0b11"`, "kubectl reads the number 3"},
		{labelValueField, "on", "", `"on"`, `kubectl reads the boolean true (YAML 1.1 reads y, yes, on, n, no and off as booleans), YAML 1.2 tools the string "on"; quote it ("on") if you mean the text`},
		{labelValueField, "010", "", "10", `kubectl reads the number 8 (YAML 1.1 reads a leading 0 as octal), YAML 1.2 tools the number 10; quote it ("010") if you mean the text`},
		{nodepoolField, "n", "", `"n"`, `kubectl reads the boolean false`},
		{parentField, "Off", "", `"Off"`, `kubectl reads the boolean false`},
		{gitopsField, "y", "", `"y"`, `kubectl reads the boolean true`},
	} {
		name := a.name()
		src := fmt.Sprintf(strings.ReplaceAll(tc.f.doc, "NAME", name), tc.spelling)
		var ten snapshot.Parsed
		err := ten.ParseTenancy("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.refusal) {
			t.Errorf("%s %s: krmplan's refusal %v does not say %q", tc.f.kind, tc.spelling, err, tc.refusal)
		}
		out, ok := a.apply(src)
		if tc.stored == "" {
			if ok {
				got, _ := storedText(a.stored(tc.f.kind, name), tc.f.storedAt)
				t.Errorf("%s %s: the API server stores %q, want a refusal", tc.f.kind, tc.spelling, got)
			}
			continue
		}
		if !ok {
			t.Errorf("%s %s: kubectl apply refuses it:\n%s", tc.f.kind, tc.spelling, out)
			continue
		}
		got, _ := storedText(a.stored(tc.f.kind, name), tc.f.storedAt)
		if got != tc.stored || sameValue(strings.Trim(tc.yaml12, `"`), got) {
			t.Errorf("%s %s: the API server stores %q, want %q (YAML 1.2 reads %s)", tc.f.kind, tc.spelling, got, tc.stored, tc.yaml12)
		}
	}
}

// strictCase is one case of TestStrictReadingAgainstKubectl.
type strictCase struct {
	what, src, refusal string
	kubectl            string                               // a part of kubectl's refusal
	stored             func(a *applyFx, name string) string // what the server holds, when kubectl takes the file
	want               string                               // and what that must be
}

// deptDoc is a Department of one queue, written in flow style.
func deptDoc(name, queue string) string {
	return "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: " + name + "}\nspec:\n  queues:\n    - " + queue + "\n"
}

// aliasBomb is a document whose merge keys expand 8^8 times: a few
// hundred bytes that go-yaml v2 refuses to expand.
func aliasBomb() string {
	bomb := "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: NAME}\nspec:\n  queues: []\nstatus:\n  conditions:\n" +
		"    - &a {type: a, status: x, message: m, reason: r}\n"
	for i, prev := 0, "a"; i < 8; i++ {
		next := string(rune('b' + i))
		bomb += fmt.Sprintf("    - &%s {<<: [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]}\n", next, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = next
	}
	return bomb
}

// storedAt returns a check of a stored field, as "label value".
func storedAt(kind, label string, path ...string) func(a *applyFx, name string) string {
	return func(a *applyFx, name string) string {
		v, _ := storedText(a.stored(kind, name), path)
		return label + " " + v
	}
}

var strictCases = []strictCase{
	{what: "a misspelt quota field", src: deptDoc("NAME", "{name: NAME-q, nodepool: default, resources: {gpu: {deserved: 1, overQuotaWieght: 3}}}"),
		refusal: `/spec/queues/0/resources/gpu: unknown field "overQuotaWieght" (did you mean overQuotaWeight?)`,
		kubectl: `strict decoding error: unknown field "spec.queues[0].resources.gpu.overQuotaWieght"`},
	{what: "desrved", src: deptDoc("NAME", "{name: NAME-q, nodepool: default, resources: {gpu: {desrved: 1}}}"),
		refusal: `unknown field "desrved" (did you mean deserved?)`, kubectl: `unknown field "spec.queues[0].resources.gpu.desrved"`},
	{what: "a misspelt metadata field", src: "apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata:\n  name: NAME\n  lables: {a: b}\nspec: {}\n",
		refusal: `/metadata: unknown field "lables" (did you mean labels?)`, kubectl: `unknown field "metadata.lables"`},
	{what: "a field under status", src: "apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: NAME}\nspec: {}\nstatus: {phaze: Ready}\n",
		refusal: `/status: unknown field "phaze" (did you mean phase?)`, kubectl: `unknown field "status.phaze"`},
	{what: "a duplicate key", src: deptDoc("NAME", "{name: NAME-q, nodepool: default, resources: {gpu: {deserved: 1, limit: 4, limit: 0}}}"),
		refusal: "/spec/queues/0/resources/gpu/limit is set twice in one mapping, on line 6 at columns ",
		stored:  storedAt("Department", "limit", "spec", "queues", "0", "resources", "gpu", "limit"), want: "limit 0"},
	{what: "spec.queues twice", src: "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: NAME}\nspec:\n  queues: [{name: NAME-a, nodepool: default}]\n  queues: [{name: NAME-b, nodepool: default}]\n",
		refusal: "/spec/queues is set twice in one mapping, at lines 5 and 6",
		stored: func(a *applyFx, name string) string {
			v, _ := storedText(a.stored("Department", name), []string{"spec", "queues", "0", "name"})
			return "queue " + strings.TrimPrefix(v, name+"-")
		}, want: "queue b"},
	{what: "a key before the merge key that sets it", src: deptDoc("NAME", "{name: NAME-q, nodepool: default, resources: {gpu: {limit: 2, <<: {limit: 1}}}}"),
		refusal: "/spec/queues/0/resources/gpu/limit at line 6 is also set by the merge key << after it (line 6): kubectl (go-yaml v2) takes the merged value",
		stored:  storedAt("Department", "limit", "spec", "queues", "0", "resources", "gpu", "limit"), want: "limit 1"},
	{what: "an alias of an earlier document", src: deptDoc("NAME", "&q {name: NAME-q, nodepool: default}") + "---\n" + deptDoc("NAME-2", "*q"),
		refusal: "the alias *q names an anchor of an earlier document (line 6)", kubectl: "unknown anchor 'q' referenced"},
	{what: "a document after ... without ---", src: deptDoc("NAME", "{name: NAME-q, nodepool: default}") + "...\n" + deptDoc("NAME-2", "{name: NAME-2-q, nodepool: default}"),
		refusal: "invalid YAML: did not find expected <document start>",
		stored: func(a *applyFx, name string) string {
			return fmt.Sprintf("first %v, second %v", a.stored("Department", name) != nil, a.stored("Department", name+"-2") != nil)
		}, want: "first true, second false"},
	{what: "text after ---", src: deptDoc("NAME", "{name: NAME-q, nodepool: default}") + "--- " + "{kind: x}\n",
		refusal: "kubectl reads a line that starts with --- as a document separator and refuses text after it", kubectl: "invalid Yaml document separator: {kind: x}"},
	{what: "a directive", src: "%YAML 1.1\n---\n" + deptDoc("NAME", "{name: NAME-q, nodepool: default}"),
		refusal: "kubectl does not read YAML directives", kubectl: "error"},
	{what: "no kind", src: "apiVersion: kai.resources/v1alpha1\nmetadata: {name: NAME}\nspec: {queues: []}\n",
		refusal: "the document has apiVersion kai.resources/v1alpha1 but no kind", kubectl: "kind not set"},
	{what: "no metadata.name", src: "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {labels: {a: b}}\nspec: {queues: []}\n",
		refusal: "the object has no metadata.name", kubectl: "name"},
	{what: "kind with a space", src: "apiVersion: kai.resources/v1alpha1\nkind: \"Project \"\nmetadata: {name: NAME}\nspec: {queues: []}\n",
		refusal: `kind is "Project ", with spaces around Project`, kubectl: "Project "},
	{what: "a label key y", src: "apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata:\n  name: NAME\n  labels: {y: x}\nspec: {}\n",
		refusal: "has the key `y`, which kubectl reads as \"true\" (YAML 1.1); quote it: \"y\"",
		stored:  storedAt("NodePool", "label true:", "metadata", "labels", "true"), want: "label true: x"},
	{what: "a tab before a comment", src: "# the department\n\t# of research\n" + deptDoc("NAME", "{name: NAME-q, nodepool: default}"),
		refusal: "t.yaml:2: kubectl cannot read this document: found character that cannot start any token", kubectl: "found character that cannot start any token"},
	{what: "a carriage return alone", src: strings.ReplaceAll(deptDoc("NAME", "{name: NAME-q, nodepool: default}")+"---\n"+deptDoc("NAME-2", "{name: NAME-2-q, nodepool: default}"), "\n", "\r"),
		refusal: "a carriage return without a line feed after it", stored: func(a *applyFx, name string) string {
			return fmt.Sprintf("first %v, second %v", a.stored("Department", name) != nil, a.stored("Department", name+"-2") != nil)
		}, want: "first true, second false"},
	{what: "aliases and merge keys beyond kubectl's bound", src: aliasBomb(),
		refusal: "expand beyond kubectl's bound", kubectl: "excessive aliasing"},
	{what: "a List of KRM objects", src: "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: kai.resources/v1alpha1\n    kind: Department\n    metadata: {name: NAME}\n    spec:\n      queues: [{name: NAME-q, nodepool: default}]\n",
		refusal: "the document is a List whose items kubectl applies one by one: Department rd-",
		stored: func(a *applyFx, name string) string {
			v, _ := storedText(a.stored("Department", name), []string{"spec", "queues", "0", "name"})
			return "queue " + strings.TrimPrefix(v, name+"-")
		}, want: "queue q"},
}

// What krmplan refuses of an object's shape, kubectl refuses too (strict
// field validation, its document splitter, go-yaml v2's alias bound), or
// reads otherwise than a YAML 1.2 tool: a duplicate key is kept last, a
// merge key overwrites the keys before it, a document after "..." is
// dropped, a label key y is "true".
func TestStrictReadingAgainstKubectl(t *testing.T) {
	a := newApplyFx(t)
	for _, tc := range strictCases {
		name := a.name()
		src := strings.ReplaceAll(tc.src, "NAME", name)
		var ten snapshot.Parsed
		if err := ten.ParseTenancy("t.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), tc.refusal) {
			t.Errorf("%s: krmplan's refusal %v does not say %q", tc.what, err, tc.refusal)
		}
		out, ok := a.apply(src)
		switch {
		case tc.kubectl != "" && (ok || !strings.Contains(out, tc.kubectl)):
			t.Errorf("%s: kubectl apply (ok %v) does not refuse with %q:\n%s", tc.what, ok, tc.kubectl, out)
		case tc.stored != nil && !ok:
			t.Errorf("%s: kubectl apply refuses it:\n%s", tc.what, out)
		case tc.stored != nil:
			if got := tc.stored(a, name); got != tc.want {
				t.Errorf("%s: the API server holds %s, want %s", tc.what, got, tc.want)
			}
		}
	}
}

// A ManagedNodesConfig or KRMConfig of another name than KRM reads is
// kept aside and warned about, the same live as from the file.
func TestIgnoredSingletonsLiveAndFromGit(t *testing.T) {
	a := newApplyFx(t)
	src := "apiVersion: kai.resources/v1alpha1\nkind: ManagedNodesConfig\nmetadata: {name: rd-gpu-nodes}\nspec:\n  inclusion_criteria:\n    nodeSelectorTerms: [{matchExpressions: [{key: example.com/gpu, operator: Exists}]}]\n" +
		"---\napiVersion: kai.resources/v1alpha1\nkind: KRMConfig\nmetadata: {name: rd-settings}\nspec: {global: {namespaceProjectLabelKey: example.com/project}}\n" +
		"---\napiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: rd-pool}\nspec: {labelKey: example.com/gpu, labelValue: rd}\n"
	if out, ok := a.apply(src); !ok {
		t.Fatalf("kubectl apply: %s", out)
	}
	var ten snapshot.Parsed
	if err := ten.ParseTenancy("t.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	fromGit := &snapshot.State{Source: snapshot.Source{Kind: "git"}, Other: ten.Other}
	fromGit.NodePools = ten.NodePools
	r, err := live.NewClusterReader(&live.KubeTarget{Config: a.env.Config, Context: "envtest", Server: a.env.Config.Host})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.ReadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	warnings := func(s *snapshot.State) []string {
		var out []string
		for _, f := range planner.CheckState(s) {
			if f.Code == planner.CodeSingletonIgnored && strings.HasPrefix(f.Object.Name, "rd-") {
				out = append(out, string(f.Level)+" "+f.Object.String()+": "+f.Message)
			}
		}
		slices.Sort(out)
		return out
	}
	want := []string{
		"warning KRMConfig/rd-settings: KRMConfig rd-settings is ignored: KRM reads only the KRMConfig named krm-config",
		"warning ManagedNodesConfig/rd-gpu-nodes: ManagedNodesConfig rd-gpu-nodes is ignored: KRM reads only the ManagedNodesConfig named kai-managed-nodes-config",
	}
	if got := warnings(st); !slices.Equal(got, want) {
		t.Errorf("live:\n got %q\nwant %q", got, want)
	}
	if got := warnings(fromGit); !slices.Equal(got, want) {
		t.Errorf("git:\n got %q\nwant %q", got, want)
	}
	if st.ManagedNodes != nil && st.ManagedNodes.Metadata.Name != tenancy.KindManagedNodesConfig.Info().Singleton {
		t.Errorf("live ManagedNodes is %s", st.ManagedNodes.Metadata.Name)
	}
	if st.KRMConfig != nil && st.KRMConfig.Metadata.Name != tenancy.KindKRMConfig.Info().Singleton {
		t.Errorf("live KRMConfig is %s", st.KRMConfig.Metadata.Name)
	}
}
