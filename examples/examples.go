// Package examples bundles the sample tenancy and desired files that
// `krmplan demo` runs on, so the demo needs nothing but the binary.
package examples

import "embed"

// Sample is the sample tenancy: sample/tenancy.yaml (one node pool of 4
// rtx-pro-6000 cards, department platform, projects kai-verify, workspace
// and benchmark), sample/move-one-card.hcl (a clean change) and
// sample/oversubscribed.hcl (a change the checks refuse).
//
//go:embed sample/*
var Sample embed.FS
