package testapiserver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The CRDs the project's tests rely on, as the upstream projects name them.
var wantCRDs = map[string]struct {
	group, version, kind, plural string
}{
	"nodepools.kai.resources":           {"kai.resources", "v1alpha1", "NodePool", "nodepools"},
	"departments.kai.resources":         {"kai.resources", "v1alpha1", "Department", "departments"},
	"projects.kai.resources":            {"kai.resources", "v1alpha1", "Project", "projects"},
	"managednodesconfigs.kai.resources": {"kai.resources", "v1alpha1", "ManagedNodesConfig", "managednodesconfigs"},
	"krmconfigs.kai.resources":          {"kai.resources", "v1alpha1", "KRMConfig", "krmconfigs"},
	"queues.scheduling.run.ai":          {"scheduling.run.ai", "v2", "Queue", "queues"},
}

// The upstream references that ../shared/crds must hold when it exists.
var wantUpstream = []string{
	"nodepools.kai.resources", "departments.kai.resources", "projects.kai.resources", "queues.scheduling.run.ai",
}

// readCRDs reads every CustomResourceDefinition in the .yaml/.yml/.json files of dir,
// keyed by metadata.name.
func readCRDs(t *testing.T, dir string) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	crds := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, f := range files {
		switch filepath.Ext(f.Name()) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		path := filepath.Join(dir, f.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.UnmarshalStrict(doc, &crd); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if crd.Kind != "CustomResourceDefinition" {
				continue
			}
			if _, dup := crds[crd.Name]; dup {
				t.Fatalf("%s: CRD %s defined twice in %s", path, crd.Name, dir)
			}
			crds[crd.Name] = &crd
		}
	}
	return crds
}

// TestOurCRDs checks the identity of the project's own CRDs (no server needed).
func TestOurCRDs(t *testing.T) {
	dir, err := CRDDir()
	if err != nil {
		t.Fatal(err)
	}
	ours := readCRDs(t, dir)
	for name, want := range wantCRDs {
		crd, ok := ours[name]
		if !ok {
			t.Errorf("%s: no CRD %s", dir, name)
			continue
		}
		if crd.Spec.Group != want.group || crd.Spec.Names.Kind != want.kind || crd.Spec.Names.Plural != want.plural ||
			crd.Spec.Scope != apiextensionsv1.ClusterScoped || name != want.plural+"."+want.group {
			t.Errorf("%s: group %q kind %q plural %q scope %q, want %q %q %q Cluster",
				name, crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Names.Plural, crd.Spec.Scope, want.group, want.kind, want.plural)
		}
		if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != want.version ||
			!crd.Spec.Versions[0].Served || !crd.Spec.Versions[0].Storage {
			t.Errorf("%s: want exactly one served storage version %s", name, want.version)
			continue
		}
		if v := crd.Spec.Versions[0]; v.Subresources == nil || v.Subresources.Status == nil {
			t.Errorf("%s: no status subresource", name)
		}
	}
	for name := range ours {
		if _, ok := wantCRDs[name]; !ok {
			t.Errorf("%s: unexpected CRD %s (add it to wantCRDs)", dir, name)
		}
	}
}

// TestCRDsAgreeWithUpstream checks the project's CRDs against the upstream references in
// <repo root>/../shared/crds: same group, version, names, scope and subresources, and
// every field path the project declares exists upstream with the same type (and format,
// when ours sets one); our required fields and CEL rules are upstream's too. CRDs absent
// upstream (ManagedNodesConfig, KRMConfig) are checked only when a reference appears.
func TestCRDsAgreeWithUpstream(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	upDir := filepath.Join(root, "..", "shared", "crds")
	if fi, err := os.Stat(upDir); err != nil || !fi.IsDir() {
		t.Skipf("no upstream CRD references at %s", upDir)
	}
	ours := readCRDs(t, filepath.Join(root, "testdata", "crds"))
	upstream := readCRDs(t, upDir)
	for _, name := range wantUpstream {
		if upstream[name] == nil {
			t.Errorf("%s: no upstream reference for %s", upDir, name)
		}
	}
	names := make([]string, 0, len(ours))
	for name := range ours {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		up := upstream[name]
		if up == nil {
			t.Logf("%s: no upstream reference; not compared", name)
			continue
		}
		t.Run(name, func(t *testing.T) { compareCRD(t, ours[name], up) })
	}
}

