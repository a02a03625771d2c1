package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// demo runs `krmplan demo ARGS` and returns its exit code and output.
func demo(t *testing.T, args ...string) (int, string) {
	t.Helper()
	back, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := run(append([]string{"krmplan", "demo"}, args...), strings.NewReader(""), &out, &out)
	if now, _ := os.Getwd(); now != back {
		t.Fatalf("the demo left the working directory in %s", now)
	}
	return code, out.String()
}

// TestDemo runs the 160-GPU demo end to end and checks what it shows:
// the h100 pool 8 cards over (refused), where every queue still gets its
// deserved; the clean move in its four phases, with the fair share it
// moves (product-ml's search-ranking loses a card, vision's segmentation
// gains one); and the splice commit on a new branch with HEAD untouched.
func TestDemo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	code, out := demo(t, "--dir", dir)
	if code != 0 {
		t.Fatalf("demo exited %d:\n%s", code, out)
	}
	for _, want := range []string{
		"$ krmplan snapshot --git-repo . --tenancy tenancy.yaml --cluster-data cluster-data.json -o state.json\n",
		"\nError: pool h100: departments are guaranteed 104 cards, the pool has 96 cards\n  — 8 cards over\n",
		"\nNot renderable: 1 error; this plan cannot be rendered.\n",
		"\nError: render refused: plan ",
		"\nWarning: pool a100: not all of the pool's 64 cards are schedulable right now:\n  node a100-node-04 is not Ready (8 cards)\n",
		"\nOrder: 4 steps in phases, every intermediate state verified against the checks.\n",
		"\n# 1/4 shrinking projects: Project detection\n",
		"\n# 2/4 shrinking departments: Department vision\n",
		"\n# 3/4 growing or new departments: Department research\n",
		"\n# 4/4 growing or new projects: Project foundation-models\n",
		"\n-        gpu:    {deserved: 10,     limit: 10,  overQuotaWeight: 1}\n+        gpu:    {deserved: 6,      limit: 10,  overQuotaWeight: 1}\n",
		// over-the-pool.hcl: 104 cards guaranteed on 96.
		"\n    After the plan, the guarantees at the top of the pool add up to 104 cards, 8\n    more than the pool's 96: every queue still gets its deserved (KAI never\n    scales a guarantee down), and nothing is left to share over quota.\n",
		"\n    research-h100                               28        43 ~\n",
		// move-h100-cards.hcl: the queues it moves without changing them.
		"\n    product-ml-h100                             16        15 ~ not in the plan\n" +
			"      search-ranking-h100                        8         7 ~ not in the plan\n" +
			"    research-h100                               28        32 ~\n" +
			"      foundation-models-h100                    15        19 ~\n" +
			"    vision-h100                                 17        14\n" +
			"      detection-h100                            10         6\n" +
			"      segmentation-h100                          3         4   not in the plan\n" +
			"    The plan changes none of product-ml-h100, search-ranking-h100 and\n    segmentation-h100, but moves their fair share.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("the demo coloured output that is not a terminal")
	}
	for _, f := range []string{"tenancy.yaml", "cluster-data.json", "over-the-pool.hcl", "move-h100-cards.hcl", "state.json", "refused.json", "plan.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--dir: %v", err)
		}
	}
	id, err := planID(filepath.Join(dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(b))
	}
	if got := git("branch", "--list", "--format=%(refname:short)"); got != "krmplan/"+id[:12]+"\nmain" {
		t.Errorf("branches %q, want the splice branch and main", got)
	}
	if got := git("rev-list", "--count", "HEAD"); got != "1" {
		t.Errorf("HEAD has %s commits, want the tenancy's one", got)
	}
	if got := git("status", "--porcelain", "--untracked-files=no"); got != "" {
		t.Errorf("the work tree or index changed: %q", got)
	}
}

// TestDemoSample runs the small sample, and refuses a folder in use.
// TestDemoSaysItsTemporaryFolderIsRemoved runs the demo without --dir: its
// output names the temporary folder (the branch it created there), so its
// last line says the folder is removed, and it is.
func TestDemoSaysItsTemporaryFolderIsRemoved(t *testing.T) {
	code, out := demo(t, "--sample")
	if code != 0 {
		t.Fatalf("demo exited %d:\n%s", code, out)
	}
	m := regexp.MustCompile(`(?m)^# (\S+) was a temporary folder and is removed now; krmplan demo --dir DIR builds the demo in DIR and leaves it there to explore\.\n\z`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the demo's output does not end by saying its folder is removed:\n%s", out[max(0, len(out)-400):])
	}
	if !strings.Contains(out, "are untouched.\n") || !strings.Contains(out, " in "+m[1]) {
		t.Errorf("the folder %s is not the one the demo named", m[1])
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the demo's temporary folder %s: %v, want it removed", m[1], err)
	}
	_, kept := demo(t, "--sample", "--dir", filepath.Join(t.TempDir(), "d"))
	if strings.Contains(kept, "temporary folder") {
		t.Errorf("with --dir the demo says its folder is temporary:\n%s", kept[max(0, len(kept)-400):])
	}
}

func TestDemoSample(t *testing.T) {
	code, out := demo(t, "--sample")
	if code != 0 {
		t.Fatalf("demo --sample exited %d:\n%s", code, out)
	}
	want := "platform-rtx: the projects are guaranteed 5 cards in total, but the\n  department only has 4 cards — 1 card of those guarantees cannot be met\n"
	if !strings.Contains(out, want) {
		t.Errorf("the sample's output lacks %q", want)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := demo(t, "--dir", dir); code != 1 || !strings.Contains(out, "is not empty") {
		t.Errorf("demo in a folder in use: exit %d, %q", code, out)
	}
}
