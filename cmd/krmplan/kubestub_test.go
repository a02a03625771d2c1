package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	jsonpatch "github.com/evanphx/json-patch/v5"
	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/proto"
	sigsyaml "sigs.k8s.io/yaml"
)

// The kubectl stub: an HTTP server that speaks just enough of the
// Kubernetes API for kubectl to run krmplan's patch scripts against it:
// discovery and the OpenAPI v2 schema of the kai.resources kinds (built
// from the project's test CRDs in testdata/crds, so kubectl validates
// every manifest strictly against them, client-side), and GET, POST
// (create) and JSON-patch PATCH of cluster-scoped kai.resources objects
// kept in memory, with a patch's dry run (dryRun=All: applied, not kept)
// and DELETE with a uid precondition (each object gets a uid). It stands
// in for a kube-apiserver where only the manifests and the JSON patches
// are under test; it runs no webhook and no server-side validation.

// crdDir is the project's test CRDs, relative to cmd/krmplan.
const crdDir = "../../testdata/crds"

type stubKind struct {
	kind, plural, singular string
	schema                 map[string]any
}

type kubeStub struct {
	mu      sync.Mutex
	uids    int                       // the uids given so far
	kinds   map[string]stubKind       // by plural
	objects map[string]map[string]any // by plural + "/" + name
	openapi []byte
	srv     *httptest.Server
}

func loadStubKinds() (map[string]stubKind, error) {
	files, err := filepath.Glob(filepath.Join(crdDir, "kai.resources_*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no CRDs in %s", crdDir)
	}
	kinds := map[string]stubKind{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind, Plural, Singular string
				} `json:"names"`
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := sigsyaml.Unmarshal(b, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, v := range crd.Spec.Versions {
			if v.Name != "v1alpha1" {
				continue
			}
			s := v.Schema.OpenAPIV3Schema
			dropV3Only(s)
			s["x-kubernetes-group-version-kind"] = []any{map[string]any{"group": crd.Spec.Group, "version": v.Name, "kind": crd.Spec.Names.Kind}}
			kinds[crd.Spec.Names.Plural] = stubKind{kind: crd.Spec.Names.Kind, plural: crd.Spec.Names.Plural, singular: crd.Spec.Names.Singular, schema: s}
		}
	}
	return kinds, nil
}

// dropV3Only removes what OpenAPI v2 cannot say (anyOf, oneOf: the
// int-or-string quantities of a Project's status), as the API server does
// when it publishes a CRD's schema at /openapi/v2.
func dropV3Only(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "anyOf")
		delete(v, "oneOf")
		for _, c := range v {
			dropV3Only(c)
		}
	case []any:
		for _, c := range v {
			dropV3Only(c)
		}
	}
}

func newKubeStub() (*kubeStub, error) {
	kinds, err := loadStubKinds()
	if err != nil {
		return nil, err
	}
	defs := map[string]any{}
	for _, k := range kinds {
		defs["kai.resources.v1alpha1."+k.kind] = k.schema
	}
	doc, err := json.Marshal(map[string]any{"swagger": "2.0", "info": map[string]any{"title": "krmplan kubectl stub", "version": "v1"}, "paths": map[string]any{}, "definitions": defs})
	if err != nil {
		return nil, err
	}
	d, err := openapi_v2.ParseDocument(doc)
	if err != nil {
		return nil, err
	}
	pb, err := proto.Marshal(d)
	if err != nil {
		return nil, err
	}
	s := &kubeStub{kinds: kinds, objects: map[string]map[string]any{}, openapi: pb}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s, nil
}

// seed stores the kai.resources objects of YAML files.
func (s *kubeStub) seed(files ...string) error {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			if doc == nil || doc["apiVersion"] != "kai.resources/v1alpha1" {
				continue
			}
			j, err := json.Marshal(doc)
			if err != nil {
				return err
			}
			var obj map[string]any
			if err := json.Unmarshal(j, &obj); err != nil {
				return err
			}
			for plural, k := range s.kinds {
				if k.kind == obj["kind"] {
					name, _ := obj["metadata"].(map[string]any)["name"].(string)
					s.giveUID(obj)
					s.objects[plural+"/"+name] = obj
				}
			}
		}
	}
	return nil
}

// giveUID sets a new object's metadata.uid, a UUID as the API server's.
func (s *kubeStub) giveUID(obj map[string]any) {
	s.uids++
	if md, ok := obj["metadata"].(map[string]any); ok {
		md["uid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", s.uids)
	}
}

