package config

import (
	"io"
	"os"
	"path/filepath"
	"testing"
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
		if err := ov.WriteDiagnostics(io.Discard, diags, 80, true); err != nil {
			t.Fatal(err)
		}
	})
}
