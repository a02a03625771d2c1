// Package live is krmplan's edge to a running cluster, the only package
// besides the CLI that links client-go: the live reader (a live snapshot,
// ReadState, and the live overlay of a git snapshot, ReadClusterData) and
// the server-side dry run of a plan's steps (ServerDryRun). It converts
// what the API server returns into the snapshot's model; everything it
// hands back is plain snapshot and planner data.
package live

// The live reader: one client-go reader of a cluster, used for a live
// snapshot (ReadState: the KRM objects and what the cluster adds) and for
// the live overlay of a git snapshot (ReadClusterData: nodes, Queues and
// namespaces only).

import (
	"context"
	"errors"
	"fmt"

	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// The resources the live reader lists. The KRM kinds are cluster-scoped
// kai.resources/v1alpha1; the KAI Queue is scheduling.run.ai/v2.
var (
	GVRNodePool           = KindGVR(tenancy.KindNodePool)
	GVRDepartment         = KindGVR(tenancy.KindDepartment)
	GVRProject            = KindGVR(tenancy.KindProject)
	GVRManagedNodesConfig = KindGVR(tenancy.KindManagedNodesConfig)
	GVRKRMConfig          = KindGVR(tenancy.KindKRMConfig)
	GVRQueue              = schema.GroupVersionResource{Group: "scheduling.run.ai", Version: "v2", Resource: "queues"}
)

// KindGVR is the group, version and resource of a KRM kind (the kind
// table's).
func KindGVR(k tenancy.Kind) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: tenancy.Group, Version: tenancy.Version, Resource: k.Info().Resource}
}

// DefaultPageSize is the number of objects the reader asks for per list
// request (metav1.ListOptions.Limit); the rest follows with Continue.
const DefaultPageSize = 500

// ClusterReader reads a cluster through client-go: the KRM objects and the
// KAI Queues through the dynamic client, nodes and namespaces through the
// typed one. Every list is paginated (Limit/Continue). It keeps only what
// a snapshot needs: specs, names, uids, resourceVersions and the GitOps
// keys; never status churn, managedFields or a credential.
type ClusterReader struct {
	dyn  dynamic.Interface
	core kubernetes.Interface
	// Context and Server are recorded in the snapshot's source.
	Context, Server string
	// PageSize is the Limit of each list request; 0 means DefaultPageSize.
	PageSize int64
}

// NewClusterReader makes a reader for the target. It errors only when the
// configuration cannot make a client (a bad server URL, unreadable TLS
// files); nothing is sent to the server yet.
func NewClusterReader(t *KubeTarget) (*ClusterReader, error) {
	dyn, err := dynamic.NewForConfig(t.Config)
	if err != nil {
		return nil, fmt.Errorf("making a client for %s: %w", t.Server, err)
	}
	core, err := kubernetes.NewForConfig(t.Config)
	if err != nil {
		return nil, fmt.Errorf("making a client for %s: %w", t.Server, err)
	}
	return &ClusterReader{dyn: dyn, core: core, Context: t.Context, Server: t.Server}, nil
}

// ReadState takes a live snapshot: the NodePools, Departments and Projects,
// the ManagedNodesConfig and KRMConfig (nil when there is none), and the
// cluster data of ReadClusterData. The state is not sealed. It returns an
// error when the KRM objects cannot be read — the CRDs are not installed
// (ErrKRMNotInstalled) or RBAC forbids listing them — since there is
// nothing to plan without them; Queues, Nodes and Namespaces that cannot be
// listed become NotRead entries instead.
func (r *ClusterReader) ReadState(ctx context.Context) (*snapshot.State, error) {
	st := &snapshot.State{Source: snapshot.Source{Kind: "cluster", Context: r.Context, Server: r.Server}}
	if err := r.readKRM(ctx, st); err != nil {
		return nil, err
	}
	d, err := r.readClusterData(ctx, st.KRMConfig.OverrideKey())
	if err != nil {
		return nil, err
	}
	st.Overlay(d)
	return st, nil
}

