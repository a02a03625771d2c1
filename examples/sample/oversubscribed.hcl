# Give benchmark a second guaranteed card without taking one from anyone:
# the projects would then be promised 5 of the department's 4 cards. The
# cluster would accept this; krmplan refuses to render it.

project "benchmark" {
  queue "rtx-pro-6000" {
    gpu { deserved = 2 }
  }
}
