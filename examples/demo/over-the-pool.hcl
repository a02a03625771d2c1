# research asks for 16 more H100 cards for a new pre-training run, without
# taking them from anyone.
#
# The h100 pool has 96 cards (12 nodes x 8) and its departments are already
# guaranteed 88 of them. With 16 more for research they would be guaranteed
# 104: 8 cards more than the pool has. The cluster would accept this, and the
# guarantees could not all be met; krmplan refuses to render it.

department "research" {
  queue "h100" {
    gpu { deserved = 27 + 16 }
  }
}
