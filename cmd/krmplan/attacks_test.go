package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/rogpeppe/go-internal/testscript"
)

// The attacks of issue #13, tried again as an attacker would: one script
// per attack in testdata/attack, each run through `bounded`, which fails
// the script when krmplan uses more than attackTime of CPU (or hangs past
// attackHang), holds more than attackMemory at its peak, or exits with
// another status than the one the script expects (1 for a refusal). `go test -run TestAttacks -v` logs one
// row per command: the attack, the command, its exit status, its error
// line, its time and its peak memory.

// The bounds on every command of the attack scripts: no input under 4 MB
// may make krmplan work longer or hold more (issue #13, "Done when").
// The time bound is CPU time (user + system, getrusage), not wall time:
// on a machine shared with other work a command's wall time grows with
// the load, and a bound on it would fail by chance. attackHang is the
// wall-clock guard against a command that waits instead of working; it
// is far above what attackTime of CPU takes even at a load of 8 per core.
const (
	attackTime   = 20 * time.Second
	attackHang   = 5 * time.Minute
	attackMemory = 1_000_000_000 // bytes of peak resident memory
)

// limitBreached is the exit status of `limit` when the command it ran
// went past a bound.
const limitBreached = 125

// TestAttacks runs the attack scripts.
func TestAttacks(t *testing.T) {
	params := scriptParams(t, "testdata/attack")
	log := filepath.Join(t.TempDir(), "limits.log")
	setup := params.Setup
	params.Setup = func(e *testscript.Env) error {
		e.Setenv("KRMPLAN_LIMITS_LOG", log)
		e.Setenv("ATTACK", strings.TrimPrefix(filepath.Base(e.WorkDir), "script-"))
		// The attacks match whole messages: nothing wraps them.
		e.Setenv("COLUMNS", "10000")
		return setup(e)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(log); err == nil {
			t.Logf("attack | command | exit | message | wall | CPU | peak RSS\n%s", b)
		}
	})
	testscript.Run(t, params)
}

// attackCmds are the attack scripts' commands:
//
//	bounded CODE PROGRAM ARGS...
//	                      run PROGRAM (krmplan, sh, …) as exec does, within
//	                      attackTime and attackMemory, and fail unless it
//	                      exits with status CODE (0, 1, 2)
//	repeat FILE TEXT COUNT [TEXT COUNT]...
//	                      write FILE: each TEXT COUNT times, in order (\n in
//	                      TEXT is a newline)
//	samplerepo DIR        make DIR a git repository whose one commit holds
//	                      the sample's tenancy.yaml
//	resealstate FILE      recompute the digest of an edited state.json, as
//	                      whoever tampers with one can
//	gentenancy DIR N      write the generated tenancy of N projects
//	                      (internal/gentenancy) into DIR: tenancy.yaml,
//	                      cluster-data.json, move-h100-cards.hcl
//	forge-renderable FILE make a plan file with errors say it renders, as
//	                      consistently as an editor can: its error findings
//	                      removed, the summary's errors 0, renderable and
//	                      order_verified true, its plan_id recomputed
var attackCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"bounded": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 {
			ts.Fatalf("usage: bounded CODE PROGRAM ARGS...")
		}
		want, err := strconv.Atoi(args[0])
		ts.Check(err)
		got, err := exitStatus(ts.Exec("limit", args[1:]...))
		if err != nil {
			ts.Fatalf("%s: %v", args[1], err)
		}
		switch {
		case got == limitBreached:
			ts.Fatalf("%s went past a bound (see its stderr)", args[1])
		case got != want:
			ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
		}
	},
	"repeat": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 3 || len(args)%2 != 1 {
			ts.Fatalf("usage: repeat FILE TEXT COUNT [TEXT COUNT]...")
		}
		var b strings.Builder
		for i := 1; i < len(args); i += 2 {
			n, err := strconv.Atoi(args[i+1])
			ts.Check(err)
			b.WriteString(strings.Repeat(strings.ReplaceAll(args[i], `\n`, "\n"), n))
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
	},
	"resealstate": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: resealstate FILE")
		}
		b := []byte(ts.ReadFile(args[0]))
		sum, old, err := jsonfile.SumEmpty(b, "taken_at", "digest")
		ts.Check(err)
		ts.Check(jsonfile.Overwrite(b, jsonfile.Member{Name: "digest", Value: old[1]}, "sha256:"+sum))
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
	},
	"forge-renderable": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: forge-renderable FILE")
		}
		s := ts.ReadFile(args[0])
		s = errorFinding.ReplaceAllString(s, "")
		s = strings.Replace(s, "\"findings\": [,\n", "\"findings\": [\n", 1) // the first finding was an error
		for _, r := range [][2]string{{`"renderable": false,`, `"renderable": true,`}, {`"order_verified": false,`, `"order_verified": true,`}} {
			s = strings.Replace(s, r[0], r[1], 1)
		}
		s = summaryErrors.ReplaceAllString(s, `${1}0,`)
		b := []byte(s)
		id, old, err := jsonfile.SumEmpty(b, "plan_id")
		ts.Check(err)
		ts.Check(jsonfile.Overwrite(b, jsonfile.Member{Name: "plan_id", Value: old[0]}, id))
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
	},
	"gentenancy": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: gentenancy DIR N")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		dir := ts.MkAbs(args[0])
		ts.Check(os.MkdirAll(dir, 0o755))
		for name, data := range gentenancy.Files(gentenancy.Generate(gentenancy.Spec{Projects: n, Seed: gentenancy.BenchSeed})) {
			ts.Check(os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
	},
	"samplerepo": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: samplerepo DIR")
		}
		dir := ts.MkAbs(args[0])
		ts.Check(os.MkdirAll(dir, 0o755))
		b, err := os.ReadFile(filepath.Join(ts.Getenv("SAMPLE"), "tenancy.yaml"))
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(dir, "tenancy.yaml"), b, 0o644))
		for _, git := range [][]string{{"init", "-q", "-b", "main"}, {"add", "tenancy.yaml"}, {"commit", "-q", "-m", "tenancy"}} {
			ts.Check(ts.Exec("git", append([]string{"-C", dir}, git...)...))
		}
	},
}

