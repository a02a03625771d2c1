package codeshape

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fzipp/gocyclo"
)

// The limits (README "Layout"; issue #12).
const (
	maxFuncLines    = 80
	maxComplexity   = 30
	maxPackageLines = 3000
)

// pending lists the functions still over a limit, by "path: name", and
// why they are not split yet. Each is in a file that another change is
// rewriting at the same time; split it there and remove the entry (an
// entry that no longer applies fails the test too).
var pending = map[string]string{}

// over reports a function over a limit, unless pending names it (used
// marks the entries that still apply).
func over(key string, used map[string]bool) bool {
	if _, ok := pending[key]; ok {
		used[key] = true
		return false
	}
	return true
}

// root is the repository's top folder: internal/codeshape is two below it.
const root = "../.."

// goFiles lists every .go file of the repository (the tools module too),
// outside testdata folders and hidden ones, by folder.
func goFiles(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			out[filepath.Dir(p)] = append(out[filepath.Dir(p)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found Go files in only %d folders under %s: is root wrong?", len(out), root)
	}
	return out
}

// TestFunctionLength: no function or function literal, in code or tests,
// spans more than maxFuncLines lines from its func keyword to its closing
// brace. A long table of test cases goes into a package-level variable.
func TestFunctionLength(t *testing.T) {
	fset := token.NewFileSet()
	var long []string
	used := map[string]bool{}
	for _, files := range goFiles(t) {
		for _, p := range files {
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				name := ""
				switch x := n.(type) {
				case *ast.FuncDecl:
					if x.Body == nil {
						return true
					}
					name = x.Name.Name
				case *ast.FuncLit:
					name = "a function literal"
				default:
					return true
				}
				start, end := fset.Position(n.Pos()), fset.Position(n.End())
				rel, _ := filepath.Rel(root, start.Filename)
				if lines := end.Line - start.Line + 1; lines > maxFuncLines && over(rel+": "+name, used) {
					long = append(long, fmt.Sprintf("%s:%d: %s is %d lines", rel, start.Line, name, lines))
				}
				return true
			})
		}
	}
	sort.Strings(long)
	if len(long) > 0 {
		t.Errorf("functions over %d lines; split them:\n%s", maxFuncLines, strings.Join(long, "\n"))
	}
	for k := range pending {
		if !strings.Contains(k, "(*") && !used[k] && !complexOnly(k) {
			t.Errorf("pending names %q, which is within %d lines now: remove the entry", k, maxFuncLines)
		}
	}
}

// complexOnly reports a pending entry in gocyclo's form ("(*T).m"), which
// TestComplexity checks.
func complexOnly(k string) bool { return strings.Contains(k, "(*") }

// TestComplexity: no function's cyclomatic complexity, as gocyclo
// (github.com/fzipp/gocyclo) counts it, is over maxComplexity.
func TestComplexity(t *testing.T) {
	fset := token.NewFileSet()
	var stats gocyclo.Stats
	for _, files := range goFiles(t) {
		for _, p := range files {
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			stats = gocyclo.AnalyzeASTFile(f, fset, stats)
		}
	}
	var complex []string
	used := map[string]bool{}
	for _, s := range stats {
		rel, _ := filepath.Rel(root, s.Pos.Filename)
		if s.Complexity > maxComplexity && over(rel+": "+s.FuncName, used) {
			complex = append(complex, fmt.Sprintf("%s:%d: %s has complexity %d", rel, s.Pos.Line, s.FuncName, s.Complexity))
		}
	}
	sort.Strings(complex)
	if len(complex) > 0 {
		t.Errorf("functions of cyclomatic complexity over %d; split them:\n%s", maxComplexity, strings.Join(complex, "\n"))
	}
	for k := range pending {
		if complexOnly(k) && !used[k] {
			t.Errorf("pending names %q, which is within complexity %d now: remove the entry", k, maxComplexity)
		}
	}
}

// lines counts the physical lines of a file, as wc -l does: comments and
// blank lines count, since they are read too.
func lines(t *testing.T, p string) int {
	t.Helper()
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(src, []byte("\n"))
}

// TestPackageSize: no package (folder) holds more than maxPackageLines
// physical lines of non-test Go.
func TestPackageSize(t *testing.T) {
	var big []string
	for dir, files := range goFiles(t) {
		n := 0
		for _, p := range files {
			if !strings.HasSuffix(p, "_test.go") {
				n += lines(t, p)
			}
		}
		if n > maxPackageLines {
			rel, _ := filepath.Rel(root, dir)
			big = append(big, fmt.Sprintf("%s: %d lines", rel, n))
		}
	}
	sort.Strings(big)
	if len(big) > 0 {
		t.Errorf("packages over %d lines of non-test Go (wc -l); split them by job:\n%s", maxPackageLines, strings.Join(big, "\n"))
	}
}

// TestLines: every line counts, comments and blank ones too.
func TestLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.go")
	src := "// Package x.\npackage x\n\n/* a\n   block */\nvar a = 1 // one\n/* c */ var b = 2\n\t// indented\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, p); got != 8 {
		t.Errorf("lines = %d, want 8", got)
	}
}
