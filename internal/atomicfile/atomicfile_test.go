package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// entries lists dir's names, to prove no temporary file is left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteNewAndExisting(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.json")
	if err := Write(p, []byte("one\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode(); got != 0o640 {
		t.Errorf("new file mode %v, want -rw-r-----", got)
	}
	// An existing file is replaced by a rename (a new inode) and keeps its mode.
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fi2, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "two\n" {
		t.Errorf("content %q, want %q", got, "two\n")
	}
	if fi2.Mode() != 0o600 {
		t.Errorf("existing file mode %v, want -rw-------", fi2.Mode())
	}
	if os.SameFile(fi, fi2) {
		t.Error("the existing file was written in place, not replaced by a rename")
	}
	if got := entries(t, dir); len(got) != 1 || got[0] != "p.json" {
		t.Errorf("files left in the directory: %v", got)
	}
}

func TestWriteFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "real", "plan.json")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// link -> link2 -> real/plan.json (one relative, one absolute).
	link2 := filepath.Join(dir, "link2")
	if err := os.Symlink(target, link2); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("link2", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, link2} {
		fi, err := os.Lstat(l)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s was replaced: mode %v, want a symbolic link", l, fi.Mode())
		}
	}
	if got := readFile(t, target); got != "new\n" {
		t.Errorf("target content %q, want %q", got, "new\n")
	}
	if got := entries(t, filepath.Join(dir, "real")); len(got) != 1 {
		t.Errorf("files left beside the target: %v", got)
	}

	// A dangling link creates its target; the link stays.
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join("real", "new.json"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, []byte("created\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "real", "new.json")); got != "created\n" {
		t.Errorf("dangling link's target %q, want %q", got, "created\n")
	}
	if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced (%v, %v)", fi, err)
	}

	// A link in a directory that is itself a link, followed by "..":
	// the kernel resolves ".." from the link's target, and so must Write.
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a", "b"), filepath.Join(dir, "ab")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ab/../up.json", filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "up"), []byte("up\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "a", "up.json")); got != "up\n" {
		t.Errorf("a/up.json %q, want %q", got, "up\n")
	}

	// A loop of links.
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	err := Write(loop, []byte("x"), 0o644)
	if want := "write " + loop + ": too many levels of symbolic links"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestWriteFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until Write opens the other end
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			got <- "read: " + err.Error()
			return
		}
		got <- string(b)
	}()
	if err := Write(fifo, []byte("through the pipe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe\n" {
		t.Errorf("the reader got %q", s)
	}
	fi, err := os.Lstat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: mode %v", fi.Mode())
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("files left in the directory: %v", got)
	}
}

func TestWriteRefusals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
	} else {
		sock = ""
	}
	missing := filepath.Join(dir, "nonexistent", "dir")
	cases := []struct{ path, want string }{
		{filepath.Join(missing, "p.json"), "write " + missing + "/p.json: no such directory " + missing},
		{"nonexistent-rel/p.json", "write nonexistent-rel/p.json: no such directory nonexistent-rel"},
		{filepath.Join(file, "p.json"), "write " + file + "/p.json: " + file + " is not a directory"},
		{filepath.Join(file, "sub", "p.json"), "write " + file + "/sub/p.json: " + file + " is not a directory"},
		{dir, "write " + dir + ": is a directory"},
		{dir + "/", "write " + dir + "/: is a directory"},
		{file + "/", "write " + file + "/: a file name cannot end in /"},
		{"", "write: no file name"},
	}
	if sock != "" {
		cases = append(cases, struct{ path, want string }{sock, "write " + sock + ": is a socket; write to a regular file, a device or a FIFO"})
	}
	// A dangling link into a missing directory names that directory.
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(missing, "p.json"), link); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct{ path, want string }{link, "write " + link + ": no such directory " + missing})
	for _, c := range cases {
		err := Write(c.path, []byte("data"), 0o644)
		if err == nil || err.Error() != c.want {
			t.Errorf("Write(%q): got %v\nwant %s", c.path, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), ".tmp-") {
			t.Errorf("Write(%q) names the temporary file: %v", c.path, err)
		}
	}
	if got := readFile(t, file); got != "x" {
		t.Errorf("file changed to %q", got)
	}
}

func TestWriteUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes anywhere")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	err := Write(filepath.Join(ro, "p.json"), []byte("x"), 0o644)
	want := "write " + ro + "/p.json: cannot create a file in " + ro + ": permission denied"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestWriteProcLink: a /proc/self/fd link (what /dev/stdout leads to) is
// an open file: it is appended to, never replaced or truncated, so
// `krmplan … -o /dev/stdout >> log` keeps the log.
func TestWriteProcLink(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("first\n"); err != nil {
		t.Fatal(err)
	}
	link := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if _, err := os.Lstat(link); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	before, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, log); got != "first\nsecond\n" {
		t.Errorf("log %q, want %q", got, "first\nsecond\n")
	}
	after, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the open file was replaced by a rename")
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("files left in the directory: %v", got)
	}
}

// A SIGTERM or SIGINT while the temporary file exists removes it, and the
// signal still ends the process: the test sends a real signal to a child
// process (this test binary again) held just after the temporary file is
// created, or while it is being created (the attack suite's midwrite once
// found a signal there that left the file). The target keeps its old
// content, and the directory holds nothing else. A signal that comes as
// the file is renamed finds nothing to remove (the write is whole) and
// still ends the process, which would otherwise exit 0 (the attack
// suite's midwrite found that under load: the guard passed the signal on
// with kill(2), which another thread took after the program had ended).
func TestSignalRemovesTemporaryFile(t *testing.T) {
	if target := os.Getenv("ATOMICFILE_CHILD_TARGET"); target != "" {
		if os.Getenv("ATOMICFILE_CHILD_HOLD") == "creating" {
			// The signal arrives as the file is being created: before,
			// it came between the creation and the watch of the signals,
			// and the file was left.
			inCreate = func(tmp string) {
				fmt.Println(tmp)
				time.Sleep(300 * time.Millisecond)
			}
			afterCreate = func(string) { select {} }
		} else if os.Getenv("ATOMICFILE_CHILD_HOLD") == "renaming" {
			inRename = func(tmp string) {
				fmt.Println(tmp)
				time.Sleep(300 * time.Millisecond)
			}
			Write(target, []byte("new\n"), 0o644)
			os.Exit(0) // the signal was lost
		} else {
			afterCreate = func(tmp string) {
				fmt.Println(tmp)
				select {} // until the signal
			}
		}
		Write(target, []byte("new\n"), 0o644)
		os.Exit(3) // not reached: the signal ends the process
	}
	for _, hold := range []string{"written", "creating", "renaming"} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(hold+"/"+sig.String(), func(t *testing.T) {
				dir := t.TempDir()
				target := filepath.Join(dir, "plan.json")
				if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(os.Args[0], "-test.run=^TestSignalRemovesTemporaryFile$")
				cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD_TARGET="+target, "ATOMICFILE_CHILD_HOLD="+hold)
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				tmp, err := bufio.NewReader(out).ReadString('\n')
				if err != nil {
					cmd.Process.Kill()
					t.Fatalf("the child did not create its temporary file: %v", err)
				}
				tmp = strings.TrimSpace(tmp)
				if _, err := os.Stat(tmp); err != nil && hold != "renaming" {
					t.Fatalf("no temporary file while writing: %v", err)
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				err = cmd.Wait()
				ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
				if err == nil || !ws.Signaled() || ws.Signal() != sig {
					t.Errorf("the child ended with %v (%v), not by %v", cmd.ProcessState, err, sig)
				}
				if got := entries(t, dir); len(got) != 1 || got[0] != "plan.json" {
					t.Errorf("the directory holds %q: the temporary file %s was left", got, filepath.Base(tmp))
				}
				want := "old\n"
				if hold == "renaming" {
					want = "new\n" // renamed before the signal came: whole
				}
				if got := readFile(t, target); got != want {
					t.Errorf("the target holds %q, want %q", got, want)
				}
			})
		}
	}
}
