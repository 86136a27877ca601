package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// runtimeNames are the files a hit or a login makes in the runtime
// directory, today and tomorrow (so that midnight does not pass the test).
func runtimeNames() []string {
	var names []string
	for _, d := range []time.Time{time.Now().UTC(), time.Now().UTC().AddDate(0, 0, 1)} {
		day := d.Format(time.DateOnly)
		names = append(names, "seen-"+day, "costs-"+day)
	}
	return append(names, "costs-build", "throttle", "throttle-network", "bcrypt-0.lock")
}

// victims makes a file outside for each name, and returns their paths
// with their contents.
func victims(t *testing.T, dir string, names []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		p := filepath.Join(dir, "victim-"+n)
		if err := os.WriteFile(p, []byte("not the counter's: "+n), 0o644); err != nil {
			t.Fatal(err)
		}
		out[p] = "not the counter's: " + n
	}
	return out
}

func unchanged(t *testing.T, files map[string]string) {
	t.Helper()
	for p, want := range files {
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s now holds %q (%v), want it untouched", p, b, err)
		}
	}
}

// TestHitAsRootThroughPlantedLinks: a www-data process has left links in
// /run/counter, one to the database among them; a hit and a login are
// then served as root. Nothing behind a link changes, each link is
// replaced by a file of www-data's, one log line each, and the count is
// right.
func TestHitAsRootThroughPlantedLinks(t *testing.T) {
	in := newInstall(t)
	if _, stderr, code := in.as(t, testenv.UIDWWWData, nil, "correct horse\n", "create", "blog"); code != 0 {
		t.Fatal(stderr)
	}
	in.as(t, testenv.UIDWWWData, nil, "correct horse\n", "passwd", "blog")
	names := runtimeNames()
	outside := victims(t, in.top, names)
	for _, n := range names {
		target := filepath.Join(in.top, "victim-"+n)
		if strings.HasPrefix(n, "seen-") {
			target = in.db // the visitor table's make would cut it short
		}
		if err := os.Symlink(target, filepath.Join(in.run, n)); err != nil {
			t.Fatal(err)
		}
		os.Lchown(filepath.Join(in.run, n), testenv.UIDWWWData, testenv.UIDWWWData)
	}
	dbBefore, _ := os.ReadFile(in.db)

	a, hitLog := in.cgi(t, 0, "GET", "/blog.png", "198.51.100.7", "")
	if a.status != 200 {
		t.Fatalf("hit as root: %d", a.status)
	}
	code, loginLog := in.login(t, 0, "blog", "198.51.100.8")
	if code != 303 {
		t.Fatalf("login as root: %d, %s", code, loginLog)
	}
	unchanged(t, outside)
	if fi, err := os.Stat(in.db); err != nil || fi.Size() < int64(len(dbBefore)) {
		t.Fatalf("the database is %v bytes (%v), was %d", fi.Size(), err, len(dbBefore))
	}
	if got := in.count(t, "blog"); got != "1" {
		t.Errorf("count %s after one hit, want 1", got)
	}
	log := hitLog + loginLog
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if !strings.Contains(line, "is a link: not followed: removed, and made anew") {
			t.Errorf("log line %q: want only the links' lines", line)
		}
	}
	// Each link used today is one line: the table and costs of today (not
	// tomorrow's), the build's, and the login's files.
	if n := strings.Count(log, "made anew"); n != 6 {
		t.Errorf("%d lines for the links, want 6:\n%s", n, log)
	}
	if bad := in.foreign(t); len(bad) > 2 { // tomorrow's two links stay
		t.Errorf("not www-data's after the hit and login: %v", bad)
	}
}

// TestRuntimeDirectoryOfAnotherUser: a runtime directory that another
// user made, or that others may write in, is not used at all, whoever
// serves the hit: the hit counts, as a view by a visitor not known, and
// the log says so in one line a day with the command that fixes it.
func TestRuntimeDirectoryOfAnotherUser(t *testing.T) {
	for _, tc := range []struct {
		name string
		uid  int
		mode uint32
		want string
	}{
		{"another user's", testenv.UIDNobody, 0o755, "belongs to nobody"},
		{"writable by all", 0, 0o1777, "may be written by other users (mode 1777)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstall(t)
			in.as(t, testenv.UIDWWWData, nil, "", "create", "blog")
			os.Chown(in.run, tc.uid, tc.uid)
			syscall.Chmod(in.run, tc.mode)
			names := runtimeNames()
			outside := victims(t, in.top, names)
			for _, n := range names {
				os.Symlink(filepath.Join(in.top, "victim-"+n), filepath.Join(in.run, n))
			}
			for i, uid := range []int{0, 0, testenv.UIDWWWData} {
				a, stderr := in.cgi(t, uid, "GET", "/blog.png", "198.51.100.9", "")
				if a.status != 200 {
					t.Fatalf("hit %d: %d", i, a.status)
				}
				lines := strings.Count(stderr, "\n")
				switch {
				case i == 0 && (lines != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "fix: sudo")):
					t.Errorf("first hit's log %q: want one line saying %q and the fix", stderr, tc.want)
				case i > 0 && lines != 0:
					t.Errorf("hit %d logged %q: want the problem said once a day", i, stderr)
				}
			}
			unchanged(t, outside)
			if got := in.count(t, "blog"); got != "3" {
				t.Errorf("count %s, want 3: a visitor not known, every hit a view", got)
			}
		})
	}
}

// TestServeMakesItsOwnRunDir: serve, run as root, used the predictable
// $TMPDIR/counter-run-0 even when another user had made it, links and
// all. Now whatever stands there is never touched, and serve's own
// directory goes when serve does.
func TestServeMakesItsOwnRunDir(t *testing.T) {
	testenv.NeedRoot(t)
	tmp := t.TempDir()
	syscall.Chmod(tmp, 0o1777) // a shared /tmp
	planted := filepath.Join(tmp, "counter-run-0")
	os.Mkdir(planted, 0o777)
	syscall.Chmod(planted, 0o777)
	os.Chown(planted, testenv.UIDNobody, testenv.UIDNobody)
	names := runtimeNames()
	outside := victims(t, t.TempDir(), names)
	for p := range outside {
		os.Symlink(p, filepath.Join(planted, strings.TrimPrefix(filepath.Base(p), "victim-")))
	}
	counterBinary(t) // built before TMPDIR is serve's
	t.Setenv("TMPDIR", tmp)
	url, cmd, stderr := startServe(t, t.TempDir())
	req, _ := http.NewRequest("GET", url+"demo.png", nil)
	req.Header.Set("User-Agent", browsers[0])
	for range 2 {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("demo.png: %d", resp.StatusCode)
		}
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 2 {
		t.Errorf("%s holds %d entries, want the planted one and serve's own", tmp, len(entries))
	}
	for _, e := range entries {
		if e.Name() == "counter-run-0" {
			continue
		}
		fi, _ := os.Stat(filepath.Join(tmp, e.Name()))
		if !strings.HasPrefix(e.Name(), "counter-run-") || fi.Mode().Perm() != 0o700 || len(e.Name()) < len("counter-run-")+6 {
			t.Errorf("serve's runtime directory is %s, mode %v: want a private one under an unguessable name", e.Name(), fi.Mode().Perm())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	unchanged(t, outside)
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("after serve stopped, %s holds %d entries, want only the planted one", tmp, len(entries))
	}
	if strings.Contains(stderr.String(), "counter-run-0") {
		t.Errorf("serve went near the planted directory: %s", stderr.String())
	}
}
