package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/store"
)

func TestDoctor(t *testing.T) {
	php12, err := os.ReadFile("../testdata/hashes/php-cost12.txt")
	if err != nil {
		t.Fatal(err)
	}
	php13, err := os.ReadFile("../testdata/hashes/php-cost13.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		setup    func(t *testing.T, db, run string)
		args     []string
		exit     int
		contains []string
	}{
		{"healthy", nil, []string{"-max", "10s"}, 0, []string{
			"bcrypt at the pinned cost 10:", "checks a second per core", "1 counter(s)", "all good"}},
		{"too slow for the limit", nil, []string{"-max", "1ms"}, 1, []string{"over the limit of 1 ms"}},
		{"no runtime directory", func(t *testing.T, db, run string) { os.Remove(run) }, []string{"-max", "10s"}, 1,
			[]string{"PROBLEM: runtime directory", "make it now with: sudo install -d -m 0750 -o "}},
		{"world-readable database", func(t *testing.T, db, run string) { os.Chmod(db, 0o644) }, []string{"-max", "10s"}, 1,
			[]string{"readable by every user"}},
		{"a PHP hash at cost 12", func(t *testing.T, db, run string) {
			adminStdin(t, db, string(php12), "passwd", "-hash", "blog")
		}, []string{"-max", "10s"}, 0, []string{"blog: hash at cost 12 takes", "makes it cost 10"}},
		{"a hash at cost 13", func(t *testing.T, db, run string) {
			adminStdin(t, db, string(php13)+"\n", "passwd", "-hash", "blog") // refused: plant it directly
			setHashIn(t, db, "blog", []byte(strings.TrimSpace(string(php13))))
		}, []string{"-max", "10s"}, 1, []string{"blog: hash at cost 13 is never checked", "counter passwd blog"}},
		{"the owner's PHP hash at cost 12", func(t *testing.T, db, run string) {
			adminStdin(t, db, string(php12), "passwd", "-owner", "-hash")
		}, []string{"-max", "10s"}, 0, []string{"the owner's login: hash at cost 12 takes", "makes it cost 10"}},
		{"the owner's hash at cost 13", func(t *testing.T, db, run string) {
			d, err := store.Open(db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.SetOwnerPasswordHash([]byte(strings.TrimSpace(string(php13)))); err != nil {
				t.Fatal(err)
			}
		}, []string{"-max", "10s"}, 1, []string{"the owner's login: hash at cost 13 is never checked", "counter passwd -owner"}},
		{"no database", func(t *testing.T, db, run string) { os.Remove(db) }, []string{"-max", "10s"}, 1,
			[]string{"PROBLEM: database"}},
		{"a lock file of another user", func(t *testing.T, db, run string) {
			if os.Getuid() != 0 {
				testenv.Need(t, "root, to give the file away")
			}
			os.Chown(store.LockPath(db), 65534, 65534)
			os.Chmod(store.LockPath(db), 0o600)
		}, []string{"-max", "10s"}, 1, []string{"lock file", "belongs to"}},
		{"a runtime directory of another user", func(t *testing.T, db, run string) {
			testenv.NeedRoot(t)
			os.Chown(run, testenv.UIDNobody, testenv.UIDNobody)
		}, []string{"-max", "10s"}, 1, []string{"PROBLEM: runtime directory: ", "belongs to nobody", "fix: sudo chown root: "}},
		{"a runtime directory that is not the database owner's", func(t *testing.T, db, run string) {
			testenv.NeedRoot(t)
			os.Chown(db, testenv.UIDWWWData, testenv.UIDWWWData)
		}, []string{"-max", "10s"}, 1, []string{"belongs to root but the database to www-data: hits cannot make files in it; sudo chown www-data: "}},
		{"a link and another user's file in the runtime directory", func(t *testing.T, db, run string) {
			testenv.NeedRoot(t)
			os.Symlink(db, filepath.Join(run, "seen-2026-12-04"))
			os.WriteFile(filepath.Join(run, "throttle"), nil, 0o600)
			os.Chown(filepath.Join(run, "throttle"), testenv.UIDNobody, testenv.UIDNobody)
		}, []string{"-max", "10s"}, 1, []string{"seen-2026-12-04 is a link (never followed)", "throttle belongs to nobody, not root", "sudo rm "}},
		{"a link beside the database", func(t *testing.T, db, run string) {
			os.Symlink("/etc/passwd", filepath.Join(filepath.Dir(db), "counter.db.bak"))
		}, []string{"-max", "10s"}, 1, []string{"counter.db.bak, beside the database, is a link"}},
		{"a lock file that is the database", func(t *testing.T, db, run string) {
			os.Remove(store.LockPath(db))
			if err := os.Symlink(db, store.LockPath(db)); err != nil {
				t.Fatal(err)
			}
		}, []string{"-max", "10s"}, 1, []string{"PROBLEM: lock file", "is the database itself"}},
		{"the FastCGI service answers", func(t *testing.T, db, run string) {
			sock := filepath.Join(filepath.Dir(db), "fastcgi.sock")
			cmd := exec.Command(counterBinary(t), "fastcgi", "-listen", "unix:"+sock)
			cmd.Env = []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + run}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			for range 100 {
				if _, err := os.Stat(sock); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}, []string{"-max", "10s"}, 0, []string{"FastCGI service at ", "fastcgi.sock: answers in", "FCGI_MPXS_CONNS=0",
			"logins: limited per REMOTE_ADDR, which only the web server can send on a Unix socket", "all good"}},
		{"a FastCGI socket nobody answers", func(t *testing.T, db, run string) {
			ln, err := net.Listen("unix", filepath.Join(filepath.Dir(db), "fastcgi.sock"))
			if err != nil {
				t.Fatal(err)
			}
			ln.(*net.UnixListener).SetUnlinkOnClose(false)
			ln.Close() // the file stays, as after a crash
		}, []string{"-max", "10s"}, 1, []string{"PROBLEM: FastCGI service at", "cannot connect", "systemctl status counter.socket"}},
		{"no FastCGI socket", nil, []string{"-max", "10s"}, 0, []string{"FastCGI service: no socket at", "none is needed for CGI"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db, run := filepath.Join(dir, "counter.db"), filepath.Join(dir, "run")
			adminRun(t, db, "create", "blog")
			os.Mkdir(run, 0o700)
			if tc.setup != nil {
				tc.setup(t, db, run)
			}
			// No socket unless the case makes one: the machine's own
			// /run/counter must not change the answer.
			args := tc.args
			if !slices.Contains(args, "-socket") {
				args = append(args, "-socket", filepath.Join(dir, "fastcgi.sock"))
			}
			cmd := append([]string{"doctor", "-db", db}, args...)
			out, code := adminStdinEnv(t, []string{"COUNTER_RUN_DIR=" + run}, "", cmd...)
			if code != tc.exit {
				t.Errorf("exit %d, want %d; output:\n%s", code, tc.exit, out)
			}
			for _, want := range tc.contains {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