func (s *kubeStub) kubeconfig() string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: stub, cluster: {server: %q}}]
users: [{name: stub, user: {}}]
contexts: [{name: stub, context: {cluster: stub, user: stub}}]
current-context: stub
`, s.srv.URL)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	writeJSON(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "message": msg, "code": code})
}

func (s *kubeStub) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	const base = "/apis/kai.resources/v1alpha1"
	switch p := r.URL.Path; {
	case p == "/version":
		writeJSON(w, 200, map[string]string{"major": "1", "minor": "34", "gitVersion": "v1.34.0-krmplan-stub"})
	case p == "/api":
		writeJSON(w, 200, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}, "serverAddressByClientCIDRs": []any{}})
	case p == "/api/v1":
		writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{}})
	case p == "/apis":
		gv := map[string]string{"groupVersion": "kai.resources/v1alpha1", "version": "v1alpha1"}
		writeJSON(w, 200, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{map[string]any{"name": "kai.resources", "versions": []any{gv}, "preferredVersion": gv}}})
	case p == base:
		var rs []any
		for _, k := range s.kinds {
			rs = append(rs, map[string]any{"name": k.plural, "singularName": k.singular, "namespaced": false, "kind": k.kind, "verbs": []string{"create", "get", "list", "patch", "delete"}})
		}
		writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "kai.resources/v1alpha1", "resources": rs})
	case p == "/openapi/v2":
		w.Header().Set("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
		_, _ = w.Write(s.openapi)
	case strings.HasPrefix(p, base+"/"):
		s.serveObject(w, r, strings.Split(strings.TrimPrefix(p, base+"/"), "/"))
	default:
		status(w, 404, "NotFound", "the server could not find the requested resource")
	}
}

func (s *kubeStub) serveObject(w http.ResponseWriter, r *http.Request, parts []string) {
	k, ok := s.kinds[parts[0]]
	if !ok || len(parts) > 2 {
		status(w, 404, "NotFound", "no such resource")
		return
	}
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && len(parts) == 1:
		if r.URL.Query().Get("dryRun") != "" {
			status(w, 400, "BadRequest", "the stub does not do server-side dry runs")
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(body, &obj); err != nil {
			status(w, 400, "BadRequest", err.Error())
			return
		}
		md, _ := obj["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		if _, exists := s.objects[k.plural+"/"+name]; exists {
			status(w, 409, "AlreadyExists", fmt.Sprintf("%s.kai.resources %q already exists", k.plural, name))
			return
		}
		s.giveUID(obj)
		s.objects[k.plural+"/"+name] = obj
		writeJSON(w, 201, obj)
	case len(parts) == 2 && r.Method == http.MethodDelete:
		s.delete(w, k.plural+"/"+parts[1], body)
	case len(parts) == 2 && (r.Method == http.MethodGet || r.Method == http.MethodPatch):
		key := k.plural + "/" + parts[1]
		obj, ok := s.objects[key]
		if !ok {
			status(w, 404, "NotFound", fmt.Sprintf("%s.kai.resources %q not found", k.plural, parts[1]))
			return
		}
		if r.Method == http.MethodGet {
			writeJSON(w, 200, obj)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json-patch+json" {
			status(w, 415, "UnsupportedMediaType", "the stub takes JSON patches only, not "+ct)
			return
		}
		patch, err := jsonpatch.DecodePatch(body)
		if err != nil {
			status(w, 400, "BadRequest", err.Error())
			return
		}
		cur, _ := json.Marshal(obj)
		out, err := patch.Apply(cur)
		if err != nil {
			status(w, 422, "Invalid", "the JSON patch failed: "+err.Error())
			return
		}
		var next map[string]any
		if err := json.Unmarshal(out, &next); err != nil {
			status(w, 500, "InternalError", err.Error())
			return
		}
		if r.URL.Query().Get("dryRun") == "" {
			s.objects[key] = next
		}
		writeJSON(w, 200, next)
	default:
		status(w, 405, "MethodNotAllowed", r.Method+" is not supported by the stub")
	}
}

// delete deletes the object key when the DeleteOptions in body hold no
// uid precondition or the object's uid; with dryRun in them (as the API
// server reads it from a body, never from the URL then), it only answers.
func (s *kubeStub) delete(w http.ResponseWriter, key string, body []byte) {
	obj, ok := s.objects[key]
	if !ok {
		status(w, 404, "NotFound", key+" not found")
		return
	}
	var opts struct {
		DryRun        []string `json:"dryRun"`
		Preconditions struct {
			UID string `json:"uid"`
		} `json:"preconditions"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &opts); err != nil {
			status(w, 400, "BadRequest", err.Error())
			return
		}
	}
	uid, _ := obj["metadata"].(map[string]any)["uid"].(string)
	if want := opts.Preconditions.UID; want != "" && want != uid {
		status(w, 409, "Conflict", fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s)", want, uid))
		return
	}
	if len(opts.DryRun) == 0 {
		delete(s.objects, key)
	}
	writeJSON(w, 200, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Success"})
}

