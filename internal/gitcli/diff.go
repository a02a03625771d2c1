package gitcli

import (
	"fmt"
	"strconv"
	"strings"
)

// Diff runs `git diff` with context lines of context (-U) and args
// (options, revisions, then "--" and pathspecs) and returns the patch.
// Its text is git's default whatever the user's, the system's or the
// repository's configuration says: the settings that change a patch are
// given on the command line (diff.context, diff.interHunkContext,
// diff.algorithm, diff.indentHeuristic, diff.orderFile,
// diff.suppressBlankEmpty, diff.relative, diff.noprefix and
// diff.mnemonicPrefix, core.quotePath, core.abbrev, colour), the
// environment's GIT_DIFF_OPTS (which git lets override -U) is not passed
// on (environ), no external diff or textconv runs, and every file is
// diffed as text (--text). Without that a user's `diff.context = 10` or
// `diff.algorithm = histogram` made render's diff differ from machine to
// machine, a `diff.interHunkContext` or GIT_DIFF_OPTS=--unified=3
// counted unchanged lines as changed (ChangedLines), and a `*.yaml -diff`
// in an attributes file (the user's core.attributesFile,
// $GIT_DIR/info/attributes or .gitattributes) gave "Binary files ...
// differ": a diff git apply refuses and no changed line at all. Renames
// are as args say (--find-renames, --no-renames). The attributes still
// choose a diff driver's hunk-header pattern (diff.<driver>.xfuncname),
// which changes only the text after a hunk's "@@".
func (r Repo) Diff(context int, args ...string) ([]byte, error) {
	return r.Run(nil, append([]string{"-c", "core.quotePath=true", "-c", "core.abbrev=auto", "-c", "diff.suppressBlankEmpty=false",
		"diff", "-U" + strconv.Itoa(context), "--inter-hunk-context=0", "--diff-algorithm=myers", "--indent-heuristic", "-O/dev/null",
		"--no-color", "--no-ext-diff", "--no-textconv", "--text", "--no-relative", "--src-prefix=a/", "--dst-prefix=b/"}, args...)...)
}

// ChangedLines runs `git diff -U0` (Diff) with args (revisions, then "--"
// and pathspecs) and returns, by path relative to the repository root,
// the lines of the new side that the diff adds or changes (1-based). A
// file the diff deletes has none. Renames are a deletion and an addition
// (every line of the new file changed); the paths are always the root's.
func (r Repo) ChangedLines(args ...string) (map[string]map[int]bool, error) {
	out, err := r.Diff(0, append([]string{"--no-renames"}, args...)...)
	if err != nil {
		return nil, err
	}
	return parseChangedLines(out)
}

// parseChangedLines reads the output of git diff -U0. A file's header
// starts at "diff --git" and names the new side on its "+++ " line; each
// "@@ -a,b +c,d @@" after it changes lines c to c+d-1. Inside a hunk every
// line starts with +, -, a space or \, so neither header can be confused
// with content.
func parseChangedLines(out []byte) (map[string]map[int]bool, error) {
	changed := map[string]map[int]bool{}
	file, inHeader := "", false
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			file, inHeader = "", true
		case inHeader && strings.HasPrefix(l, "+++ "):
			p, err := diffPath(strings.TrimPrefix(l, "+++ "))
			if err != nil {
				return nil, err
			}
			file = p
		case strings.HasPrefix(l, "@@ "):
			inHeader = false
			start, n, err := hunkNew(l)
			if err != nil {
				return nil, err
			}
			if file == "" {
				continue
			}
			if changed[file] == nil {
				changed[file] = map[int]bool{}
			}
			for i := start; i < start+n; i++ {
				changed[file][i] = true
			}
		}
	}
	return changed, nil
}

// diffPath is the path of a "+++ " line: "b/x" as x, a C-quoted name
// unquoted, "/dev/null" (a deleted file) as "". git ends a name holding a
// space with a tab.
func diffPath(s string) (string, error) {
	if s == "/dev/null" {
		return "", nil
	}
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("git diff: cannot read the file name %s: %w", s, err)
		}
		s = u
	} else {
		s = strings.TrimSuffix(s, "\t")
	}
	if !strings.HasPrefix(s, "b/") {
		return "", fmt.Errorf("git diff: the file name %q has no b/ prefix", s)
	}
	return strings.TrimPrefix(s, "b/"), nil
}

// hunkNew reads the new side of a hunk header "@@ -a,b +c,d @@ ...": its
// first line c and its count d (1 when omitted).
func hunkNew(l string) (start, n int, err error) {
	f := strings.Fields(l)
	if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
		return 0, 0, fmt.Errorf("git diff: not a hunk header: %q", l)
	}
	c, d, ok := strings.Cut(f[2][1:], ",")
	if start, err = strconv.Atoi(c); err != nil {
		return 0, 0, fmt.Errorf("git diff: not a hunk header: %q", l)
	}
	n = 1
	if ok {
		if n, err = strconv.Atoi(d); err != nil {
			return 0, 0, fmt.Errorf("git diff: not a hunk header: %q", l)
		}
	}
	return start, n, nil
}