// ReadClusterData reads what a cluster adds to a snapshot: the nodes (with
// their capacity and allocatable resource lists, Ready, cordoned and
// pressure conditions and labels), the KAI Queues (quota, limit and
// overQuotaWeight in spec units, parentQueue, status.allocated,
// allocatedNonPreemptible and requested as written, creationTimestamp,
// the manual-override label) and the namespaces with their labels. A source that cannot be listed because its CRD is absent or RBAC
// forbids it is a NotRead entry with the reason. Any other failure (the
// server unreachable, the deadline of ctx passed, a malformed object) is an
// error naming the resource.
func (r *ClusterReader) ReadClusterData(ctx context.Context) (*snapshot.ClusterData, error) {
	return r.readClusterData(ctx, r.overrideKey(ctx))
}

// overrideKey is the manual-override label key of the cluster's KRMConfig,
// KRM's default when it has none or it cannot be read (the KRMConfig is
// not part of cluster data; the default key is kept on every Queue anyway).
func (r *ClusterReader) overrideKey(ctx context.Context) string {
	items, err := r.listDynamic(ctx, GVRKRMConfig)
	if err != nil {
		return tenancy.DefaultManualOverrideLabelKey
	}
	var c *tenancy.KRMConfig
	if o := singleton(&snapshot.State{}, items, tenancy.KindKRMConfig.Info().Singleton); o != nil {
		c = krmConfigOf(o)
	}
	return c.OverrideKey()
}

