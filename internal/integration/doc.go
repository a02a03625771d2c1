// Package integration holds krmplan's end-to-end tests against a real
// kube-apiserver with the KRM CRDs installed (internal/testapiserver): the
// live snapshot, plans that use the cluster's capacity and usage, the
// rendered patch script run with the real kubectl, RBAC-limited reads and
// the server-side dry run. It is the only test package that starts a
// control plane. It has no code of its own.
//
//	KUBEBUILDER_ASSETS=$(scripts/test-apiserver.sh) go test ./internal/integration/
package integration
