// Package testapiserver runs a real kube-apiserver and etcd for krmplan's tests, with the
// project's CRDs (testdata/crds) installed. It wraps controller-runtime's envtest.
//
// The binaries come from KUBEBUILDER_ASSETS, a folder holding kube-apiserver, etcd and
// kubectl. scripts/test-apiserver.sh builds them once per machine from the nested
// tools/apiserver module (3 to 8 minutes the first time, then instant) and prints
// that folder:
//
//	export KUBEBUILDER_ASSETS="$(scripts/test-apiserver.sh)"
//	go test ./...
//
// A test package starts one control plane for all of its tests, from TestMain:
//
//	func TestMain(m *testing.M) { testapiserver.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		env := testapiserver.Need(t) // skips (or fails under CI=true) without KUBEBUILDER_ASSETS
//		dyn := dynamic.NewForConfigOrDie(env.Config)
//		...
//	}
//
// A control plane costs about 4 s and 330 MB, so keep the number of packages that need
// one small. Objects created by one test stay visible to the next tests of the same
// package: use distinct names per test.
package testapiserver

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// ModulePath is the root module's path; RepoRoot looks for the go.mod that declares it.
const ModulePath = "github.com/krmplan/krmplan"

// AdminContext is the name of the context (and of the cluster and user) in the admin
// kubeconfig written to Env.Kubeconfig and in the kubeconfigs written by Env.AddUser.
const AdminContext = "envtest"

// StartTimeout bounds the start of etcd and of kube-apiserver (each), sized for a busy
// 2-core CI machine; a start normally takes about 4 s in all.
const StartTimeout = 90 * time.Second

// ErrNoAssets is returned by Start (and reported by Need) when KUBEBUILDER_ASSETS is not
// set. Its text says how to build the binaries.
var ErrNoAssets = errors.New("KUBEBUILDER_ASSETS is not set; build the test API server with " +
	"`export KUBEBUILDER_ASSETS=\"$(scripts/test-apiserver.sh)\"` (3 to 8 minutes the first time on a machine)")

// Env is a running control plane: etcd and kube-apiserver on random loopback ports, with
// the CRDs of testdata/crds installed and established. Its fields are set by Start and
// must not be modified; use the methods from any goroutine.
type Env struct {
	// Config is the admin client configuration (a system:masters user authenticated by a
	// client certificate). It is shared: pass rest.CopyConfig(env.Config) to code that
	// modifies its argument.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file for the same admin user, with a single
	// context named AdminContext ("envtest"), suitable for kubectl --kubeconfig or KUBECONFIG.
	Kubeconfig string
	// Kubectl is the path of the kubectl binary in AssetsDir, or "" when AssetsDir has none.
	Kubectl string
	// AssetsDir is the folder the binaries were taken from (KUBEBUILDER_ASSETS).
	AssetsDir string
	// CRDDir is the folder whose CRDs were installed (<repo root>/testdata/crds).
	CRDDir string
	// CRDs lists the names of the installed CRDs, e.g. "departments.kai.resources".
	CRDs []string

	env *envtest.Environment
	dir string // holds the kubeconfig files; removed by Stop

	mu      sync.Mutex
	stopped bool
	users   int
}

// User is a user added with Env.AddUser: authenticated by a client certificate whose
// common name is Name and whose organizations are Groups. It has no permissions beyond
// those of system:authenticated until a (Cluster)RoleBinding grants some (see
// Env.BindClusterRole).
type User struct {
	// Name is the user name the API server sees.
	Name string
	// Groups are the groups the API server sees (besides system:authenticated).
	Groups []string
	// Config is the client configuration for this user.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file for this user, with a single context
	// named AdminContext ("envtest"). It is removed by Env.Stop.
	Kubeconfig string
}

// AssetsDir returns the value of KUBEBUILDER_ASSETS after checking that it is an absolute
// path to a folder holding kube-apiserver and etcd. It returns ErrNoAssets when the
// variable is unset or empty, and an error naming the folder when it is relative or
// lacks a binary.
func AssetsDir() (string, error) {
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		return "", ErrNoAssets
	}
	if !filepath.IsAbs(dir) {
		// go test runs each package in its own folder, so a relative path would name a
		// different folder in every package.
		return "", fmt.Errorf("KUBEBUILDER_ASSETS=%s is not an absolute path", dir)
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if fi, err := os.Stat(filepath.Join(dir, bin)); err != nil || fi.IsDir() {
			return "", fmt.Errorf("KUBEBUILDER_ASSETS=%s has no %s binary; rebuild it with scripts/test-apiserver.sh", dir, bin)
		}
	}
	return dir, nil
}