// midwrite is the `midwrite OUT PROGRAM ARGS...` program of the attack
// scripts: it runs PROGRAM, stops it and sends it SIGTERM as soon as its
// temporary file for OUT (.OUT.tmp-*, in OUT's folder) appears (and is
// still there once PROGRAM is stopped), and exits 0 when one
// appeared, the signal ended PROGRAM and no temporary file is left; else 1,
// saying which did not hold. The folder is polled, and on a loaded machine
// a short write can end between two polls: a run that ends without a
// temporary file seen is tried again (its OUT removed), up to
// midwriteTries times.
func midwrite(args []string, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "usage: midwrite OUT PROGRAM ARGS...")
		return 2
	}
	for try := 1; ; try++ {
		missed, code := midwriteOnce(args, stderr, try == midwriteTries)
		if !missed || try == midwriteTries {
			return code
		}
		os.Remove(args[0])
	}
}

// stillThere stops p (SIGSTOP, waiting until every thread is stopped) and
// says whether the temporary file tmp still exists; if not, p goes on. A
// listing of the folder can be out of date by the time it returns: on a
// loaded machine p had renamed the file and ended (a zombie, which a
// signal does not reach) before the SIGTERM was sent, and its exit status
// 0 looked like a lost signal. Stopped, p cannot rename, so the SIGTERM
// that follows reaches a live process while tmp exists; the caller sends
// SIGCONT after it.
func stillThere(p *os.Process, tmp string) bool {
	_ = p.Signal(syscall.SIGSTOP)
	waitStopped(p.Pid)
	if exists(tmp) {
		return true
	}
	_ = p.Signal(syscall.SIGCONT)
	return false
}

// waitStopped waits (up to 10 s) until no thread of process pid runs:
// each is stopped (state T or t in /proc/PID/task/TID/stat) or gone.
// SIGSTOP is delivered to the threads after kill(2) returns.
func waitStopped(pid int) {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Microsecond) {
		stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		running := false
		for _, f := range stats {
			b, err := os.ReadFile(f)
			// The state is the field after the command's parenthesis.
			if i := bytes.LastIndexByte(b, ')'); err == nil && i >= 0 && i+2 < len(b) && b[i+2] != 'T' && b[i+2] != 't' && b[i+2] != 'Z' {
				running = true
				break
			}
		}
		if !running {
			return
		}
	}
}

// midwriteTries is how many runs midwrite makes to catch a temporary file.
const midwriteTries = 10