// dump writes every object as "Kind name <spec JSON>", sorted.
func (s *kubeStub) dump() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var lines []string
	for _, obj := range s.objects {
		md, _ := obj["metadata"].(map[string]any)
		spec, _ := json.Marshal(obj["spec"])
		lines = append(lines, fmt.Sprintf("%s %s %s", obj["kind"], md["name"], spec))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// kubectlCondition is the testscript condition [kubectl]: true when
// kubectl is on PATH. Without it a script skips its kubectl part visibly
// ([!kubectl] skip 'reason'); under CI=true a missing kubectl is an error,
// so CI never passes without running those proofs.
func kubectlCondition(cond string) (bool, error) {
	if cond != "kubectl" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		if os.Getenv("CI") == "true" {
			return false, fmt.Errorf("kubectl is not on PATH, and CI=true requires the kubectl tests: %v", err)
		}
		return false, nil
	}
	return true, nil
}

func needKubectl(ts *testscript.TestScript) {
	if ok, err := kubectlCondition("kubectl"); !ok {
		ts.Fatalf("kubectl is not on PATH (guard the script with [!kubectl] skip): %v", err)
	}
}

// spliceScriptCmds are the testscript commands of the splice and patch
// scripts:
//
//	kubestub FILE...      start the kubectl stub seeded with the objects of
//	                      the YAML files; KUBECONFIG points at it
//	kubestub-dump [FILE...]
//	                      print the stub's objects (Kind name spec-JSON),
//	                      or those of YAML files in the same form
//	kubectl-dry-run SCRIPT
//	                      run every `kubectl create -f -` here-document of
//	                      a rendered patch script through
//	                      `kubectl create --dry-run=client --validate=strict`
//	                      against the stub, printing each kind/name
//
// and the condition [kubectl] (kubectlCondition).
var spliceScriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"kubestub": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("usage: kubestub FILE...")
		}
		needKubectl(ts)
		s, err := newKubeStub()
		ts.Check(err)
		ts.Defer(s.srv.Close)
		files := make([]string, len(args))
		for i, a := range args {
			files[i] = ts.MkAbs(a)
		}
		ts.Check(s.seed(files...))
		cfg := ts.MkAbs("kubeconfig")
		ts.Check(os.WriteFile(cfg, []byte(s.kubeconfig()), 0o600))
		ts.Setenv("KUBECONFIG", cfg)
		ts.Setenv("KUBECACHEDIR", ts.MkAbs(".kube-cache"))
		stubs.Store(ts, s)
		ts.Defer(func() { stubs.Delete(ts) })
	},
	"kubestub-dump": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) > 0 {
			// The objects of YAML files, in the same form.
			s := &kubeStub{objects: map[string]map[string]any{}}
			kinds, err := loadStubKinds()
			ts.Check(err)
			s.kinds = kinds
			files := make([]string, len(args))
			for i, a := range args {
				files[i] = ts.MkAbs(a)
			}
			ts.Check(s.seed(files...))
			_, err = ts.Stdout().Write([]byte(s.dump()))
			ts.Check(err)
			return
		}
		v, ok := stubs.Load(ts)
		if !ok {
			ts.Fatalf("kubestub-dump: no kubestub running")
		}
		_, err := ts.Stdout().Write([]byte(v.(*kubeStub).dump()))
		ts.Check(err)
	},
	"kubectl-dry-run": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: kubectl-dry-run SCRIPT")
		}
		needKubectl(ts)
		if _, ok := stubs.Load(ts); !ok {
			ts.Fatalf("kubectl-dry-run: start kubestub first")
		}
		docs := hereDocs(ts.ReadFile(args[0]))
		if len(docs) == 0 {
			ts.Fatalf("%s has no kubectl create here-document", args[0])
		}
		for _, doc := range docs {
			cmd := exec.Command("kubectl", "create", "--dry-run=client", "--validate=strict", "-f", "-", "-o", "jsonpath={.kind}/{.metadata.name}")
			cmd.Env = append(os.Environ(), "KUBECONFIG="+ts.Getenv("KUBECONFIG"), "KUBECACHEDIR="+ts.Getenv("KUBECACHEDIR"))
			cmd.Stdin = strings.NewReader(doc)
			out, err := cmd.CombinedOutput()
			if err != nil {
				ts.Fatalf("kubectl create --dry-run=client refused the manifest:\n%s\n%s", doc, out)
			}
			fmt.Fprintf(ts.Stdout(), "%s (dry run)\n", out)
		}
	},
}

// stubs maps a running script to its stub.
var stubs sync.Map

// hereDocs returns the bodies of the `<<'KRMPLAN_EOF'` here-documents of a
// rendered patch script.
func hereDocs(script string) []string {
	var docs []string
	var cur *strings.Builder
	sc := bufio.NewScanner(strings.NewReader(script))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasSuffix(line, "<<'KRMPLAN_EOF'"):
			cur = &strings.Builder{}
		case cur != nil && line == "KRMPLAN_EOF":
			docs = append(docs, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return docs
}