// RepoRoot returns the root of the krmplan repository: the nearest folder, going up from
// the working directory (go test runs a package's tests in the package folder) or else
// from this source file, whose go.mod declares ModulePath. It returns an error when
// neither start point is inside the repository.
func RepoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			if modulePathOf(filepath.Join(dir, "go.mod")) == ModulePath {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("cannot find the repository root (a go.mod declaring module %s) above %s", ModulePath, strings.Join(starts, " or "))
}

// modulePathOf returns the module path declared in a go.mod file, or "".
func modulePathOf(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`)
		}
	}
	return ""
}

// CRDDir returns <repo root>/testdata/crds, the folder of the project's CRD manifests,
// or an error when the repository root cannot be found.
func CRDDir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "testdata", "crds"), nil
}

// Start starts etcd and kube-apiserver from AssetsDir(), installs every CRD in CRDDir()
// and waits until they are established. The API server listens on 127.0.0.1 only and
// also advertises 127.0.0.1 (with --endpoint-reconciler-type=none), so no network
// interface besides loopback is needed. It returns ErrNoAssets without KUBEBUILDER_ASSETS;
// any other error says which step failed, and leaves nothing running. Call Stop when done.
// Most test packages should use Main and Need instead.
func Start() (*Env, error) {
	assets, err := AssetsDir()
	if err != nil {
		return nil, err
	}
	crdDir, err := CRDDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "krmplan-testapiserver-")
	if err != nil {
		return nil, fmt.Errorf("creating a folder for kubeconfigs: %w", err)
	}

	te := &envtest.Environment{
		CRDDirectoryPaths:        []string{crdDir},
		ErrorIfCRDPathMissing:    true,
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: StartTimeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	te.ControlPlane.GetAPIServer().Configure().
		Set("advertise-address", "127.0.0.1").
		Set("endpoint-reconciler-type", "none")

	if _, err := te.Start(); err != nil {
		_ = te.Stop() // stops whatever part did start
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the test API server from %s with the CRDs of %s: %w", assets, crdDir, err)
	}
	e := &Env{
		Config:    rest.CopyConfig(te.Config),
		AssetsDir: assets,
		CRDDir:    crdDir,
		env:       te,
		dir:       dir,
	}
	for _, crd := range te.CRDs {
		e.CRDs = append(e.CRDs, crd.Name)
	}
	if fi, err := os.Stat(filepath.Join(assets, "kubectl")); err == nil && !fi.IsDir() {
		e.Kubectl = filepath.Join(assets, "kubectl")
	}
	e.Kubeconfig = filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(e.Kubeconfig, te.KubeConfig, 0o600); err != nil {
		_ = e.Stop()
		return nil, fmt.Errorf("writing the admin kubeconfig: %w", err)
	}
	return e, nil
}

// Stop stops kube-apiserver and etcd and removes their data and the kubeconfig files.
// It is safe to call more than once; later calls return nil.
func (e *Env) Stop() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return nil
	}
	e.stopped = true
	err := e.env.Stop()
	if rmErr := os.RemoveAll(e.dir); err == nil {
		err = rmErr
	}
	return err
}

// AddUser provisions a user authenticated by a client certificate with the given name
// and groups, and writes a kubeconfig for it. The user can do nothing beyond what
// system:authenticated may until permissions are granted (BindClusterRole); pass the
// group "system:masters" for a second admin. It returns an error when the name is empty
// or the control plane is stopped.
func (e *Env) AddUser(name string, groups ...string) (*User, error) {
	if name == "" {
		return nil, errors.New("testapiserver: AddUser needs a user name")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return nil, errors.New("testapiserver: the control plane is stopped")
	}
	au, err := e.env.AddUser(envtest.User{Name: name, Groups: groups}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return nil, fmt.Errorf("adding user %q: %w", name, err)
	}
	kc, err := au.KubeConfig()
	if err != nil {
		return nil, fmt.Errorf("making the kubeconfig of user %q: %w", name, err)
	}
	e.users++
	path := filepath.Join(e.dir, fmt.Sprintf("user-%d-%s.kubeconfig", e.users, sanitize(name)))
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		return nil, fmt.Errorf("writing the kubeconfig of user %q: %w", name, err)
	}
	return &User{Name: name, Groups: append([]string(nil), groups...), Config: rest.CopyConfig(au.Config()), Kubeconfig: path}, nil
}

// sanitize keeps a user name usable in a file name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// BindClusterRole creates (as admin) a ClusterRole named name with the given rules and
// a ClusterRoleBinding of the same name granting it to subject, e.g.
//
//	env.BindClusterRole(ctx, "krm-reader", rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "planners"},
//		rbacv1.PolicyRule{APIGroups: []string{"kai.resources"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}})
//
// RBAC takes effect at once for new requests. It returns the API error (e.g.
// AlreadyExists when the name is taken).
func (e *Env) BindClusterRole(ctx context.Context, name string, subject rbacv1.Subject, rules ...rbacv1.PolicyRule) error {
	cs, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		return err
	}
	if subject.Kind != rbacv1.ServiceAccountKind && subject.APIGroup == "" {
		subject.APIGroup = rbacv1.GroupName
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating ClusterRole %s: %w", name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{subject},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating ClusterRoleBinding %s: %w", name, err)
	}
	return nil
}

// Environ returns os.Environ() with KUBECONFIG set to kubeconfig and AssetsDir put first
// on PATH, so that a child process (e.g. a rendered patch script) running plain
// `kubectl` uses the built kubectl against this server. Use it as exec.Cmd.Env.
func (e *Env) Environ(kubeconfig string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBECONFIG=") || strings.HasPrefix(kv, "PATH=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"KUBECONFIG="+kubeconfig,
		"PATH="+e.AssetsDir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// shared is the control plane of the running test binary, set up by Main.
var shared struct {
	mu      sync.Mutex
	started bool // Main ran
	env     *Env
	err     error
}

// Main is the body of a test package's TestMain: it starts one control plane, runs the
// package's tests (m.Run), stops the control plane and exits with the tests' status.
//
//	func TestMain(m *testing.M) { testapiserver.Main(m) }
//
// Without KUBEBUILDER_ASSETS nothing is started and the tests still run: those that call
// Need are skipped (or fail under CI=true), the others run normally. When the control
// plane fails to start, every Need fails with the reason. Main also stops the control
// plane on SIGINT/SIGTERM and a few seconds before the -test.timeout deadline, so a
// killed or timed-out run does not leave etcd and kube-apiserver behind. It sets
// controller-runtime's logger to discard (envtest logs through it).
func Main(m *testing.M) {
	if !flag.Parsed() {
		flag.Parse()
	}
	ctrllog.SetLogger(logr.Discard())
	begin := time.Now()

	env, err := Start()
	shared.mu.Lock()
	shared.started, shared.env, shared.err = true, env, err
	shared.mu.Unlock()
	switch {
	case errors.Is(err, ErrNoAssets):
		fmt.Fprintf(os.Stderr, "testapiserver: %v; tests that need the API server are %s\n", err, map[bool]string{true: "FAILED (CI=true)", false: "skipped"}[inCI()])
	case err != nil:
		fmt.Fprintf(os.Stderr, "testapiserver: %v\n", err)
	default:
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "testapiserver: control plane up in %.1fs (assets %s)\n", time.Since(begin).Seconds(), env.AssetsDir)
		}
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			s := <-sigs
			fmt.Fprintf(os.Stderr, "testapiserver: %v: stopping the control plane\n", s)
			_ = env.Stop()
			os.Exit(1)
		}()
		if d := testTimeout(); d > 15*time.Second {
			time.AfterFunc(d-time.Since(begin)-5*time.Second, func() {
				fmt.Fprintln(os.Stderr, "testapiserver: the test timeout is near: stopping the control plane so that it does not outlive the test binary")
				_ = env.Stop()
			})
		}
	}

	code := m.Run()
	if env != nil {
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testapiserver: stopping the control plane: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// testTimeout returns the value of -test.timeout, or 0.
func testTimeout() time.Duration {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return 0
	}
	d, _ := time.ParseDuration(f.Value.String())
	return d
}

// inCI reports whether CI is set to a true value ("true", "1", ...).
func inCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// Need returns the control plane that Main started for this test package. Without
// KUBEBUILDER_ASSETS it skips the test with a message saying how to build the binaries,
// except under CI=true, where it fails the test instead (an integration suite that
// silently skips in CI proves nothing). It fails the test when the control plane did
// not start, and when the package's TestMain does not call Main.
func Need(t testing.TB) *Env {
	t.Helper()
	shared.mu.Lock()
	started, env, err := shared.started, shared.env, shared.err
	shared.mu.Unlock()
	switch {
	case !started:
		t.Fatal("testapiserver.Need: this package's TestMain must call testapiserver.Main(m)")
	case errors.Is(err, ErrNoAssets):
		if inCI() {
			t.Fatalf("CI=true: %v", err)
		}
		t.Skipf("no test API server: %v", err)
	case err != nil:
		t.Fatalf("the test API server did not start: %v", err)
	}
	return env
}