// readClusterData is ReadClusterData, keeping on each Queue the
// manual-override label of key overrideKey, and of KRM's default key.
func (r *ClusterReader) readClusterData(ctx context.Context, overrideKey string) (*snapshot.ClusterData, error) {
	d := &snapshot.ClusterData{Context: r.Context, Server: r.Server, Nodes: []snapshot.Node{}, LiveQueues: []snapshot.LiveQueue{}, Namespaces: []snapshot.Namespace{}}
	keys := []string{tenancy.DefaultManualOverrideLabelKey}
	if overrideKey != keys[0] {
		keys = append(keys, overrideKey)
	}
	var err error
	if d.Nodes, err = r.readNodes(ctx); err != nil {
		if d.NotRead, err = r.notRead(ctx, d.NotRead, snapshot.SourceNodes, "nodes", err); err != nil {
			return nil, err
		}
	}
	if d.LiveQueues, err = r.readQueues(ctx, keys); err != nil {
		if d.NotRead, err = r.notRead(ctx, d.NotRead, snapshot.SourceQueues, "queues.scheduling.run.ai", err); err != nil {
			return nil, err
		}
	}
	if d.Namespaces, err = r.readNamespaces(ctx); err != nil {
		if d.NotRead, err = r.notRead(ctx, d.NotRead, snapshot.SourceNamespaces, "namespaces", err); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// notRead turns a list error of an optional source into a NotRead entry
// (CRD absent, RBAC forbidden) or returns it as an error (anything else).
func (r *ClusterReader) notRead(ctx context.Context, nr []snapshot.NotRead, what, resource string, err error) ([]snapshot.NotRead, error) {
	switch {
	case ctx.Err() != nil:
		return nr, r.wrap(ctx, resource, err)
	case apierrors.IsForbidden(err):
		return append(nr, snapshot.NotRead{What: what, Reason: "forbidden: " + apiMessage(err)}), nil
	case apierrors.IsNotFound(err) && what == snapshot.SourceQueues:
		return append(nr, snapshot.NotRead{What: what, Reason: "the Queue CRD (queues.scheduling.run.ai, v2) is not installed: the server does not serve it (KAI Scheduler is missing or older)"}), nil
	case apierrors.IsNotFound(err):
		return append(nr, snapshot.NotRead{What: what, Reason: "the server does not serve " + resource}), nil
	}
	return nr, r.wrap(ctx, resource, err)
}

// ErrKRMNotInstalled is wrapped by the error of ReadState when the server
// does not serve the KRM CRDs (kai.resources/v1alpha1).
var ErrKRMNotInstalled = errors.New("the KRM CRDs (kai.resources/v1alpha1) are not installed")

// ClusterError is a failure to read a resource of a cluster.
type ClusterError struct {
	Resource string // e.g. "departments.kai.resources"
	Context  string
	Server   string
	// Timeout is set when the deadline of the read passed.
	Timeout bool
	Err     error
}

func (e *ClusterError) Error() string {
	where := e.Server
	if e.Context != "" {
		where = fmt.Sprintf("context %s (%s)", e.Context, e.Server)
	}
	if e.Timeout {
		return fmt.Sprintf("reading %s from %s: timed out (%v)", e.Resource, where, e.Err)
	}
	return fmt.Sprintf("reading %s from %s: %v", e.Resource, where, e.Err)
}

func (e *ClusterError) Unwrap() error { return e.Err }

func (r *ClusterReader) wrap(ctx context.Context, resource string, err error) error {
	return &ClusterError{Resource: resource, Context: r.Context, Server: r.Server, Timeout: errors.Is(ctx.Err(), context.DeadlineExceeded), Err: err}
}

// apiMessage is the server's own words for an API error.
func apiMessage(err error) string {
	var s apierrors.APIStatus
	if errors.As(err, &s) && s.Status().Message != "" {
		return s.Status().Message
	}
	return err.Error()
}

// readKRM lists the KRM objects into st.
func (r *ClusterReader) readKRM(ctx context.Context, st *snapshot.State) error {
	list := func(gvr schema.GroupVersionResource, required bool) ([]unstructured.Unstructured, error) {
		items, err := r.listDynamic(ctx, gvr)
		if err == nil {
			return items, nil
		}
		name := gvr.Resource + "." + gvr.Group
		switch {
		case ctx.Err() != nil:
			return nil, r.wrap(ctx, name, err)
		case apierrors.IsNotFound(err) && required:
			return nil, r.wrap(ctx, name, fmt.Errorf("%w: the server does not serve %s; is KAI Resource Management installed, and is this the right cluster?", ErrKRMNotInstalled, name))
		case apierrors.IsNotFound(err):
			return nil, nil // an older KRM without this kind: as a tenancy without the document
		case apierrors.IsForbidden(err):
			return nil, r.wrap(ctx, name, fmt.Errorf("forbidden: %s; krmplan needs get and list on the kai.resources objects", apiMessage(err)))
		}
		return nil, r.wrap(ctx, name, err)
	}
	pools, err := list(GVRNodePool, true)
	if err != nil {
		return err
	}
	depts, err := list(GVRDepartment, true)
	if err != nil {
		return err
	}
	projs, err := list(GVRProject, true)
	if err != nil {
		return err
	}
	mncs, err := list(GVRManagedNodesConfig, false)
	if err != nil {
		return err
	}
	krmcs, err := list(GVRKRMConfig, false)
	if err != nil {
		return err
	}
	for i := range pools {
		p, err := nodePoolOf(&pools[i])
		if err != nil {
			return r.wrap(ctx, tenancy.KindNodePool.Plural(), err)
		}
		st.NodePools = append(st.NodePools, p)
	}
	for i := range depts {
		d, err := departmentOf(&depts[i])
		if err != nil {
			return r.wrap(ctx, "departments.kai.resources", err)
		}
		st.Departments = append(st.Departments, d)
	}
	for i := range projs {
		p, err := projectOf(&projs[i])
		if err != nil {
			return r.wrap(ctx, "projects.kai.resources", err)
		}
		st.Projects = append(st.Projects, p)
	}
	if o := singleton(st, mncs, tenancy.KindManagedNodesConfig.Info().Singleton); o != nil {
		if st.ManagedNodes, err = managedNodesOf(o); err != nil {
			return r.wrap(ctx, "managednodesconfigs.kai.resources", err)
		}
	}
	if o := singleton(st, krmcs, tenancy.KindKRMConfig.Info().Singleton); o != nil {
		st.KRMConfig = krmConfigOf(o)
	}
	return nil
}

// singleton picks the object named name (KRM's singleton), nil when there
// is none; the others, which KRM ignores, are listed in st.Other as a git
// snapshot lists them.
func singleton(st *snapshot.State, items []unstructured.Unstructured, name string) *unstructured.Unstructured {
	var found *unstructured.Unstructured
	for i := range items {
		if items[i].GetName() == name {
			found = &items[i]
			continue
		}
		st.Other = append(st.Other, snapshot.OtherDocument{APIVersion: items[i].GetAPIVersion(), Kind: items[i].GetKind(), Name: items[i].GetName()})
	}
	return found
}

func (r *ClusterReader) pageSize() int64 {
	if r.PageSize > 0 {
		return r.PageSize
	}
	return DefaultPageSize
}

// listDynamic lists every object of gvr, page by page.
func (r *ClusterReader) listDynamic(ctx context.Context, gvr schema.GroupVersionResource) ([]unstructured.Unstructured, error) {
	return listPages(ctx, r.pageSize(), func(ctx context.Context, o metav1.ListOptions) ([]unstructured.Unstructured, string, error) {
		l, err := r.dyn.Resource(gvr).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.GetContinue(), nil
	})
}

func (r *ClusterReader) readQueues(ctx context.Context, overrideKeys []string) ([]snapshot.LiveQueue, error) {
	return listPages(ctx, r.pageSize(), func(ctx context.Context, o metav1.ListOptions) ([]snapshot.LiveQueue, string, error) {
		l, err := r.dyn.Resource(GVRQueue).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		out := make([]snapshot.LiveQueue, 0, len(l.Items))
		for i := range l.Items {
			q, err := liveQueueOf(&l.Items[i], overrideKeys)
			if err != nil {
				return nil, "", err
			}
			out = append(out, q)
		}
		return out, l.GetContinue(), nil
	})
}

func (r *ClusterReader) readNodes(ctx context.Context) ([]snapshot.Node, error) {
	return listPages(ctx, r.pageSize(), func(ctx context.Context, o metav1.ListOptions) ([]snapshot.Node, string, error) {
		l, err := r.core.CoreV1().Nodes().List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		out := make([]snapshot.Node, 0, len(l.Items))
		for i := range l.Items {
			n, err := nodeOf(&l.Items[i])
			if err != nil {
				return nil, "", err
			}
			out = append(out, n)
		}
		return out, l.Continue, nil
	})
}

func (r *ClusterReader) readNamespaces(ctx context.Context) ([]snapshot.Namespace, error) {
	return listPages(ctx, r.pageSize(), func(ctx context.Context, o metav1.ListOptions) ([]snapshot.Namespace, string, error) {
		l, err := r.core.CoreV1().Namespaces().List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		out := make([]snapshot.Namespace, 0, len(l.Items))
		for _, ns := range l.Items {
			out = append(out, snapshot.Namespace{Name: ns.Name, Labels: nonEmpty(ns.Labels)})
		}
		return out, l.Continue, nil
	})
}

// listPages calls list with Limit = limit and the Continue token of each
// page until the server returns none, and joins the pages (each converted
// by list already, so a large cluster is never held as raw objects). When
// a Continue token expires mid-way (410 Gone: the list outlived etcd's
// compaction window), it starts over once from the first page.
func listPages[T any](ctx context.Context, limit int64, list func(context.Context, metav1.ListOptions) ([]T, string, error)) ([]T, error) {
	var out []T
	o := metav1.ListOptions{Limit: limit}
	restarted := false
	for {
		items, cont, err := list(ctx, o)
		if err != nil {
			if o.Continue != "" && apierrors.IsResourceExpired(err) && !restarted {
				restarted, out, o.Continue = true, nil, ""
				continue
			}
			return nil, err
		}
		out = append(out, items...)
		if cont == "" {
			return out, nil
		}
		o.Continue = cont
	}
}
