// Package codeshape holds the repository's checks of its own shape, run by
// go test (and so by scripts/test): no function longer than 80 lines
// anywhere in the repository, no package over 3,000 lines of non-test Go
// (physical lines, as wc -l counts them), and no function of cyclomatic complexity over 30 as gocyclo
// (github.com/fzipp/gocyclo) counts it.
package codeshape
