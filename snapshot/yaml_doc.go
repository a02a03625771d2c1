package snapshot

import (
	"cmp"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/internal/kubeyaml"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/internal/yamlsrc"
	"github.com/krmplan/krmplan/snapshot/krmschema"
	"github.com/krmplan/krmplan/tenancy"
	"go.yaml.in/yaml/v3"
)

// head is what a document says it is, read from its own keys before
// anything is expanded: apiVersion, kind and metadata.name, with the nodes
// that hold them.
type head struct {
	apiVersion, kind, name string
	versionAt, kindAt      *yaml.Node
	hasQueues              bool // spec.queues is written: the shape of a KRM object
}

// peekHead reads the document's head from root's own keys (aliases
// followed, merge keys not: a head hidden behind a merge key is caught
// by read once the document is checked).
func peekHead(root *yaml.Node) head {
	h := head{versionAt: root, kindAt: root}
	text := func(n *yaml.Node) string {
		if v := deref(n); v != nil && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
			return v.Value
		}
		return ""
	}
	if v := ownKey(root, "apiVersion"); v != nil {
		h.apiVersion, h.versionAt = text(v), v
	}
	if v := ownKey(root, "kind"); v != nil {
		h.kind, h.kindAt = text(v), v
	}
	h.name = text(ownKey(ownKey(root, "metadata"), "name"))
	h.hasQueues = ownKey(ownKey(root, "spec"), "queues") != nil
	return h
}

// ownKey is the value of key written in mapping m itself (merge keys not
// followed), the last of a key written twice, as kubectl keeps it.
func ownKey(m *yaml.Node, key string) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var v *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key && k.Tag != "!!merge" {
			v = m.Content[i+1]
		}
	}
	return v
}

// checkHead refuses a document meant for KRM whose apiVersion or kind is
// wrong or missing: kubectl sends such an object to another API, or none.
func (r *docReader) checkHead(h head) error {
	group, _, _ := strings.Cut(h.apiVersion, "/")
	switch {
	case h.apiVersion != tenancy.APIVersion && krmKind(h.kind) && meantForKRM(h.apiVersion):
		if h.apiVersion == "" {
			return r.errf(h.versionAt, "%s has no apiVersion; krmplan reads %s (KRM's only version)", h.kind, tenancy.APIVersion)
		}
		return r.errf(h.versionAt, "%s has apiVersion %s; krmplan reads %s (KRM's only version)", h.kind, h.apiVersion, tenancy.APIVersion)
	case h.kind == "" && (strings.EqualFold(group, tenancy.Group) || (h.apiVersion == "" && h.hasQueues)):
		what := "apiVersion " + h.apiVersion
		if h.apiVersion == "" {
			what = "spec.queues"
		}
		return r.errf(h.kindAt, "the document has %s but no kind; kubectl refuses a document without kind (Object 'Kind' is missing): write kind: %s",
			what, strings.Join(krmKinds[:3], ", "))
	case strings.EqualFold(group, tenancy.Group) && !krmKind(h.kind):
		if k := strings.TrimSpace(h.kind); k != h.kind && krmKind(k) {
			return r.errf(h.kindAt, "kind is %q, with spaces around %s; %s has no such kind: write kind: %s", h.kind, k, h.apiVersion, k)
		}
		if near := nearKRMKind(h.kind); near != "" {
			return r.errf(h.kindAt, "%s has no kind %s (did you mean %s?); krmplan reads %s", h.apiVersion, h.kind, near, strings.Join(krmKinds, ", "))
		}
	}
	return nil
}

