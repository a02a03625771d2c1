# Move one rtx-pro-6000 card from the interactive workspaces to the batch
# benchmarks. The department's share (4 cards) stays the same, so the
# projects' guarantees still add up to it.

project "workspace" {
  queue "rtx-pro-6000" {
    gpu { deserved = 2 }
  }
}

project "benchmark" {
  queue "rtx-pro-6000" {
    gpu = { deserved = 2 }
  }
}
