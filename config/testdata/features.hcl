# Every feature of desired.hcl in one file: variables, locals, functions,
# both resource forms, unlimited.
variable "h100_cards" {
  type        = number
  default     = 64
  description = "H100 cards in the cluster"
}

variable "gpu_class" {
  type    = string
  default = "h100"
}

variable "pools" {
  type    = list(string)
  default = ["h100"]
}

locals {
  half    = var.h100_cards / 2
  quarter = local.half / 2
  spec    = { deserved = local.quarter, limit = unlimited }
}

node_pool "h100" {
  label_key   = "example.com/gpu-class"
  label_value = var.gpu_class
}

department "research" {
  queue "h100" {
    name     = "research-${var.gpu_class}"
    priority = 100
    gpu      = { deserved = local.half, limit = unlimited, over_quota_weight = 2 }
    cpu { deserved = 64000 }
    memory {
      deserved = 512000
      limit    = max(512000, 1024000)
    }
  }
}

project "ml" {
  department         = "research"
  namespace          = "ml-team"
  default_node_pools = var.pools
  queue "h100" {
    name = "ml-h100"
    gpu  = local.spec
  }
}
