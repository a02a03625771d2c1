package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/krmplan/krmplan/snapshot"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// testKubeconfig: a kubeconfig of several contexts and no current-context,
// loaded as kubectl loads it: the error lists the contexts; a wrong
// --context lists them too; --user, --as and --as-group change who reads
// (RBAC of the real API server decides what is read); --cluster replaces
// the context's cluster, and snapshot says that a patch script cannot
// follow it.
func testKubeconfig(f *fx) {
	kc := f.multiKubeconfig()
	snap := func(code int, args ...string) result {
		f.t.Helper()
		return f.must(f.krmplan(append([]string{"snapshot", "--kubeconfig", kc}, args...)...), code, "snapshot "+strings.Join(args, " "))
	}

	r := snap(1, "-o", "kc.json")
	f.wantEqual("no current-context", r.stderr, "Error: current-context is not set in the kubeconfig ("+kc+"): pass --context with one of its contexts (admin, dead, reader), or set one with kubectl config use-context NAME\n")
	r = snap(1, "--context", "prod")
	f.wantEqual("a wrong --context", r.stderr, `Error: context "prod" does not exist in the kubeconfig (`+kc+"); its contexts: admin, dead, reader\n")
	r = snap(1, "--context", "admin", "--user", "root")
	f.wantEqual("a wrong --user", r.stderr, `Error: user "root" does not exist in the kubeconfig (`+kc+"); its users: admin, reader\n")

	snap(0, "--context", "admin", "-o", "kc-admin.json")
	s := f.state("kc-admin.json")
	f.wantEqual("admin source", s.Source, snapshot.Source{Kind: "cluster", Context: "admin", Server: f.server})
	f.wantEqual("admin not_read", len(s.NotRead), 0)

	// The reader may list the KRM objects, nodes and namespaces, not Queues:
	// as --user, and as the admin impersonating it with --as.
	forbidden := `forbidden: queues.scheduling.run.ai is forbidden: User "kc-reader" cannot list resource "queues" in API group "scheduling.run.ai" at the cluster scope`
	for _, args := range [][]string{{"--context", "admin", "--user", "reader"}, {"--context", "admin", "--as", "kc-reader"}} {
		r = snap(0, append(args, "-o", "kc-reader.json")...)
		f.wantLine(strings.Join(args, " "), r.stderr, "Not read: queues — "+forbidden)
		f.wantEqual(strings.Join(args, " ")+" not_read", f.state("kc-reader.json").NotRead, []snapshot.NotRead{{What: snapshot.SourceQueues, Reason: forbidden}})
	}
	// --as-group adds groups to the impersonated user: system:masters reads all.
	snap(0, "--context", "admin", "--as", "kc-reader", "--as-group", "system:masters", "-o", "kc-masters.json")
	f.wantEqual("--as-group not_read", len(f.state("kc-masters.json").NotRead), 0)

	// --cluster: context dead (an unreachable server) with the real cluster.
	r = snap(0, "--context", "dead", "--cluster", "envtest", "-o", "kc-cluster.json")
	f.wantLine("--cluster", r.stderr, "Warning: --cluster envtest is not recorded in the snapshot (it records the server "+f.server+"); a patch script rendered from it runs kubectl --context dead, which reaches that context's own cluster.")
	f.wantEqual("--cluster source", f.state("kc-cluster.json").Source, snapshot.Source{Kind: "cluster", Context: "dead", Server: f.server})
	r = snap(1, "--context", "dead")
	if !strings.HasPrefix(r.stderr, "Error: reading nodepools.kai.resources from context dead (https://127.0.0.1:1): ") {
		f.t.Errorf("context dead: %q", r.stderr)
	}

	// plan --server-dry-run takes the same flags: impersonating the reader,
	// who may not patch, the server refuses the step.
	f.write("kc-grow.hcl", "project \"benchmark\" {\n  queue \"rtx-pro-6000\" {\n    gpu { deserved = 1.5 }\n  }\n}\n")
	r = f.must(f.krmplan("plan", "kc-grow.hcl", "--state", "kc-admin.json", "--server-dry-run", "--kubeconfig", kc, "--as", "kc-reader", "--no-color"), 1, "dry run as the reader")
	f.wantLine("dry run as the reader", r.stdout, `Error: step 1/1 (patch Project benchmark, growing or new projects): the API server refused it in a dry run: projects.kai.resources "benchmark" is forbidden: User "kc-reader" cannot patch resource "projects" in API group "kai.resources" at the cluster scope`)
}

// multiKubeconfig writes a kubeconfig with three contexts and no
// current-context: admin (the test server's admin), reader (a user who
// may list the KRM objects, nodes and namespaces) and dead (an
// unreachable server, as the admin).
func (f *fx) multiKubeconfig() string {
	f.t.Helper()
	err := f.env.BindClusterRole(context.Background(), "krmplan-kc-reader", rbacv1.Subject{Kind: rbacv1.UserKind, Name: "kc-reader"},
		rbacv1.PolicyRule{APIGroups: []string{"kai.resources"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes", "namespaces"}, Verbs: []string{"get", "list"}})
	if err != nil {
		f.t.Fatal(err)
	}
	u, err := f.env.AddUser("kc-reader")
	if err != nil {
		f.t.Fatal(err)
	}
	admin, err := clientcmd.LoadFromFile(f.env.Kubeconfig)
	if err != nil {
		f.t.Fatal(err)
	}
	reader, err := clientcmd.LoadFromFile(u.Kubeconfig)
	if err != nil {
		f.t.Fatal(err)
	}
	ac := admin.Contexts[admin.CurrentContext]
	rc := reader.Contexts[reader.CurrentContext]
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = admin.Clusters[ac.Cluster]
	cfg.Clusters["dead"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true}
	cfg.AuthInfos["admin"] = admin.AuthInfos[ac.AuthInfo]
	cfg.AuthInfos["reader"] = reader.AuthInfos[rc.AuthInfo]
	cfg.Contexts["admin"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	cfg.Contexts["reader"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "reader"}
	cfg.Contexts["dead"] = &clientcmdapi.Context{Cluster: "dead", AuthInfo: "admin"}
	path := filepath.Join(f.dir, "multi.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		f.t.Fatal(fmt.Errorf("writing %s: %w", path, err))
	}
	return path
}
