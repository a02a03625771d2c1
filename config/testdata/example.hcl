locals { h100 = 64 }

node_pool "h100" {
  label_key   = "example.com/gpu-class"
  label_value = "h100"
}

department "research" {
  queue "h100" {                       # the label is the node pool
    name = "research-h100"             # required for a new queue
    gpu = { deserved = local.h100 / 2, limit = unlimited, over_quota_weight = 2 }
  }
}

project "workspace" {
  department = "platform"              # required for a new project
  namespace  = "workspace"             # default: the project name
  queue "rtx-pro-6000" {
    priority = 100
    gpu {
      deserved = 2
    }
  }
}
