package live

// Conversions of the live objects into the state model. Only spec and the
// metadata krmplan keeps (name, uid, resourceVersion, GitOps keys) are
// taken; status is read for Queues (usage, requests) and Nodes (resource
// lists, Ready, pressure) only.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// GPUResourceName is the extended resource of NVIDIA's device plugin: a
// node's cards in status.capacity and status.allocatable.
const GPUResourceName = "nvidia.com/gpu"

// metaOf keeps the metadata krmplan stores of a live object.
func metaOf(o *unstructured.Unstructured) tenancy.Meta {
	return tenancy.Meta{Name: o.GetName(), UID: string(o.GetUID()), ResourceVersion: o.GetResourceVersion(),
		GitOps: GitOpsOf(o.GetLabels(), o.GetAnnotations())}
}

// GitOpsOf returns the GitOps ownership keys (GitOpsKeys) found among an
// object's labels and annotations, with their values; nil when there are
// none. An annotation wins over a label of the same key.
func GitOpsOf(labels, annotations map[string]string) map[string]string {
	var out map[string]string
	for _, k := range tenancy.GitOpsKeys {
		for _, m := range []map[string]string{annotations, labels} {
			if v, ok := m[k]; ok {
				if out == nil {
					out = map[string]string{}
				}
				out[k] = v
				break
			}
		}
	}
	return out
}

// decodeSpec decodes the object's spec into the typed spec. The JSON round
// trip writes each number as client-go decoded it (int64, or a float64 in
// its shortest form, which is also what the API server stores), and
// quota.Value parses that text exactly.
func decodeSpec(o *unstructured.Unstructured, into any) error {
	spec, ok := o.Object["spec"]
	if !ok || spec == nil {
		return nil
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("%s %s: spec: %w", o.GetKind(), o.GetName(), err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s %s: spec: %w", o.GetKind(), o.GetName(), err)
	}
	return nil
}

func nodePoolOf(o *unstructured.Unstructured) (tenancy.NodePool, error) {
	p := tenancy.NodePool{Metadata: metaOf(o)}
	return p, decodeSpec(o, &p.Spec)
}

func departmentOf(o *unstructured.Unstructured) (tenancy.Department, error) {
	d := tenancy.Department{Metadata: metaOf(o)}
	if err := decodeSpec(o, &d.Spec); err != nil {
		return d, err
	}
	if d.Spec.Queues == nil {
		d.Spec.Queues = []tenancy.Queue{}
	}
	return d, nil
}

func projectOf(o *unstructured.Unstructured) (tenancy.Project, error) {
	p := tenancy.Project{Metadata: metaOf(o)}
	if err := decodeSpec(o, &p.Spec); err != nil {
		return p, err
	}
	// A root project may have no spec.parent key; a patch must add it.
	_, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "parent")
	p.Spec.ParentOmitted = !found
	if p.Spec.Queues == nil {
		p.Spec.Queues = []tenancy.Queue{}
	}
	return p, nil
}

