package tenancy

import (
	"testing"

	"github.com/krmplan/krmplan/quota"
)

// allFields lists every Field.
func allFields() []Field {
	var out []Field
	for f := Field(0); f < 255; f++ {
		if f.Valid() {
			out = append(out, f)
		}
	}
	return out
}

func TestFieldTextAndPointer(t *testing.T) {
	fields := allFields()
	if len(fields) != 9+len(quota.Resources)*len(QuotaFields) {
		t.Fatalf("%d fields", len(fields))
	}
	for _, f := range fields {
		if g, err := ParseField(f.String()); err != nil || g != f {
			t.Errorf("ParseField(%q) = %v, %v", f.String(), g, err)
		}
		queue := NoQueue
		if f.InQueue() {
			queue = 3
		}
		q, g, err := ParsePointer(f.Pointer(queue))
		if err != nil || g != f || q != queue {
			t.Errorf("ParsePointer(%q) = %d, %v, %v", f.Pointer(queue), q, g, err)
		}
	}
	want := map[Field][2]string{
		QuotaFieldOf(quota.GPU, Deserved):           {"gpu.deserved", "/spec/queues/3/resources/gpu/deserved"},
		QuotaFieldOf(quota.Memory, OverQuotaWeight): {"memory.overQuotaWeight", "/spec/queues/3/resources/memory/overQuotaWeight"},
		FieldQueueName:        {"name", "/spec/queues/3/name"},
		FieldQueueNodePool:    {"nodepool", "/spec/queues/3/nodepool"},
		FieldPriority:         {"priority", "/spec/queues/3/priority"},
		FieldLabelKey:         {"labelKey", "/spec/labelKey"},
		FieldDefaultNodePools: {"defaultNodePools", "/spec/defaultNodePools"},
		FieldName:             {"metadata.name", "/metadata/name"},
	}
	for f, w := range want {
		if f.String() != w[0] || f.Pointer(3) != w[1] {
			t.Errorf("%d: %q %q, want %q %q", f, f.String(), f.Pointer(3), w[0], w[1])
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, p := range []string{"", "/spec", "/spec/queues/x/name", "/spec/queues/01/name", "/spec/queues/-1/name",
		"/spec/queues/0/resources/gpu/quota", "/spec/queues/0/resources/tpu/limit", "/spec/queues/0", "/spec/queues/0/parent"} {
		if _, _, err := ParsePointer(p); err == nil {
			t.Errorf("ParsePointer(%q) gave no error", p)
		}
	}
	for _, s := range []string{"", "gpu", "gpu.quota", "tpu.limit", "metadata.labels", "Name"} {
		if _, err := ParseField(s); err == nil {
			t.Errorf("ParseField(%q) gave no error", s)
		}
	}
	for _, s := range []string{"Project", "Project/", "Queue/a", "project/a"} {
		if _, err := ParseObjectAddr(s); err == nil {
			t.Errorf("ParseObjectAddr(%q) gave no error", s)
		}
	}
}

func TestAddresses(t *testing.T) {
	o := KindProject.Object("workspace")
	if o.String() != "Project/workspace" {
		t.Errorf("object %q", o)
	}
	if back, err := ParseObjectAddr(o.String()); err != nil || back != o {
		t.Errorf("ParseObjectAddr = %v, %v", back, err)
	}
	f := o.Queue(1).Field(QuotaFieldOf(quota.GPU, Limit))
	if f.String() != "Project/workspace queue 1 gpu.limit" || f.Pointer() != "/spec/queues/1/resources/gpu/limit" {
		t.Errorf("field %q %q", f, f.Pointer())
	}
	if p := o.Field(FieldParent); p.String() != "Project/workspace parent" || p.Queue != NoQueue {
		t.Errorf("parent %q %d", p, p.Queue)
	}
	if !FieldParent.Of(KindProject) || FieldParent.Of(KindDepartment) || !FieldQueueName.Of(KindDepartment) ||
		FieldQueueName.Of(KindNodePool) || !FieldLabelValue.Of(KindNodePool) || !FieldName.Of(KindDepartment) {
		t.Error("Of says the wrong kinds")
	}
}

func TestKinds(t *testing.T) {
	for _, k := range Kinds {
		b, err := k.MarshalText()
		var back Kind
		if err != nil || back.UnmarshalText(b) != nil || back != k {
			t.Errorf("%v: %s, %v -> %v", k, b, err, back)
		}
	}
	if KindDepartment.Plural() != "departments.kai.resources" || KindNodePool.Info().Block != "node_pool" ||
		KindKRMConfig.Info().Singleton != "krm-config" || !KindProject.Info().Queues || KindNodePool.Info().Queues ||
		KindProject.Info().Parent != KindDepartment {
		t.Error("the kind table is wrong")
	}
	if _, err := Kind(0).MarshalText(); err == nil {
		t.Error("no kind marshals")
	}
}