// read checks one document as kubectl reads it (docCheck) and reads a KRM
// object of it into t; another document is kept in t.Other.
func (r *docReader) read(t *Parsed, root *yaml.Node) error {
	h := peekHead(root)
	r.values = make(map[string]tenancy.Pos, r.check.values[h.kind])
	defer func() { r.check.values[h.kind] = len(r.values) }()
	if err := r.checkHead(h); err != nil {
		return err
	}
	known := h.apiVersion == tenancy.APIVersion && krmKind(h.kind)
	schema, obj := krmschema.Any, objRef{}
	if known {
		schema, obj = krmschema.Kinds[h.kind], objRef{h.kind, h.name}
		r.obj = obj
	}
	c := r.check
	c.reset(known, obj, root.Line)
	if err := c.document(root, schema); err != nil {
		return err
	}
	r.shared = yamlsrc.SharedAnchors(root)
	top, err := r.fields(root, "a document")
	if err != nil {
		return err
	}
	var meta, spec *yaml.Node
	apiVersion, kind := "", ""
	for _, kv := range top {
		switch kv[0].Value {
		case "apiVersion":
			apiVersion, _ = r.str(kv[1], "apiVersion")
		case "kind":
			kind, _ = r.str(kv[1], "kind")
		case "metadata":
			meta = kv[1]
		case "spec":
			spec = kv[1]
		}
	}
	if apiVersion != h.apiVersion || kind != h.kind {
		return r.errf(root, "the document's apiVersion or kind comes from a merge key (<<); write both in the document itself")
	}
	if !known {
		if listed := listedKRM(root); len(listed) > 0 {
			return r.errf(root, "the document is a %s whose items kubectl applies one by one: %s; krmplan reads a KRM object only as a document of its own: write each item as a document, separated by ---",
				cmp.Or(kind, "list"), words.List(listed, 3))
		}
		// Another kind (a Kustomization, a ConfigMap, another group's
		// NodePool) is kept aside, with whatever name it has.
		t.Other = append(t.Other, OtherDocument{APIVersion: apiVersion, Kind: kind, Name: nameOf(meta), File: r.file, Line: root.Line})
		return nil
	}
	m, err := r.meta(meta, root)
	if err != nil {
		return err
	}
	if m.Name == "" {
		return r.errf(root, "the object has no metadata.name; kubectl refuses it (resource name may not be empty)")
	}
	r.obj = objRef{kind, m.Name}
	return r.readKind(t, kind, m, spec, root)
}

// readKind reads the spec of a KRM object of kind into t.
func (r *docReader) readKind(t *Parsed, kind string, m tenancy.Meta, spec, root *yaml.Node) error {
	origin := &tenancy.Origin{File: r.file, Line: root.Line, Values: tenancy.PositionsOf(r.values)}
	switch kind {
	case "NodePool":
		p := tenancy.NodePool{Metadata: m, Origin: origin}
		if err := r.nodePoolSpec(spec, &p.Spec); err != nil {
			return err
		}
		t.NodePools = append(t.NodePools, p)
	case "Department":
		d := tenancy.Department{Metadata: m, Origin: origin}
		if err := r.specQueues(spec, root, func(k string, v *yaml.Node) (bool, error) { return false, nil }, &d.Spec.Queues); err != nil {
			return err
		}
		t.Departments = append(t.Departments, d)
	case "Project":
		p := tenancy.Project{Metadata: m, Origin: origin}
		if err := r.projectSpec(spec, root, &p); err != nil {
			return err
		}
		t.Projects = append(t.Projects, p)
	case "ManagedNodesConfig":
		c := &tenancy.ManagedNodesConfig{Metadata: m, Origin: origin}
		if err := r.managedNodes(spec, c); err != nil {
			return err
		}
		return t.setSingleton(r, root, kind, m.Name, tenancy.KindManagedNodesConfig.Info().Singleton, func() { t.ManagedNodes = c })
	case "KRMConfig":
		c := &tenancy.KRMConfig{Metadata: m}
		if err := r.krmConfig(spec, c); err != nil {
			return err
		}
		return t.setSingleton(r, root, kind, m.Name, tenancy.KindKRMConfig.Info().Singleton, func() { t.KRMConfig = c })
	}
	return nil
}

// setSingleton keeps a ManagedNodesConfig or KRMConfig when it has the
// name KRM reads (want), through set; another one is kept in t.Other,
// where the checks say KRM ignores it. Duplicates reports a second one of
// the name: both are the same cluster object.
func (t *Parsed) setSingleton(r *docReader, root *yaml.Node, kind, name, want string, set func()) error {
	if name != want {
		t.Other = append(t.Other, OtherDocument{APIVersion: tenancy.APIVersion, Kind: kind, Name: name, File: r.file, Line: root.Line})
		return nil
	}
	t.singletons = append(t.singletons, singletonDecl{kind: kind, name: name, origin: &tenancy.Origin{File: r.file, Line: root.Line}})
	set()
	return nil
}

