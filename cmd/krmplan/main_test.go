package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/krmplan/krmplan/internal/jsonfile"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"krmplan":  func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		"limit":    func() { os.Exit(limit(os.Args[1:], os.Stdout, os.Stderr)) },
		"midwrite": func() { os.Exit(midwrite(os.Args[1:], os.Stderr)) },
	})
}

// update rewrites the files of the scripts that cmp compares against
// (go test -run TestScripts -update; review the diff).
var update = flag.Bool("update", false, "rewrite the scripts' expected files")

// TestScripts runs the CLI scripts in testdata/script: every command, its
// exact output and its refusals, against real git repositories.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, "testdata/script"))
}

// scriptParams are the parameters of the CLI scripts in dir: the sample
// at $SAMPLE, fixed git identities and dates (so commit ids, and so plan
// ids, repeat), and the scripts' own commands.
func scriptParams(t *testing.T, dir string) testscript.Params {
	sample, err := filepath.Abs("../../examples/sample")
	if err != nil {
		t.Fatal(err)
	}
	params := testscript.Params{
		Dir:           dir,
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("SAMPLE", sample)
			// Fixed dates make commit ids, and so plan ids, repeatable.
			for _, k := range []string{"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"} {
				e.Setenv(k, "2026-01-01T00:00:00Z")
			}
			e.Setenv("GIT_AUTHOR_NAME", "Test Author")
			e.Setenv("GIT_AUTHOR_EMAIL", "author@example.com")
			e.Setenv("GIT_COMMITTER_NAME", "Test Author")
			e.Setenv("GIT_COMMITTER_EMAIL", "author@example.com")
			e.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("SOURCE_DATE_EPOCH", "1767225600")
			// A page so wide that no message wraps (an Error: line is matched
			// whole); a script that shows the wrapping sets COLUMNS itself.
			e.Setenv("COLUMNS", "10000")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// planid FILE VAR sets $VAR to the plan's id, $VAR12 and $VAR11
			// to its first 12 and 11 hex digits.
			"planid": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: planid FILE VAR")
				}
				var p struct {
					PlanID string `json:"plan_id"`
				}
				ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &p))
				if len(p.PlanID) != 64 {
					ts.Fatalf("%s: plan_id %q is not 64 hex digits", args[0], p.PlanID)
				}
				ts.Setenv(args[1], p.PlanID)
				ts.Setenv(args[1]+"12", p.PlanID[:12])
				ts.Setenv(args[1]+"11", p.PlanID[:11])
			},
			"maxwidth": maxWidth,
			// reseal [-id] FILE recomputes the digests of the snapshots an
			// edited plan file embeds and then its plan id, as whoever
			// tampers with one can; with -id, only the plan id.
			"reseal": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[0] != "-id") {
					ts.Fatalf("usage: reseal [-id] FILE")
				}
				b := []byte(ts.ReadFile(args[len(args)-1]))
				if len(args) == 1 {
					b = resealEmbedded(ts, b)
				}
				id, old, err := jsonfile.SumEmpty(b, "plan_id")
				ts.Check(err)
				ts.Check(jsonfile.Overwrite(b, jsonfile.Member{Name: "plan_id", Value: old[0]}, id))
				ts.Check(os.WriteFile(ts.MkAbs(args[len(args)-1]), b, 0o644))
			},
		},
	}
	for name, cmd := range spliceScriptCmds {
		params.Cmds[name] = cmd
	}
	for name, cmd := range attackCmds {
		params.Cmds[name] = cmd
	}
	if params.Condition == nil {
		params.Condition = kubectlCondition
	}
	return params
}

// maxWidth is the script command "maxwidth N FILE": it fails naming every
// line of FILE longer than N characters.
func maxWidth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: maxwidth N FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	long := 0
	for i, l := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if w := utf8.RuneCountInString(l); w > n {
			ts.Logf("%s:%d: %d characters: %s", args[1], i+1, w, l)
			long++
		}
	}
	if long > 0 {
		ts.Fatalf("%s: %d lines longer than %d characters", args[1], long, n)
	}
}

// resealEmbedded is plan.json bytes b with the digest of each snapshot it
// embeds (the members head and snapshot: state.json's bytes, each line
// indented two spaces more) recomputed over the snapshot's bytes.
func resealEmbedded(ts *testscript.TestScript, b []byte) []byte {
	for _, member := range []string{"head", "snapshot"} {
		key := []byte("\n  \"" + member + "\": ")
		i := bytes.Index(b, key)
		if i < 0 {
			continue
		}
		start := i + len(key)
		dec := jsontext.NewDecoder(bytes.NewReader(b[start:]))
		v, err := dec.ReadValue()
		ts.Check(err)
		state := append(bytes.ReplaceAll(v, []byte("\n  "), []byte("\n")), '\n')
		sum, old, err := jsonfile.SumEmpty(state, "taken_at", "digest")
		ts.Check(err)
		ts.Check(jsonfile.Overwrite(state, jsonfile.Member{Name: "digest", Value: old[1]}, "sha256:"+sum))
		embedded := bytes.ReplaceAll(bytes.TrimSuffix(state, []byte("\n")), []byte("\n"), []byte("\n  "))
		b = append(append(append([]byte{}, b[:start]...), embedded...), b[start+len(v):]...)
	}
	return b
}
