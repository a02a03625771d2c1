package gitcli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// command is git with args in the repository r.Dir, with the environment
// every command of the package runs with (environ), and the quarantine's
// object directories when r is the repository they are of (quarantine).
func (r Repo) command(args []string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-C", r.Dir}, args...)...)
	cmd.Env = environ(os.Environ(), append(quarantine(r.Dir), r.Env...))
	return cmd
}

// quarantineVars are the variables of the object directories git gives a
// pre-receive hook (git-receive-pack(1), "Quarantine environment"): the pushed
// objects are in a quarantine directory until the hook accepts them, so
// `krmplan check --ref $new --git-repo .` in the hook reads the pushed
// commit only through them. GIT_QUARANTINE_PATH also makes git refuse
// every ref update, in whatever repository.
var quarantineVars = []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH"}

// quarantined caches quarantine's answer by folder: one check per
// repository a run names, and none when the environment has no
// quarantine (every run but a hook's).
var quarantined sync.Map

// quarantine is the environment's object-directory variables
// (quarantineVars), their paths made absolute (git runs with -C dir),
// when dir's repository, found without them, has the same git common
// directory as the repository the environment names (GIT_DIR, or the
// working folder's); else nil, and environ drops the object ones as it
// drops the variables of another repository (localVars), and
// GIT_QUARANTINE_PATH too.
func quarantine(dir string) []string {
	var vars []string
	for _, name := range quarantineVars {
		if v, ok := os.LookupEnv(name); ok {
			vars = append(vars, name+"="+absolutePaths(v))
		}
	}
	if len(vars) == 0 {
		return nil
	}
	same, ok := quarantined.Load(dir)
	if !ok {
		inDir, err1 := commonDir(exec.Command("git", "-C", dir, "rev-parse", "--path-format=absolute", "--git-common-dir"), environ(os.Environ(), nil))
		inEnv, err2 := commonDir(exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir"), os.Environ())
		same, _ = quarantined.LoadOrStore(dir, err1 == nil && err2 == nil && inDir == inEnv)
	}
	if !same.(bool) {
		return nil
	}
	return vars
}

// commonDir is the git common directory cmd prints, run with env, its
// links resolved.
func commonDir(cmd *exec.Cmd, env []string) (string, error) {
	cmd.Env = append(env, "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(strings.TrimSuffix(string(out), "\n"))
}

// absolutePaths is a list of paths as git reads one (separated by
// colons), each made absolute against the working folder.
func absolutePaths(list string) string {
	paths := filepath.SplitList(list)
	for i, p := range paths {
		if abs, err := filepath.Abs(p); err == nil && p != "" {
			paths[i] = abs
		}
	}
	return strings.Join(paths, string(filepath.ListSeparator))
}

// environ is the environment of a git command: krmplan's own (env) without
// the variables that tie git to one repository (localVars, and a hook's
// GIT_QUARANTINE_PATH: quarantine gives them back in their repository)
// and without GIT_DIFF_OPTS (whose --unified=N git lets override Diff's
// -U), then no prompt for credentials, the C locale for messages krmplan
// reads, and extra (the repository's own, such as a quarantine's
// GIT_OBJECT_DIRECTORY). krmplan names its repository with -C: a GIT_DIR
// or GIT_INDEX_FILE inherited from a git hook, `git rebase --exec` or a
// shell that exported one would otherwise make `snapshot --git-repo A`
// read another repository while naming A, and a splice write there.
// GIT_INDEX_FILE is dropped in its own repository too: the one git
// exports to a pre-commit hook is, for `git commit PATH`, a temporary
// index of HEAD and PATH alone, in which a file the user staged reads as
// untracked, and for `git commit -a` one that gives the uncommitted-files
// note (snapshot/worktree) the same words as the repository's own index
// (git_hook_index.txtar). GIT_WORK_TREE, which git exports only beside a
// GIT_DIR given by the user, would move the top a snapshot records.
func environ(env, extra []string) []string {
	out := make([]string, 0, len(env)+2+len(extra))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !localVars[name] && name != "GIT_DIFF_OPTS" && name != "GIT_QUARANTINE_PATH" {
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
