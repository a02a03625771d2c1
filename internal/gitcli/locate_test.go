package gitcli

import (
	"os"
	"path/filepath"
	"testing"
)

// Locate says what a folder is in git: the top of a work tree, a folder
// inside one, a bare repository and a folder inside it, a work tree's
// .git folder, and a folder in no repository; names with a newline too.
func TestLocate(t *testing.T) {
	tmp := initRepos(t, "work\ntree $(x)")
	wt := filepath.Join(tmp, "work\ntree $(x)")
	bare := filepath.Join(tmp, "bare.git")
	for _, tc := range []struct {
		dir, root, str string
		bare, inGit    bool
	}{
		{wt, wt, wt, false, false},
		{filepath.Join(wt, "sub"), wt, wt + " (the repository that holds " + filepath.Join(wt, "sub") + ")", false, false},
		{filepath.Join(wt, ".git"), filepath.Join(wt, ".git"), filepath.Join(wt, ".git") + " (the git directory of a work tree)", false, true},
		{bare, bare, bare + " (a bare repository)", true, false},
		{filepath.Join(bare, "refs"), bare, bare + " (the bare repository that holds " + filepath.Join(bare, "refs") + ")", true, false},
	} {
		p, err := Locate(tc.dir)
		if err != nil {
			t.Errorf("%q: %v", tc.dir, err)
			continue
		}
		if p.Root != tc.root || p.Bare != tc.bare || p.InGitDir != tc.inGit || p.String() != tc.str {
			t.Errorf("%q: %+v %q", tc.dir, p, p.String())
		}
	}
	if _, err := Locate(tmp); err == nil || err.Error() != tmp+" is not in a git repository" {
		t.Errorf("a plain folder: %v", err)
	}
}

// A repository that git refuses as another user's (safe.directory) is
// said to be refused, in git's words, not to be missing; the
// safe.directory that an environment's configuration gives (a CI job's
// GIT_CONFIG_COUNT) is followed. GIT_TEST_ASSUME_DIFFERENT_OWNER is
// git's own switch for its tests of the check.
func TestLocateRefusedOwner(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	wt := filepath.Join(initRepos(t, "wt"), "wt")
	t.Setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
	want := wt + ": git refuses the repository: detected dubious ownership in repository at '" + wt +
		"'; To add an exception for this directory, call: git config --global --add safe.directory " + wt
	if _, err := Locate(wt); err == nil || err.Error() != want {
		t.Errorf("Locate = %v\nwant %s", err, want)
	}
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "safe.directory")
	t.Setenv("GIT_CONFIG_VALUE_0", "*")
	if p, err := Locate(wt); err != nil || p.Root != wt {
		t.Errorf("with safe.directory=* from the environment: %+v, %v", p, err)
	}
}
