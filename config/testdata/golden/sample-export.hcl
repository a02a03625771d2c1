# desired.hcl exported by krmplan from the snapshot
# sha256:8531ec07938bb7f888399d7cb7e41f8b4944d9caef05d21c59dc4985d640cd9f
# (git /repo at main, commit 0123456789ab).
#
# Every object and queue as it is: planning this file against the same
# snapshot reports no changes. Change the numbers you want to change; a
# block or attribute you remove keeps the snapshot's value (nothing is
# deleted). gpu is in cards, cpu in millicores, memory in MB; unlimited is -1.

node_pool "rtx-pro-6000" {
  label_key   = "example.com/gpu-class"
  label_value = "rtx-pro-6000"
}

department "platform" {
  queue "rtx-pro-6000" {
    name   = "platform-rtx"
    gpu    = { deserved = 4, limit = 4, over_quota_weight = 1 }
    cpu    = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
    memory = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
  }
}

project "benchmark" {
  department         = "platform"
  namespace          = "benchmark"
  default_node_pools = ["rtx-pro-6000"]
  queue "rtx-pro-6000" {
    name     = "benchmark-rtx"
    priority = 50
    gpu      = { deserved = 1, limit = 4, over_quota_weight = 1 }
    cpu      = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
    memory   = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
  }
}

project "kai-verify" {
  department         = "platform"
  namespace          = "kai-verify"
  default_node_pools = ["rtx-pro-6000"]
  queue "rtx-pro-6000" {
    name     = "kai-verify-rtx"
    priority = 100
    gpu      = { deserved = 0, limit = 1, over_quota_weight = 1 }
    cpu      = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
    memory   = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
  }
}

project "workspace" {
  department         = "platform"
  namespace          = "workspace"
  default_node_pools = ["rtx-pro-6000"]
  queue "rtx-pro-6000" {
    name     = "workspace-rtx"
    priority = 100
    gpu      = { deserved = 3, limit = 3, over_quota_weight = 1 }
    cpu      = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
    memory   = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
  }
}
