package config

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/krmplan/krmplan/internal/hcllimit"
)

// worstInputs are hostile desired.hcl files of at most 4 MB, each near
// the edge of a limit (or past it), with the summary of the diagnostic
// each must end in ("" for none).
func worstInputs() map[string]struct {
	src     func() string
	summary string
} {
	list := func(n int, el string) string { return "locals { a = [" + strings.Repeat(el+",", n) + "] }\n" }
	return map[string]struct {
		src     func() string
		summary string
	}{
		// As many tokens as a file may hold: the parser's memory.
		"densest list": {func() string { return list(740_000, "1") }, hcllimit.TooBigSummary},
		// As deep as a file may nest, and a little deeper.
		"deepest parentheses": {func() string { return queueGPU(strings.Repeat("(", 700_000) + "1" + strings.Repeat(")", 700_000)) }, "Nesting too deep"},
		"longest sum":         {func() string { return queueGPU("1" + strings.Repeat("+1", 700_000)) }, "Nesting too deep"},
		// The most locals, each naming the one before.
		"longest local chain": {func() string { return localChain(160_000, "0", "local.a%d") }, ""},
		// Work: iterations, strings and the diagnostics of a loop.
		"nested for": {func() string {
			return "locals { a = [for x in range(1000) : [for y in range(1000) : [for z in range(1000) : z]]] }\n"
		}, hcllimit.WorkSummary},
		"errors in a loop": {func() string {
			return "locals {\n l = []\n a = [for x in range(1000) : [for y in range(1000) : local.l[y]]]\n}\n"
		}, hcllimit.WorkSummary},
		"doubled strings": {func() string { return localChain(60, `"xxxxxxxxxxxxxxxx"`, `"${local.a%[2]d}${local.a%[2]d}"`) }, hcllimit.WorkSummary},
		"doubled lists":   {func() string { return localChain(60, "[1]", "[local.a%[2]d, local.a%[2]d]") }, hcllimit.TooBigSummary},
		"repeated reference": {func() string {
			return "locals {\n s = \"" + strings.Repeat("x", 1_000_000) + "\"\n t = \"" + strings.Repeat("${local.s}", 200_000) + "\"\n}\n"
		}, hcllimit.WorkSummary},
		"equal lists": {func() string {
			return "locals {\n l = [for p in setproduct(range(1000), range(30)) : 1]\n" + strings.Repeat(" b = local.l == local.l\n", 1) +
				"c = [for i in range(1000) : local.l == local.l]\n}\n"
		}, hcllimit.WorkSummary},
		"distinct": {func() string {
			return "locals { a = distinct([for p in setproduct(range(1000), range(30)) : p[0]]) }\n"
		}, hcllimit.WorkSummary},
		"distinct of unique numbers": {func() string {
			return "locals { a = distinct(concat([for i in range(1000) : i], [for i in range(1000) : i + 1000], [for i in range(1000) : i + 2000], [for i in range(1000) : i + 3000])) }\n"
		}, hcllimit.WorkSummary},
		"huge literals": {func() string { return queueGPU(strings.Repeat("9", 3_900_000)) }, hcllimit.NumberSummary},
		"huge string":   {func() string { return queueGPU(`"` + strings.Repeat("9", 3_900_000) + `" * 1`) }, hcllimit.NumberSummary},
		"json":          {func() string { return `locals { a = jsondecode("[` + strings.Repeat("1,", 1_900_000) + `1]") }` + "\n" }, "File too dense"},
		"regex": {func() string {
			return `locals { a = regexall("(a|b)*c", "` + strings.Repeat("ab", 1_900_000) + `") }` + "\n"
		}, ""},
		"regex work": {func() string {
			return `locals { a = regexall("` + strings.Repeat("(a|b)*", 100) + `c", "` + strings.Repeat("ab", 1_000_000) + `") }` + "\n"
		}, hcllimit.WorkSummary},
		"conditional in a loop": {func() string {
			return "locals {\n l = [for p in setproduct(range(1000), range(30)) : 1]\n a = [for i in range(1000) : i > 0 ? local.l : local.l]\n}\n"
		}, hcllimit.WorkSummary},
		"calls with a large argument": {func() string {
			return "locals {\n l = [for p in setproduct(range(1000), range(30)) : 1]\n" + strings.Repeat(" x = length(local.l)\n", 1) +
				localChain(50_000, "0", "length(local.l) + local.a%d")[len("locals {\n"):]
		}, hcllimit.WorkSummary},
		"regexall matches": {func() string {
			return "locals {\n s = join(\"\", [for i in range(1000) : \"" + strings.Repeat("x", 1000) + "\"])\n a = regexall(\".\", local.s)\n}\n"
		}, hcllimit.TooBigSummary},
		"csvdecode": {func() string {
			return "locals {\n s = join(\"\", [for i in range(1000) : \"" + strings.Repeat(",", 1000) + "\"])\n a = csvdecode(local.s)\n}\n"
		}, hcllimit.TooBigSummary},
		"forty thousand projects": {func() string { return fiftyThousandProjects(40_000) }, ""},
	}
}

// fiftyThousandProjects is a desired.hcl of n computed project blocks.
func fiftyThousandProjects(n int) string {
	var b strings.Builder
	b.WriteString("locals {\n  base  = 2\n  names = [")
	for i := range n {
		fmt.Fprintf(&b, "%q, ", fmt.Sprintf("p%d", i))
	}
	b.WriteString("]\n  cards = { for i, name in local.names : name => local.base + i % 4 }\n}\n")
	for i := range n {
		fmt.Fprintf(&b, "project \"p%d\" {\n  queue \"h100\" {\n    gpu { deserved = local.cards[\"p%d\"] * 2 }\n  }\n}\n", i, i)
	}
	return b.String()
}

// No input under 4 MB costs Load more than 20 seconds of CPU or 1 GB of
// memory. Each input runs in a child process (this test binary, again),
// whose peak memory (maxrss) and CPU time the kernel measures; CPU time,
// not the wall clock, so that a busy machine does not fail the test.
func TestWorstInputsBounded(t *testing.T) {
	if name := os.Getenv("KRMPLAN_WORST_INPUT"); name != "" {
		loadWorst(name)
		return
	}
	if testing.Short() {
		t.Skip("runs a child process per input")
	}
	for name, in := range worstInputs() {
		t.Run(name, func(t *testing.T) {
			if n := len(in.src()); n > 4<<20 {
				t.Fatalf("the input has %d bytes, more than 4 MB", n)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestWorstInputsBounded$")
			cmd.Env = append(os.Environ(), "KRMPLAN_WORST_INPUT="+name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			rss := ru.Maxrss << 10 // kilobytes on Linux
			t.Logf("%s: %v CPU, %d MB", name, cpu.Round(time.Millisecond), rss>>20)
			if cpu > 20*time.Second || rss > 1<<30 {
				t.Errorf("%v of CPU and %d MB of memory: more than 20 s or 1 GB", cpu, rss>>20)
			}
			if want := "summary: " + in.summary + "\n"; !strings.Contains(string(out), want) {
				t.Errorf("the child said:\n%s\nwant %q", out, want)
			}
		})
	}
}

// loadWorst is the child's side: it loads one input and prints the first
// diagnostic's summary.
func loadWorst(name string) {
	src := []byte(worstInputs()[name].src())
	_, diags := LoadOrdered("desired.hcl", src, nil, nil)
	summary := ""
	if len(diags) > 0 {
		summary = diags[0].Summary
		fmt.Println(diags[0].Error())
	}
	fmt.Printf("summary: %s\n", summary)
}