// singletonDecl is where a ManagedNodesConfig or KRMConfig of the name KRM
// reads is declared.
type singletonDecl struct {
	kind, name string
	origin     *tenancy.Origin
}

func (r *docReader) projectSpec(spec, root *yaml.Node, p *tenancy.Project) error {
	p.Spec.ParentOmitted = true
	err := r.specQueues(spec, root, func(k string, v *yaml.Node) (bool, error) {
		var err error
		switch k {
		case "parent":
			p.Spec.Parent, err = r.str(v, "/spec/parent")
			p.Spec.ParentOmitted = false
			r.pos("/spec/parent", v)
		case "namespace":
			p.Spec.Namespace, err = r.str(v, "/spec/namespace")
			r.pos("/spec/namespace", v)
		case "defaultNodePools":
			p.Spec.DefaultNodePools, err = r.strList(v, "/spec/defaultNodePools")
		default:
			return false, nil
		}
		return true, err
	}, &p.Spec.Queues)
	// No spec.parent (or parent: "") is valid KRM: a root project, whose
	// queues are root queues beside the departments (krm-facts 4).
	return err
}

// krmConfig reads what krmplan uses of a KRMConfig (tenancy.KRMConfig):
// spec.global.namespaceProjectLabelKey; the project-controller's
// args.projectNamePrefix and args.resourceManualOverrideLabelKey,
// features.createNamespaces, and extraArgs, whose flags win.
func (r *docReader) krmConfig(spec *yaml.Node, c *tenancy.KRMConfig) error {
	if spec == nil {
		return nil
	}
	var extra []string
	err := r.walk(spec, "/spec", func(path string, v *yaml.Node) (err error) {
		switch path {
		case "/spec/global/namespaceProjectLabelKey":
			c.ProjectLabelKey, err = r.str(v, path)
		case "/spec/projectController/args/projectNamePrefix":
			c.ProjectNamePrefix, err = r.str(v, path)
		case "/spec/projectController/args/resourceManualOverrideLabelKey":
			c.ManualOverrideLabelKey, err = r.str(v, path)
		case "/spec/projectController/features/createNamespaces":
			var b bool
			if b, err = r.boolean(v, path); err == nil {
				c.CreateNamespaces = &b
			}
		case "/spec/projectController/extraArgs":
			extra, err = r.strList(v, path)
		}
		return err
	}, "/spec/global", "/spec/projectController", "/spec/projectController/args", "/spec/projectController/features")
	if err != nil {
		return err
	}
	c.ApplyExtraArgs(extra)
	return nil
}

// walk calls leaf with the JSON pointer of every field of mapping n (at
// path), descending into the mappings named by into.
func (r *docReader) walk(n *yaml.Node, path string, leaf func(string, *yaml.Node) error, into ...string) error {
	kvs, err := r.fields(n, path)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		p := path + "/" + kv[0].Value
		if slices.Contains(into, p) {
			err = r.walk(kv[1], p, leaf, into...)
		} else {
			err = leaf(p, kv[1])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// boolean reads true or false as kubectl sends them (YAML 1.1: true, yes,
// on, …; the strict reading refuses the spellings other tools read
// otherwise).
func (r *docReader) boolean(n *yaml.Node, what string) (bool, error) {
	d := deref(n)
	k := kubeyaml.Kubectl(kubeyaml.ScalarOf(d, r.lines.Src(), r.check.start(d)))
	if d.Kind != yaml.ScalarNode || k.Kind != kubeyaml.Bool {
		return false, r.errf(n, "%s: %q is not true or false", what, d.Value)
	}
	return k.Text == "true", nil
}

// listedKRM names ("Department eng") the KRM objects among the items of a
// document kubectl reads as a list: one with an items key (kind List, as
// kubectl get -o yaml writes it, or DepartmentList), which kubectl's
// decoder takes for a list whatever its kind, applying each item.
func listedKRM(root *yaml.Node) []string {
	items := deref(ownKey(root, "items"))
	if items == nil || items.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, it := range items.Content {
		if h := peekHead(it); krmKind(h.kind) && (h.apiVersion == tenancy.APIVersion || meantForKRM(h.apiVersion)) {
			out = append(out, h.kind+" "+h.name)
		}
	}
	return out
}
