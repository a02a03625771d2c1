// Package examples bundles the tenancies and desired files that `krmplan
// demo` runs on, so the demo needs nothing but the binary.
package examples

import "embed"

//go:generate go run ./demo/gen -out demo

// Demo is the 160-GPU demo, written by demo/gen (`go generate
// ./examples`): demo/tenancy.yaml (two node pools, h100 with 12 nodes and
// a100 with 8, of 8 cards each; 8 departments, 48 projects),
// demo/cluster-data.json (the nodes, one not Ready; the scheduler's Queues
// with their usage, some of it non-preemptible; the namespaces, one not
// labelled), demo/over-the-pool.hcl (guarantees the h100 pool's departments
// 8 cards more than it has) and demo/move-h100-cards.hcl (moves 4 h100
// cards between two departments, cleanly).
//
//go:embed demo/tenancy.yaml demo/cluster-data.json demo/*.hcl
var Demo embed.FS

// Sample is the small sample tenancy: sample/tenancy.yaml (one node pool
// of 4 rtx-pro-6000 cards, department platform, projects kai-verify,
// workspace and benchmark), sample/move-one-card.hcl (a clean change) and
// sample/oversubscribed.hcl (a change the checks refuse).
//
//go:embed sample/*
var Sample embed.FS
