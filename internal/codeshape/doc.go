// Package codeshape holds the repository's checks of its own shape, run by
// go test (and so by scripts/test): no function longer than 80 lines
// anywhere in the repository, and no package over 3,000 lines of non-test
// Go code. gocyclo (a tool in go.mod, run by scripts/test) bounds the
// cyclomatic complexity of every function at 30.
package codeshape
