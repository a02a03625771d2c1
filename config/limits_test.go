package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// queueGPU is a desired.hcl whose one value is v, on line 3.
func queueGPU(v string) string {
	return "department \"d\" {\n  queue \"a\" {\n    gpu { deserved = " + v + " }\n  }\n}\n"
}

// localChain is a locals block of n+1 locals, each (a1 on) made by format
// from the one before it: a0 = start.
func localChain(n int, start, format string) string {
	var b strings.Builder
	b.WriteString("locals {\n  a0 = " + start + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  a%d = "+format+"\n", i, i-1)
	}
	b.WriteString("}\n")
	return b.String()
}

// shown is a diagnostic as the tests assert it: the line, the source
// under the Subject (its first 40 characters), the summary and the detail.
func shown(t *testing.T, src string, vars []string, varFiles []VarFile) []string {
	t.Helper()
	ov, diags := load(t, src, vars, varFiles)
	var got []string
	for _, d := range diags {
		text := subjectText(ov, d)
		if len(text) > 40 {
			text = text[:40] + "…"
		}
		got = append(got, fmt.Sprintf("%d %s: %s: %s", d.Subject.Start.Line, text, d.Summary, d.Detail))
	}
	return got
}

const (
	workDetail = "Evaluating the expressions takes more than 1000000 steps (iterations of for expressions, elements that functions read or build, repeated references); krmplan allows 1000000."
	nestDetail = " levels deep; krmplan allows 256. Each bracket, brace, parenthesis, quote, template sequence and operator chained in one expression is a level; this is where the nesting passes 256."
	elements   = "The value holds more than 100000 elements (counting those of nested lists, maps and objects); krmplan allows 100000."
)

// limitCase is a desired.hcl and the diagnostics it must give (shown).
type limitCase struct {
	name, src string
	want      []string
}

