package config

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	diagtext "github.com/krmplan/krmplan/diag"
)

// FuzzLoad checks that no input makes Load panic (a recovered panic shows
// as InternalErrorSummary) and that every diagnostic has a Subject.
func FuzzLoad(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.hcl")
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, "h100_cards=32", []byte("gpu_class = \"a100\"\n"))
	}
	for _, s := range []string{
		`locals { a = local.b, b = local.a }`,
		`variable "x" { type = list(number) }`,
		`department "d" { queue "a" { gpu = { deserved = 1 / 3, limit = pow(10, 400) } } }`,
		`project "p" { queue "a" { gpu = local.x, priority = 1.5 } }`,
		`locals { x = { deserved = 1, y = [for i in range(3) : i] } }`,
		`department "d" { queue "a" { cpu { deserved = sum([0.1, 0.2]) } } }`,
		`project "p" { default_node_pools = [for p in ["a", "b"] : upper(p)] }`,
	} {
		f.Add([]byte(s), "x=[1, 2]", []byte("x = unlimited\n"))
	}
	for _, s := range weirdInputs {
		f.Add([]byte(s), "v=pow(10, 400)", []byte("v = [1]\n"))
	}
	for _, s := range limitInputs {
		f.Add([]byte(s), "v=1e3000000", []byte("v = "+strings.Repeat("[", 300)+strings.Repeat("]", 300)+"\n"))
	}
	f.Fuzz(func(t *testing.T, src []byte, opt string, varFile []byte) {
		ov, diags := LoadOrdered("fuzz.hcl", src, []string{opt}, []VarFile{{Name: "v.hcl", Src: varFile}})
		if ov == nil {
			t.Fatal("nil Overlay")
		}
		for _, d := range diags {
			if d.Summary == InternalErrorSummary {
				t.Fatalf("panic: %s", d.Detail)
			}
			if d.Subject == nil {
				t.Fatalf("diagnostic without a Subject: %s: %s", d.Summary, d.Detail)
			}
		}
		if err := diagtext.WriteText(io.Discard, diagtext.FromHCLs(diags, ov.Files), ov.Files, diagtext.Style{Columns: 80}); err != nil {
			t.Fatal(err)
		}
	})
}

// limitInputs reach each limit of the evaluation (limits.go), small
// enough for the fuzzer to mutate.
var limitInputs = []string{
	`locals { a = [for x in range(100) : [for y in range(100) : [for z in range(100) : z]]] }`,
	`locals { a = setproduct(range(100), range(100), range(100)) }`,
	`locals { a = distinct(concat(range(1000), range(1000))) }`,
	`locals { a = jsondecode("[[[[[[[[[[1]]]]]]]]]]") }`,
	`locals {
  a = format("%0999d", 1)
  b = indent(99999, "a\nb")
  c = replace("aaa", "", "bb")
}`,
	`locals {
  a = regexall("(a|b)*", "ababab")
  b = split("", "abc")
  c = csvdecode("a,b\n1,2")
}`,
	`locals {
  a = tonumber("1e30")
  b = parseint("ffffffffffffffffffff", 16)
  c = "12" + 1
}`,
	`locals {
  l = [1, 2]
  a = local.l["0"]
  b = local.l[1 % 0]
  c = 5 / 0
}`,
	`locals {
  s0 = "xxxxxxxx"
  s1 = "${local.s0}${local.s0}"
  s2 = "${local.s1}${local.s1}"
  l0 = [1]
  l1 = [local.l0, local.l0]
  l2 = [local.l1, local.l1]
}`,
	`department "d" {
  queue "a" {
    gpu { deserved = 0.10000000000000000000000000000000000001 }
    cpu = { deserved = 1e17 * 100, limit = 1e16 + 1 / 3 }
    memory = { deserved = ((((((((1)))))))), limit = true ? 1 : false ? 2 : 3 }
  }
}`,
	`locals {
  a = tolist([for i in range(100) : i])
  b = toset([for i in range(100) : "${i}"])
  c = tomap({ for i in range(100) : "k${i}" => i })
}`,
	`locals {
  a = [for k, v in { a = 1 } : k => v]
  b = [for o in [{ a = 1 }] : o][*].a
  c = "%{ for i in range(3) }${i}%{ endfor }"
}`,
}

// weirdInputs are inputs that reach the corners of the evaluation: infinite
// and huge numbers, computed keys, for expressions, odd types.
var weirdInputs = []string{
	`locals { a = pow(10, 400) - pow(10, 400) }`,
	`locals { a = sum([pow(10, 400), -pow(10, 400)]) }`,
	`locals { a = 1 / 0 }`,
	`locals { a = jsondecode("1e99999999999") }`,
	`locals { a = tonumber("1e999999") }`,
	`locals { a = format("%d", pow(10, 400)) }`,
	`locals { a = floor(pow(10, 400)) }`,
	`locals { a = local }`,
	`locals {
  a = local["b"]
  b = local
}`,
	`variable "v" { type = object({ a = optional(number) }) }`,
	`variable "v" {
  type    = list(any)
  default = [1, "a"]
}`,
	`variable "v" {
  type    = map(number)
  default = { a = pow(10, 400) }
}`,
	`variable "v" { type = tuple([number, string]) }`,
	`variable "v" { type = set(string), default = ["a"] }`,
	`variable "v" { default = null }`,
	`variable "v" { default = var.w }`,
	`variable "1v" {}`,
	`locals { k = "deserved" }
department "d" {
  queue "a" {
    priority = pow(10, 400)
    gpu      = { (local.k) = 1, "limit" = 2, 5 = 3 }
    cpu      = { for k in ["deserved", "limit", "x"] : k => 1 }
    memory   = null
  }
  queue "b" {
    priority = -0
    gpu      = {}
    cpu      = { deserved = jsondecode("1e-400"), limit = 1e-30 }
    memory   = tomap({ deserved = "1" })
  }
  queue "c" {
    gpu = { deserved = pow(10, 400) }
    cpu = { (null) = 1, (unknownthing) = 2 }
  }
}`,
	`project "p" {
  default_node_pools = toset(["b", "a"])
  namespace          = ["x"]
  department         = null
}`,
	`project "p" { default_node_pools = "a" }`,
	`project "p" { default_node_pools = [null] }`,
	`node_pool "p" { label_key = { a = 1 } }`,
	`department "d" { queue "" {} }`,
	`department "d" {
  queue "a" {
    gpu { deserved = [for x in range(1025) : x] }
  }
}`,
}

func TestWeirdInputsNoPanic(t *testing.T) {
	for _, src := range weirdInputs {
		for _, v := range []string{"v=pow(10, 400)", "v=[1, \"a\"]", "v={a=null}", "v=", "=1", "w=${"} {
			load(t, src, []string{v}, []VarFile{{Name: "v.hcl", Src: []byte("v = unlimited\nv = 2\n")}})
		}
	}
}
