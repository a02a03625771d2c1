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
// (git 2.39) but GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT: those git
// itself drops before it runs a command in another repository (a
// submodule's, prepare_other_repo_env in git's submodule.c). Like git,
// krmplan keeps the two that carry configuration (`git -c`, or
// GIT_CONFIG_COUNT with GIT_CONFIG_KEY_0 and GIT_CONFIG_VALUE_0
// exported): they name no repository, and they are how a CI job or a
// container says `safe.directory=*` without a global configuration file,
// which dropped made every git command refuse a checkout owned by
// another user ("DIR is not in a git repository"). What Diff's patch
// depends on it sets with its own -c, which comes after them and wins.
var localVars = map[string]bool{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_CONFIG":                       true,
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