func compareCRD(t *testing.T, ours, up *apiextensionsv1.CustomResourceDefinition) {
	o, u := ours.Spec, up.Spec
	if o.Group != u.Group || o.Scope != u.Scope {
		t.Errorf("group/scope %s/%s, upstream %s/%s", o.Group, o.Scope, u.Group, u.Scope)
	}
	if o.Names.Kind != u.Names.Kind || o.Names.Plural != u.Names.Plural || o.Names.Singular != u.Names.Singular ||
		o.Names.ListKind != u.Names.ListKind {
		t.Errorf("names %+v, upstream %+v", o.Names, u.Names)
	}
	for _, s := range o.Names.ShortNames {
		if !slices.Contains(u.Names.ShortNames, s) {
			t.Errorf("short name %q is not upstream's (%v)", s, u.Names.ShortNames)
		}
	}
	for _, ov := range o.Versions {
		i := slices.IndexFunc(u.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == ov.Name })
		if i < 0 {
			t.Errorf("version %s is not upstream's", ov.Name)
			continue
		}
		uv := u.Versions[i]
		if ov.Served != uv.Served || ov.Storage != uv.Storage {
			t.Errorf("version %s: served/storage %v/%v, upstream %v/%v", ov.Name, ov.Served, ov.Storage, uv.Served, uv.Storage)
		}
		if (ov.Subresources != nil && ov.Subresources.Status != nil) != (uv.Subresources != nil && uv.Subresources.Status != nil) {
			t.Errorf("version %s: status subresource differs from upstream", ov.Name)
		}
		if ov.Schema == nil || ov.Schema.OpenAPIV3Schema == nil || uv.Schema == nil || uv.Schema.OpenAPIV3Schema == nil {
			t.Errorf("version %s: missing schema", ov.Name)
			continue
		}
		upFields := map[string]*apiextensionsv1.JSONSchemaProps{}
		walkSchema("", uv.Schema.OpenAPIV3Schema, func(path string, s *apiextensionsv1.JSONSchemaProps) { upFields[path] = s })
		n := 0
		walkSchema("", ov.Schema.OpenAPIV3Schema, func(path string, s *apiextensionsv1.JSONSchemaProps) {
			n++
			us, ok := upFields[path]
			if !ok {
				t.Errorf("%s: field %s is not upstream's", ov.Name, display(path))
				return
			}
			if ot, ut := schemaType(s), schemaType(us); ot != ut {
				t.Errorf("%s: field %s has type %s, upstream %s", ov.Name, display(path), ot, ut)
			}
			if s.Format != "" && s.Format != us.Format {
				t.Errorf("%s: field %s has format %q, upstream %q", ov.Name, display(path), s.Format, us.Format)
			}
			for _, r := range s.Required {
				if !slices.Contains(us.Required, r) {
					t.Errorf("%s: %s requires %q, upstream does not", ov.Name, display(path), r)
				}
			}
			for _, rule := range s.XValidations {
				if !slices.ContainsFunc(us.XValidations, func(ur apiextensionsv1.ValidationRule) bool {
					return squash(ur.Rule) == squash(rule.Rule)
				}) {
					t.Errorf("%s: %s has CEL rule %q, upstream does not", ov.Name, display(path), rule.Rule)
				}
			}
		})
		if n < 5 {
			t.Errorf("%s: only %d schema nodes compared", ov.Name, n)
		}
		compareCompleteness(t, ov.Name, ov.Schema.OpenAPIV3Schema, upFields)
	}
}

// compareCompleteness checks that our schema of a version misses no
// upstream field: the tenancy reader derives its known fields from our
// schemas (snapshot/krmschema/krmschema_gen.go), and ours may keep unknown fields
// only where upstream does.
func compareCompleteness(t *testing.T, version string, ours *apiextensionsv1.JSONSchemaProps, upFields map[string]*apiextensionsv1.JSONSchemaProps) {
	t.Helper()
	ourFields := map[string]*apiextensionsv1.JSONSchemaProps{}
	walkSchema("", ours, func(path string, s *apiextensionsv1.JSONSchemaProps) { ourFields[path] = s })
	for path, us := range upFields {
		os, ok := ourFields[path]
		if !ok {
			t.Errorf("%s: upstream field %s is missing from ours", version, display(path))
			continue
		}
		if os.XPreserveUnknownFields != nil && *os.XPreserveUnknownFields &&
			(us.XPreserveUnknownFields == nil || !*us.XPreserveUnknownFields) {
			t.Errorf("%s: field %s keeps unknown fields, upstream does not", version, display(path))
		}
	}
}

// walkSchema calls fn for s and every schema below it. Paths are dotted property names,
// with "[]" for array items and "{}" for additionalProperties; the root is "".
func walkSchema(path string, s *apiextensionsv1.JSONSchemaProps, fn func(string, *apiextensionsv1.JSONSchemaProps)) {
	fn(path, s)
	for name, p := range s.Properties {
		p := p
		walkSchema(path+"."+name, &p, fn)
	}
	if s.Items != nil && s.Items.Schema != nil {
		walkSchema(path+"[]", s.Items.Schema, fn)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walkSchema(path+"{}", s.AdditionalProperties.Schema, fn)
	}
}

// schemaType names a schema's type, treating x-kubernetes-int-or-string as its own type.
func schemaType(s *apiextensionsv1.JSONSchemaProps) string {
	if s.XIntOrString {
		return "int-or-string"
	}
	if s.Type == "" {
		return "(none)"
	}
	return s.Type
}

func display(path string) string {
	if path == "" {
		return "(root)"
	}
	return strings.TrimPrefix(path, ".")
}

func squash(s string) string { return strings.Join(strings.Fields(s), "") }