func managedNodesOf(o *unstructured.Unstructured) (*tenancy.ManagedNodesConfig, error) {
	var spec struct {
		Criteria struct {
			Terms []tenancy.NodeSelectorTerm `json:"nodeSelectorTerms"`
		} `json:"inclusion_criteria"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	return &tenancy.ManagedNodesConfig{Metadata: metaOf(o), Terms: spec.Criteria.Terms}, nil
}

// krmConfigOf keeps what krmplan reads of the KRMConfig: the project label
// key, the namespace prefix, the manual-override label key,
// createNamespaces, and the same flags in the project-controller's
// extraArgs, which win.
func krmConfigOf(o *unstructured.Unstructured) *tenancy.KRMConfig {
	c := &tenancy.KRMConfig{Metadata: metaOf(o)}
	c.ProjectLabelKey, _, _ = unstructured.NestedString(o.Object, "spec", "global", "namespaceProjectLabelKey")
	c.ProjectNamePrefix, _, _ = unstructured.NestedString(o.Object, "spec", "projectController", "args", "projectNamePrefix")
	c.ManualOverrideLabelKey, _, _ = unstructured.NestedString(o.Object, "spec", "projectController", "args", "resourceManualOverrideLabelKey")
	if v, ok, _ := unstructured.NestedBool(o.Object, "spec", "projectController", "features", "createNamespaces"); ok {
		c.CreateNamespaces = &v
	}
	if args, ok, _ := unstructured.NestedStringSlice(o.Object, "spec", "projectController", "extraArgs"); ok {
		c.ApplyExtraArgs(args)
	}
	return c
}

// liveQueueOf converts a KAI Queue (scheduling.run.ai/v2): spec.resources
// <r>.quota/limit/overQuotaWeight become deserved/limit/overQuotaWeight
// (the same units, unconverted), status.allocated,
// allocatedNonPreemptible and requested are kept as quantity text by
// resource name, metadata.creationTimestamp as RFC 3339 in UTC, and of
// the labels only the manual-override ones named by overrideKeys.
func liveQueueOf(o *unstructured.Unstructured, overrideKeys []string) (snapshot.LiveQueue, error) {
	q := snapshot.LiveQueue{Name: o.GetName()}
	for _, k := range overrideKeys {
		if v, ok := o.GetLabels()[k]; ok {
			if q.Labels == nil {
				q.Labels = map[string]string{}
			}
			q.Labels[k] = v
		}
	}
	q.ParentQueue, _, _ = unstructured.NestedString(o.Object, "spec", "parentQueue")
	res, _, _ := unstructured.NestedMap(o.Object, "spec", "resources")
	for _, r := range quota.Resources {
		block, ok := res[string(r)].(map[string]any)
		if !ok {
			continue
		}
		dst := q.Resources.Ensure(r)
		for _, f := range tenancy.QuotaFields {
			raw, ok := block[f.SchedulerName()]
			if !ok || raw == nil {
				continue
			}
			v, err := numberOf(raw)
			if err != nil {
				//lint:ignore ST1005 the message starts with the kind's name, Queue
				return q, fmt.Errorf("Queue %s: spec.resources.%s.%s: %w", q.Name, r, f.SchedulerName(), err)
			}
			*dst.Slot(f) = &v
		}
	}
	var err error
	if q.Allocated, err = quantities(o, "allocated"); err != nil {
		return q, err
	}
	if q.AllocatedNonPreemptible, err = quantities(o, "allocatedNonPreemptible"); err != nil {
		return q, err
	}
	if q.Requested, err = quantities(o, "requested"); err != nil {
		return q, err
	}
	if t := o.GetCreationTimestamp(); !t.IsZero() {
		q.CreationTimestamp = t.UTC().Format(time.RFC3339)
	}
	return q, nil
}

// quantities returns status.<field> as quantity text by resource name,
// nil when absent.
func quantities(o *unstructured.Unstructured, field string) (map[string]string, error) {
	m, ok, _ := unstructured.NestedMap(o.Object, "status", field)
	if !ok || len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out[k] = v
		case int64:
			out[k] = strconv.FormatInt(v, 10)
		case float64:
			out[k] = strconv.FormatFloat(v, 'g', -1, 64)
		default:
			//lint:ignore ST1005 the message starts with the kind's name, Queue
			return nil, fmt.Errorf("Queue %s: status.%s[%s] is %v (%T), not a quantity", o.GetName(), field, k, v, v)
		}
	}
	return out, nil
}

// numberOf reads a JSON number as client-go decodes it (int64 or float64)
// into an exact Value; anything else (a string) is an error.
func numberOf(v any) (quota.Value, error) {
	switch v := v.(type) {
	case int64:
		return quota.FromInt(v), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return quota.Value{}, fmt.Errorf("%v is not a number", v)
		}
		return quota.Parse(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return quota.Value{}, fmt.Errorf("%v (%T) is not a number", v, v)
}

// nodeOf keeps a node's name, labels, status.capacity and
// status.allocatable (every entry, as quantity text; KAI's division reads
// cpu, memory and the GPU entries), nvidia.com/gpu of both in cards (the
// older shape, 0 when the node has none), whether its Ready condition is
// True, whether it is cordoned (spec.unschedulable), and the pressure
// conditions that are not False.
func nodeOf(n *corev1.Node) (snapshot.Node, error) {
	out := snapshot.Node{Name: n.Name, Labels: nonEmpty(n.Labels), Cordoned: n.Spec.Unschedulable,
		Capacity: resourceList(n.Status.Capacity), Allocatable: resourceList(n.Status.Allocatable)}
	for _, c := range []struct {
		list corev1.ResourceList
		dst  *quota.Value
		what string
	}{{n.Status.Capacity, &out.GPUCapacity, "capacity"}, {n.Status.Allocatable, &out.GPUAllocatable, "allocatable"}} {
		q, ok := c.list[GPUResourceName]
		if !ok {
			continue
		}
		v, err := snapshot.QuotaFromQuantity(quota.GPU, q.String())
		if err != nil {
			return out, fmt.Errorf("node %s: status.%s: %w", n.Name, c.what, err)
		}
		*c.dst = v
	}
	for _, c := range n.Status.Conditions {
		switch t := string(c.Type); {
		case c.Type == corev1.NodeReady:
			out.Ready = c.Status == corev1.ConditionTrue
		case slices.Contains(snapshot.PressureConditions, t) && c.Status != corev1.ConditionFalse:
			if out.Pressure == nil {
				out.Pressure = map[string]string{}
			}
			out.Pressure[t] = string(c.Status)
		}
	}
	return out, nil
}

// resourceList is a node's resource list as quantity text, nil when empty.
func resourceList(l corev1.ResourceList) snapshot.ResourceList {
	if len(l) == 0 {
		return nil
	}
	out := make(snapshot.ResourceList, len(l))
	for name, q := range l {
		out[string(name)] = snapshot.Quantity(q.String())
	}
	return out
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}
