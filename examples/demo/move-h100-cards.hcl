# Move 4 H100 cards from vision to research.
#
# vision's detection project gives up 4 of its 10 guaranteed h100 cards, and
# the vision department the same 4; research takes them, and its
# foundation-models project is guaranteed 4 more. The departments' total on
# the pool does not change.
#
# Rendered as patches, the order keeps every state in between within the
# checks: shrink the project, shrink its department, grow the other
# department, grow its project.

locals {
  moved = 4 # cards
}

project "detection" {
  queue "h100" {
    gpu { deserved = 10 - local.moved }
  }
}

department "vision" {
  queue "h100" {
    gpu { deserved = 17 - local.moved }
  }
}

department "research" {
  queue "h100" {
    gpu { deserved = 27 + local.moved }
  }
}

project "foundation-models" {
  queue "h100" {
    gpu { deserved = 14 + local.moved }
  }
}