func runLimitCases(t *testing.T, cases []limitCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := shown(t, tc.src, nil, nil); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("diagnostics:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Every attack of issue 13 on the HCL evaluator (here and in the two
// tests below), and the other ways past a limit: each ends in one
// diagnostic that names the limit and the value, under the source that
// broke it.
func TestLimits(t *testing.T) {
	big := strings.Repeat("x", 1000)
	runLimitCases(t, []limitCase{{
		name: "100,000 nested parentheses",
		src:  queueGPU(strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)),
		want: []string{"3 (: Nesting too deep: The expression nests 100003" + nestDetail},
	}, {
		name: "a chain of operators",
		src:  queueGPU("1" + strings.Repeat(" + 1", 300)),
		want: []string{"3 +: Nesting too deep: The expression nests 303" + nestDetail},
	}, {
		name: "setproduct of three range(1000)",
		src:  "locals { a = setproduct(range(1000), range(1000), range(1000)) }\n",
		want: []string{"1 setproduct(range(1000), range(1000), ran…: Value too large: The product of these collections has more than 100000 elements; krmplan allows 100000."},
	}, {
		name: "for expressions nested three deep",
		src:  "locals { a = [for x in range(1000) : [for y in range(1000) : [for z in range(1000) : z]]] }\n",
		want: []string{"1 range(1000): Too much work: " + workDetail},
	}, {
		name: "a string doubled 40 times",
		src:  localChain(40, `"xxxxxxxxxxxxxxxx"`, `"${local.a%[2]d}${local.a%[2]d}"`),
		want: []string{"21 local.a18: Too much work: " + workDetail},
	}, {
		name: "a list of lists 300 deep",
		src:  localChain(300, "[1]", "[local.a%d]"),
		want: []string{"258 [local.a255]: Value too large: The value nests more than 256 levels deep; krmplan allows 256."},
	}, {
		name: "a list of 100,001 numbers",
		src:  "locals { a = [" + strings.Repeat("1, ", 100001) + "] }\n",
		want: []string{"1 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, …: Value too large: " + elements},
	}, {
		name: "10 MB of string",
		src:  "locals {\n  s = \"" + big + "\"\n  t = join(\"\", [for i in range(1000) : local.s])\n  u = [for i in range(20) : local.t]\n}\n",
		want: []string{"4 [for i in range(20) : local.t]: Value too large: The value holds more than 10000000 bytes of string; krmplan allows 10000000."},
	}})
}

// Numbers are read as quota.Parse reads them, literals and results of
// arithmetic alike, and a division by zero is an error.
func TestNumberLimits(t *testing.T) {
	runLimitCases(t, []limitCase{{
		name: "1e3000000",
		src:  queueGPU("1e3000000"),
		want: []string{"3 1e3000000: Number out of range: The number 1e3000000 is too large: quota numbers must be below 10^18 in magnitude."},
	}, {
		name: "a literal with 38 decimals is not 0.1",
		src:  queueGPU("0.10000000000000000000000000000000000001"),
		want: []string{"3 0.10000000000000000000000000000000000001: Number out of range: The number 0.10000000000000000000000000000000000001 has more than 18 digits after the decimal point: " +
			"quota numbers are exact decimals with at most 18. krmplan does not round a number: write it with at most 18 digits after the point."},
	}, {
		name: "a literal of 3,000,000 digits",
		src:  queueGPU(strings.Repeat("7", 3000000)),
		want: []string{"3 7777777777777777777777777777777777777777…: Number out of range: The number 7777777777777777777777777777777777777777… is 3000000 characters long: quota numbers are written in at most 100."},
	}, {
		name: "a string of 3,000,000 digits read as a number",
		src:  queueGPU(`"` + strings.Repeat("7", 3000000) + `" + 0`),
		want: []string{`3 "777777777777777777777777777777777777777…: Number out of range: The string "7777777777777777777777777777777777777777"… is read as a number, and it is 3000000 characters long: quota numbers are written in at most 100.`},
	}, {
		name: "tonumber",
		src:  queueGPU(`tonumber("1e3000000")`),
		want: []string{`3 tonumber("1e3000000"): Number out of range: The string "1e3000000" is read as a number, and it is too large: quota numbers must be below 10^18 in magnitude.`},
	}, {
		name: "a list index of 200 digits",
		src:  "locals {\n  l = [1]\n  a = local.l[\"" + strings.Repeat("0", 200) + "\"]\n}\n",
		want: []string{`3 ["00000000000000000000000000000000000000…: Number out of range: The string "0000000000000000000000000000000000000000"… is read as a number, and it is 200 characters long: quota numbers are written in at most 100.`},
	}, {
		name: "5 % 0 is not 5",
		src:  queueGPU("5 % 0"),
		want: []string{"3 5 % 0: Division by zero: The divisor is zero, and a remainder by zero has no value."},
	}, {
		name: "5 / 0 is not +Inf",
		src:  queueGPU("5 / 0"),
		want: []string{"3 5 / 0: Division by zero: The divisor is zero, and a quotient by zero has no value."},
	}, {
		name: "by zero in a loop, once",
		src:  "locals { a = [for i in range(1000) : i % 0] }\n",
		want: []string{"1 i % 0: Division by zero: The divisor is zero, and a remainder by zero has no value."},
	}, {
		name: "arithmetic beyond 10^18",
		src:  queueGPU("1e17 * 100"),
		want: []string{"3 1e17 * 100: Number out of range: The result of this operation is 10000000000000000000, which is too large: quota numbers must be below 10^18 in magnitude."},
	}, {
		name: "pow",
		src:  queueGPU("pow(10, 400)"),
		want: []string{"3 pow(10, 400): Number out of range: The result of pow is +Inf, which is not finite."},
	}})
}

// The functions whose result can be far larger than their arguments, or
// cost far more, are refused before they build it.
func TestFunctionLimits(t *testing.T) {
	runLimitCases(t, []limitCase{{
		name: "range",
		src:  "locals { a = range(0, 1, 0.0000001) }\n",
		want: []string{"1 range(0, 1, 0.0000001): Value too large: This range has 10000000 elements; krmplan allows 100000."},
	}, {
		name: "format width",
		src:  `locals { a = format("%0999999999d", 1) }` + "\n",
		want: []string{`1 format("%0999999999d", 1): Value too large: The format "%0999999999d" asks for a width or precision of more than 10000000 characters; krmplan allows 10000000.`},
	}, {
		name: "indent",
		src:  `locals { a = indent(100000000, "a\nb") }` + "\n",
		want: []string{`1 indent(100000000, "a\nb"): Value too large: Indenting 2 lines by 100000000 spaces would build more than 10000000 bytes of string; krmplan allows 10000000.`},
	}, {
		name: "replace",
		src:  `locals { a = replace("` + strings.Repeat("a", 10000) + `", "a", "` + strings.Repeat("b", 2000) + `") }` + "\n",
		want: []string{`1 replace("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…: Value too large: The result would hold 20010000 bytes of string; krmplan allows 10000000.`},
	}, {
		name: "jsondecode nesting",
		src:  `locals { a = jsondecode(join("", [for i in range(1000) : "["])) }` + "\n",
		want: []string{`1 jsondecode(join("", [for i in range(1000…: Value too large: The JSON text nests more than 256 levels deep; krmplan allows 256.`},
	}, {
		name: "jsondecode number",
		src:  `locals { a = jsondecode("[1e400]") }` + "\n",
		want: []string{`1 jsondecode("[1e400]"): Number out of range: The string "1e400" is read as a number, and it is too large: quota numbers must be below 10^18 in magnitude.`},
	}, {
		name: "the whole local object",
		src:  "locals {\n  a = local\n}\n",
		want: []string{"2 local: Invalid reference to local: A local cannot use the whole local object; refer to one of its attributes, like local.name."},
	}, {
		name: "a long cycle, shown short",
		src:  localChain(30, "local.a30", "local.a%d"),
		want: []string{"3 local.a0: Circular reference in locals: The local values refer to each other in a cycle: local.a0 → local.a30 → local.a29 → local.a28 → local.a27 → local.a26 → local.a25 → local.a24 → " +
			"local.a23 → local.a22 → … (11 more) → local.a10 → local.a9 → local.a8 → local.a7 → local.a6 → local.a5 → local.a4 → local.a3 → local.a2 → local.a1 → local.a0. " +
			"A local may refer to other locals only if they do not lead back to it."},
	}})
}

// --var values and --var-file files are held to the same limits: a value
// past one is an error, never taken as a string.
func TestVariableLimits(t *testing.T) {
	src := "variable \"n\" { type = number }\nvariable \"x\" {}\nvariable \"l\" { type = list(number) }\n"
	got := shown(t, src, []string{"x=1e3000000", "n=" + strings.Repeat("9", 200), `l=["1", "1e30"]`},
		[]VarFile{{Name: "v.hcl", Src: []byte("x = " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n")}})
	want := []string{
		"1 [: Nesting too deep: The expression nests 300" + nestDetail,
		"1 1e3000000: Number out of range: The number 1e3000000 is too large: quota numbers must be below 10^18 in magnitude.",
		"1 9999999999999999999999999999999999999999…: Number out of range: The number 9999999999999999999999999999999999999999… is 200 characters long: quota numbers are written in at most 100.",
		`1 ["1", "1e30"]: Number out of range: The string "1e30" is read as a number, and it is too large: quota numbers must be below 10^18 in magnitude.`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
	}
}

// A chain of 100,000 locals, each adding 1 to the one before, is
// evaluated without recursing 100,000 deep, and right (under -short a
// chain of 20,000: the same path, a fifth of the work).
func TestLongLocalChain(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 20000
	}
	ov, diags := load(t, localChain(n, "0", "local.a%d + 1")+queueGPU(fmt.Sprintf("local.a%d", n)), nil, nil)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags[:1])
	}
	if got := ov.Departments[0].Queues[0].GPU.Deserved.Value.String(); got != strconv.Itoa(n) {
		t.Errorf("local.a%d = %s", n, got)
	}
}

// A desired.hcl for 50,000 projects that computes its values loads
// without reaching a limit: a map of 50,000 entries made by a for
// expression, and a project block for each entry that reads it (under
// -short 10,000: the same limits are checked, a fifth of the work).
func TestFiftyThousandProjects(t *testing.T) {
	n := 50000
	if testing.Short() {
		n = 10000
	}
	ov, diags := load(t, fiftyThousandProjects(n), nil, nil)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags[:1])
	}
	if len(ov.Projects) != n || ov.Projects[n-1].Queues[0].GPU.Deserved.Value.String() != "10" {
		t.Errorf("%d projects, the last %s", len(ov.Projects), ov.Projects[n-1].Queues[0].GPU.Deserved.Value)
	}
}

// A file of a thousand stray characters is a thousand syntax errors:
// the first MaxDiagnostics are reported, and one more says how many are
// left out.
func TestTooManyProblems(t *testing.T) {
	_, diags := load(t, "a = 1\n"+strings.Repeat("\x19", 1000)+"\n", nil, nil)
	if len(diags) != MaxDiagnostics+1 {
		t.Fatalf("%d diagnostics", len(diags))
	}
	last := diags[MaxDiagnostics]
	if got := fmt.Sprintf("%s: %s: %s", last.Subject, last.Summary, last.Detail); got != "desired.hcl:2,100-101: Too many problems: 901 more problems, from here on, are not shown: fix these first." {
		t.Errorf("the last diagnostic: %s", got)
	}
}
