package live

// Loading the client configuration as kubectl does: the kubeconfig files,
// the context, and kubectl's overrides (--cluster, --user, --as,
// --as-group), with errors that list what the kubeconfig has.

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/internal/inputfile"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// KubeOptions says how to reach a cluster, the way kubectl's flags do.
type KubeOptions struct {
	// Kubeconfig is a kubeconfig file (--kubeconfig). Empty means kubectl's
	// default: the files listed in $KUBECONFIG, merged, else ~/.kube/config.
	Kubeconfig string
	// Context is the kubeconfig context to use (--context). Empty means the
	// kubeconfig's current-context.
	Context string
	// Cluster and User replace the context's cluster and user with the
	// kubeconfig's entries of these names (--cluster, --user); empty keeps
	// the context's.
	Cluster, User string
	// As impersonates this user (--as), AsGroups these groups (--as-group,
	// which needs As), as kubectl does: the API server then authorizes
	// every request as that user.
	As       string
	AsGroups []string
}

// KubeTarget is a loaded client configuration and the names a snapshot
// records for it. Nothing of the credentials leaves Config.
type KubeTarget struct {
	Config  *rest.Config
	Context string // the context used; "" for an in-cluster config
	Server  string // the API server's URL
}

// LoadKubeconfig loads the client configuration as kubectl does (clientcmd's
// loading rules: --kubeconfig, else $KUBECONFIG, else ~/.kube/config, and
// in-cluster credentials when none of them exists; --context, else the
// current context; --cluster, --user, --as and --as-group as clientcmd's
// overrides). Errors name the file and list what it has, in kubectl's
// words: a context, cluster or user that does not exist ("context "x" does
// not exist in the kubeconfig (F); its contexts: a, b"), a kubeconfig with
// contexts but no current-context ("current-context is not set in …"),
// no kubeconfig at all, a file that does not parse.
func LoadKubeconfig(o KubeOptions) (*KubeTarget, error) {
	if len(o.AsGroups) > 0 && o.As == "" {
		return nil, errors.New("--as-group needs --as: kubectl impersonates groups only together with a user")
	}
	if o.Kubeconfig != "" {
		// clientcmd would say "stat F: no such file or directory".
		if _, err := os.Stat(o.Kubeconfig); err != nil {
			return nil, kubeconfigFile.OpenError(o.Kubeconfig, err)
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	overrides.Context.Cluster = o.Cluster
	overrides.Context.AuthInfo = o.User
	overrides.AuthInfo.Impersonate = o.As
	overrides.AuthInfo.ImpersonateGroups = o.AsGroups
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	if o.Context != "" && len(raw.Contexts) == 0 && noFile(rules.GetLoadingPrecedence()) {
		return nil, fmt.Errorf("context %q does not exist: there is no kubeconfig file (%s); pass --kubeconfig FILE or set $KUBECONFIG", o.Context, missingWhere(o.Kubeconfig))
	}
	if err := checkNames(&raw, o, kubeconfigName(o.Kubeconfig)); err != nil {
		return nil, err
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			where := "$KUBECONFIG or ~/.kube/config"
			if o.Kubeconfig != "" {
				where = o.Kubeconfig
			}
			if noFile(rules.GetLoadingPrecedence()) {
				return nil, fmt.Errorf("no cluster configured: %s; pass --kubeconfig FILE or set $KUBECONFIG", missingWhere(o.Kubeconfig))
			}
			return nil, fmt.Errorf("no cluster configured: %s names no cluster; pass --kubeconfig FILE or --context NAME", where)
		}
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	name := o.Context
	if name == "" {
		name = raw.CurrentContext
	}
	if _, ok := raw.Contexts[name]; !ok {
		name = "" // in-cluster credentials, or --cluster and --user without a context
	}
	cfg.UserAgent = "krmplan"
	// Paging a large cluster makes many small requests; client-go's
	// default of 5 per second would dominate the read.
	cfg.QPS, cfg.Burst = 50, 100
	return &KubeTarget{Config: cfg, Context: name, Server: cfg.Host}, nil
}

// checkNames refuses a context, cluster or user that the kubeconfig does
// not have, and a kubeconfig with contexts but no current-context when no
// --context (or --cluster) chooses: clientcmd would report the first as a
// bare "does not exist" and the last as "no configuration has been
// provided". Each message lists the names the kubeconfig has. A kubeconfig
// without any context is left to clientcmd (in-cluster credentials).
func checkNames(raw *clientcmdapi.Config, o KubeOptions, file string) error {
	where := "the kubeconfig (" + file + ")"
	switch {
	case o.Context != "" && raw.Contexts[o.Context] == nil:
		return fmt.Errorf("context %q does not exist in %s; %s", o.Context, where, has(raw.Contexts, "contexts"))
	case o.Context == "" && raw.CurrentContext == "" && o.Cluster == "" && len(raw.Contexts) > 0:
		return fmt.Errorf("current-context is not set in %s: pass --context with one of its contexts (%s), or set one with kubectl config use-context NAME",
			where, names(raw.Contexts, "contexts"))
	case o.Context == "" && raw.CurrentContext != "" && raw.Contexts[raw.CurrentContext] == nil && o.Cluster == "":
		return fmt.Errorf("the current-context %q does not exist in %s; pass --context NAME: %s", raw.CurrentContext, where, has(raw.Contexts, "contexts"))
	case o.Cluster != "" && raw.Clusters[o.Cluster] == nil:
		return fmt.Errorf("cluster %q does not exist in %s; %s", o.Cluster, where, has(raw.Clusters, "clusters"))
	case o.User != "" && raw.AuthInfos[o.User] == nil:
		return fmt.Errorf("user %q does not exist in %s; %s", o.User, where, has(raw.AuthInfos, "users"))
	}
	return nil
}

// kubeconfigName is the kubeconfig as a message names it: the --kubeconfig
// file, else $KUBECONFIG's list, else ~/.kube/config.
func kubeconfigName(explicit string) string {
	switch env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); {
	case explicit != "":
		return explicit
	case env != "":
		return "$KUBECONFIG " + env
	}
	return "~/.kube/config"
}

// kubeconfigFile names --kubeconfig in the refusal of a file that cannot
// be opened (inputfile's words for every input).
var kubeconfigFile = inputfile.Kind{Arg: "--kubeconfig file"}

// noFile reports whether none of the kubeconfig files exists: clientcmd
// skips a missing file of $KUBECONFIG or ~/.kube/config without a word, so
// a named context would otherwise be reported as missing from an empty
// kubeconfig.
func noFile(files []string) bool {
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return false
		}
	}
	return true
}

// missingWhere says which kubeconfig files were looked for and not found.
func missingWhere(explicit string) string {
	if name := kubeconfigName(explicit); name != "~/.kube/config" {
		return name + ": none of its files exists"
	}
	return "~/.kube/config does not exist"
}

// maxListed bounds the names a message lists; kubectl config get-contexts
// shows them all.
const maxListed = 20

// has is "its contexts: a, b" or "it has no contexts".
func has[T any](m map[string]T, what string) string {
	if len(m) == 0 {
		return "it has no " + what
	}
	return "its " + what + ": " + names(m, what)
}

// names lists the keys of m sorted, at most maxListed of them; what is
// "contexts", "clusters" or "users", as kubectl config get-… names them.
func names[T any](m map[string]T, what string) string {
	ns := slices.Sorted(maps.Keys(m))
	if len(ns) <= maxListed {
		return strings.Join(ns, ", ")
	}
	return fmt.Sprintf("%s and %d more (kubectl config get-%s lists them)", strings.Join(ns[:maxListed], ", "), len(ns)-maxListed, what)
}