// midwriteOnce is one run of midwrite; missed says that PROGRAM ended
// before a temporary file was seen (said on stderr only when last).
func midwriteOnce(args []string, stderr io.Writer, last bool) (missed bool, code int) {
	dir, prefix := filepath.Dir(args[0]), "."+filepath.Base(args[0])+".tmp-"
	temporary := func() []string {
		var names []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), prefix) {
				names = append(names, e.Name())
			}
		}
		return names
	}
	cmd := exec.Command(args[1], args[2:]...)
	var out strings.Builder
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "midwrite: %v\n", err)
		return false, 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	seen := ""
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(100 * time.Microsecond):
			if names := temporary(); seen == "" && len(names) > 0 && stillThere(cmd.Process, filepath.Join(dir, names[0])) {
				seen = names[0]
				_ = cmd.Process.Signal(syscall.SIGTERM)
				_ = cmd.Process.Signal(syscall.SIGCONT)
			}
		}
	}
	if seen == "" && !last {
		return true, 1
	}
	fmt.Fprint(stderr, out.String())
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	left := temporary()
	switch {
	case seen == "":
		fmt.Fprintf(stderr, "midwrite: %s ended (%v) before a temporary file for %s appeared, %d times\n", args[1], cmd.ProcessState, args[0], midwriteTries)
		return true, 1
	case !ws.Signaled() || ws.Signal() != syscall.SIGTERM:
		fmt.Fprintf(stderr, "midwrite: %s was sent SIGTERM while %s existed, but ended with %v\n", args[1], seen, cmd.ProcessState)
	case len(left) > 0:
		fmt.Fprintf(stderr, "midwrite: SIGTERM while %s existed left %v\n", seen, left)
	case exists(args[0]) && !last:
		return true, 1 // the signal came after the rename: the write was whole; try again
	case exists(args[0]):
		fmt.Fprintf(stderr, "midwrite: SIGTERM came after %s was renamed to %s, %d times\n", seen, args[0], midwriteTries)
	default:
		fmt.Fprintf(stderr, "midwrite: SIGTERM while %s existed ended %s (%v); nothing was left\n", seen, args[1], cmd.ProcessState)
		return false, 0
	}
	return false, 1
}

// errorFinding is an error finding of plan.json as Encode writes it, with
// the comma before it; summaryErrors the summary's count of errors.
var (
	errorFinding  = regexp.MustCompile(`(?s),?\n    \{\n      "code": "[a-z-]+",\n      "level": "error",.*?\n    \}`)
	summaryErrors = regexp.MustCompile(`(\n    "errors": )[0-9]+,`)
)

// limit is the `limit PROGRAM ARGS...` program of the attack scripts: it
// runs PROGRAM with its output passed through, kills it at attackHang, and
// exits with PROGRAM's status, or limitBreached (saying why on stderr)
// when PROGRAM was killed, used more than attackTime of CPU, or its peak
// resident memory (getrusage's ru_maxrss, what /usr/bin/time -v reports)
// was over attackMemory. With
// $KRMPLAN_LIMITS_LOG set it appends a row about the run to that file.
func limit(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: limit PROGRAM ARGS...")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), attackHang)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var errs strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, io.MultiWriter(stderr, &errs)
	start := time.Now()
	code, err := exitStatus(cmd.Run())
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintf(stderr, "limit: %v\n", err)
		return limitBreached
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	logLimits(args, code, errs.String(), elapsed, cpu, rss)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "limit: %s ran past %v (wall time) and was killed\n", args[0], attackHang)
		return limitBreached
	case cpu > attackTime:
		fmt.Fprintf(stderr, "limit: %s used %v of CPU, more than %v\n", args[0], cpu.Round(time.Millisecond), attackTime)
		return limitBreached
	case rss > attackMemory:
		fmt.Fprintf(stderr, "limit: %s held %d MB at its peak, more than %d MB\n", args[0], rss/1_000_000, attackMemory/1_000_000)
		return limitBreached
	}
	return code
}

// logLimits appends a row about one run to $KRMPLAN_LIMITS_LOG, when set:
// the attack, the command, its exit status, its first "Error:" line, its
// wall and CPU time and its peak memory.
func logLimits(args []string, code int, stderr string, elapsed, cpu time.Duration, rss int64) {
	path := os.Getenv("KRMPLAN_LIMITS_LOG")
	if path == "" {
		return
	}
	msg := ""
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "Error: ") {
			msg = line
			break
		}
	}
	row := fmt.Sprintf("%s | %s | %d | %s | %.2f s | %.2f s | %d MB\n", os.Getenv("ATTACK"), cut(strings.Join(args, " "), 100), code, cut(msg, 160), elapsed.Seconds(), cpu.Seconds(), rss/1_000_000)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(row)
}

// exitStatus is the exit status of a program that ended with err (0 for
// nil); err is returned when it is not an exit status (the program did
// not start).
func exitStatus(err error) (int, error) {
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), nil
	case err != nil:
		return 0, err
	}
	return 0, nil
}

// cut is s cut to at most n characters, with "…" when it was longer.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// exists reports whether the file name exists.
func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
