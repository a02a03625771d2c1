package gitcli

import (
	"os"
	"os/exec"
	"strings"
)

// command is git with args in the repository r.Dir, with the environment
// every command of the package runs with (environ).
func (r Repo) command(args []string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-C", r.Dir}, args...)...)
	cmd.Env = environ(os.Environ(), r.Env)
	return cmd
}

// environ is the environment of a git command: krmplan's own (env) without
// the variables that tie git to one repository (localVars) and without
// GIT_DIFF_OPTS (whose --unified=N git lets override Diff's -U), then no
// prompt for credentials, the C locale for messages krmplan reads, and
// extra (the repository's own, such as a quarantine's
// GIT_OBJECT_DIRECTORY). krmplan names its repository with -C: a GIT_DIR
// or GIT_INDEX_FILE inherited from a git hook, `git rebase --exec` or a
// shell that exported one would otherwise make `snapshot --git-repo A`
// read another repository while naming A, and a splice write there.
func environ(env, extra []string) []string {
	out := make([]string, 0, len(env)+2+len(extra))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !localVars[name] && name != "GIT_DIFF_OPTS" {
			out = append(out, kv)
		}
	}
	return append(append(out, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), extra...)
}

// localVars are the variables that `git rev-parse --local-env-vars` lists
// (git 2.39): those git itself drops before it runs a command in another
// repository (a submodule's).
var localVars = map[string]bool{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_CONFIG":                       true,
	"GIT_CONFIG_PARAMETERS":            true,
	"GIT_CONFIG_COUNT":                 true,
	"GIT_OBJECT_DIRECTORY":             true,
	"GIT_DIR":                          true,
	"GIT_WORK_TREE":                    true,
	"GIT_IMPLICIT_WORK_TREE":           true,
	"GIT_GRAFT_FILE":                   true,
	"GIT_INDEX_FILE":                   true,
	"GIT_NO_REPLACE_OBJECTS":           true,
	"GIT_REPLACE_REF_BASE":             true,
	"GIT_PREFIX":                       true,
	"GIT_INTERNAL_SUPER_PREFIX":        true,
	"GIT_SHALLOW_FILE":                 true,
	"GIT_COMMON_DIR":                   true,
}
