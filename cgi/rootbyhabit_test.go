package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/admin"
	"hitcounter/cgi/testenv"
)

// install is a counter laid out as the install lays it out: the
// database in a directory of www-data's, a runtime directory of www-data's
// as systemd-tmpfiles makes /run/counter (0750), and the binary where
// www-data may run it. Nothing in it is the machine's own.
type install struct {
	top, db, run, bin string
}

func newInstall(t *testing.T) install {
	t.Helper()
	testenv.NeedRoot(t)
	top := t.TempDir()
	// t.TempDir's own parent is root's alone: open both to www-data.
	for _, d := range []string{filepath.Dir(top), top} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in := install{top: top, db: filepath.Join(top, "lib", "counter.db"), run: filepath.Join(top, "run"), bin: filepath.Join(top, "counter.cgi")}
	for _, d := range []string{filepath.Dir(in.db), in.run} {
		if err := os.Mkdir(d, 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, testenv.UIDWWWData, testenv.UIDWWWData); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(counterBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in.bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	// theme add's decoder, beside it.
	if b, err = os.ReadFile(filepath.Join(filepath.Dir(counterBinary(t)), admin.DecoderName)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, admin.DecoderName), b, 0o755); err != nil {
		t.Fatal(err)
	}
	return in
}

// as runs the binary as user uid with env and stdin, and returns what it
// wrote to stdout and stderr, and its exit code.
func (in install) as(t *testing.T, uid int, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	// A hit that waits on a lock it planted for itself (a table linked
	// to the database) would hang: fail it instead.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, in.bin, args...)
	cmd.Env = append([]string{"COUNTER_DB=" + in.db, "COUNTER_RUN_DIR=" + in.run, "COUNTER_WAIT=10s", "PATH=/usr/bin:/bin"}, env...)
	cmd.Dir = in.top
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	return runCmd(t, cmd, stdin)
}

// cgi serves one request as uid, as a web server running as that user
// would.
func (in install) cgi(t *testing.T, uid int, method, path, addr, body string, extra ...string) (cgiAnswer, string) {
	t.Helper()
	env := append([]string{
		"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=" + method, "SERVER_PROTOCOL=HTTP/1.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "REQUEST_URI=/cgi-bin/counter.cgi" + path,
		"HTTP_HOST=127.0.0.1", "REMOTE_ADDR=" + addr, "HTTP_USER_AGENT=" + browsers[0],
		"HTTP_REFERER=https://example.org/",
	}, extra...)
	if method == "POST" {
		env = append(env, "CONTENT_TYPE=application/x-www-form-urlencoded", fmt.Sprintf("CONTENT_LENGTH=%d", len(body)),
			"HTTP_SEC_FETCH_SITE=same-origin")
	}
	out, stderr, code := in.as(t, uid, env, body)
	if code != 0 {
		t.Fatalf("CGI %s %s as uid %d: exit %d, %s", method, path, uid, code, stderr)
	}
	return parseCGI(t, []byte(out)), stderr
}

var countField = regexp.MustCompile(`"count":(\d+)`)

// count reads counter name's count without counting, as www-data.
func (in install) count(t *testing.T, name string) string {
	t.Helper()
	a, stderr := in.cgi(t, testenv.UIDWWWData, "GET", "/"+name+".json", "192.0.2.250", "")
	m := countField.FindSubmatch(a.body)
	if a.status != 200 || m == nil {
		t.Fatalf("%s.json: %d %q, %s", name, a.status, a.body, stderr)
	}
	return string(m[1])
}

// login logs in to counter name's statistics as uid, and returns the
// status.
func (in install) login(t *testing.T, uid int, name, addr string) (int, string) {
	t.Helper()
	a, stderr := in.cgi(t, uid, "POST", "/"+name+"/login", addr, "password=correct+horse")
	return a.status, stderr
}

// foreign lists what in the runtime directory and beside the database is
// not a plain file of www-data's that www-data may use.
func (in install) foreign(t *testing.T) []string {
	t.Helper()
	var bad []string
	for _, dir := range []string{in.run, filepath.Dir(in.db)} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := os.Lstat(path)
			if err != nil {
				return err
			}
			st := fi.Sys().(*syscall.Stat_t)
			if st.Uid != testenv.UIDWWWData || st.Gid != testenv.UIDWWWData || fi.Mode()&fs.ModeSymlink != 0 {
				bad = append(bad, fmt.Sprintf("%s (%d:%d %v)", path, st.Uid, st.Gid, fi.Mode()))
			}
			return nil
		})
	}
	return bad
}

// TestRootByHabit: an owner who types sudo before every command, and a
// web server that once served a hit and a login as root, leave nothing
// that the web server's user cannot use. After each, www-data's hits
// still tell a reload from a view, its login still gets in, and every
// file is www-data's.
func TestRootByHabit(t *testing.T) {
	in := newInstall(t)
	csv := filepath.Join(in.top, "import.csv")
	if err := os.WriteFile(csv, []byte("date,views\n2026-01-02,5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		run   func(t *testing.T) // as root
		stdin string
	}{
		{"create", nil, ""},
		{"passwd", nil, "correct horse\n"},
		{"a hit served as root", func(t *testing.T) {
			if a, stderr := in.cgi(t, 0, "GET", "/blog.png", "198.51.100.1", ""); a.status != 200 {
				t.Fatalf("root's hit: %d %s", a.status, stderr)
			}
		}, ""},
		{"a login served as root", func(t *testing.T) {
			if code, stderr := in.login(t, 0, "blog", "198.51.100.2"); code != 303 {
				t.Fatalf("root's login: %d %s", code, stderr)
			}
		}, ""},
		{"config", nil, ""},
		{"theme add", nil, ""},
		{"config theme", nil, ""},
		{"theme list", nil, ""},
		{"set", nil, ""},
		{"list", nil, ""},
		{"import", nil, ""},
		{"create site", nil, ""},
		{"pages", nil, ""},
		{"check", nil, ""},
		{"backup", nil, ""},
		{"costs", nil, ""},
		{"doctor", nil, ""},
		{"version", nil, ""},
		{"delete", nil, ""},
	}
	args := map[string][]string{
		"create":       {"create", "blog"},
		"passwd":       {"passwd", "blog"},
		"config":       {"config", "blog", "reload=30m"},
		"theme add":    {"theme", "add", "pix", pngFolder(t)},
		"config theme": {"config", "blog", "theme=pix"},
		"theme list":   {"theme", "list"},
		"set":          {"set", "blog", "100"},
		"list":         {"list"},
		"import":       {"import", "-name", "blog", csv},
		"create site":  {"create", "docs", "-site", "-hosts", "example.org"},
		"pages":        {"pages", "docs"},
		"check":        {"check"},
		"backup":       {"backup", filepath.Join(filepath.Dir(in.db), "backup.db")}, // beside it
		"costs":        {"costs"},
		"doctor":       {"doctor", "-max", "10s", "-socket", filepath.Join(in.top, "none.sock")},
		"version":      {"version"},
		"delete":       {"delete", "docs"},
	}
	for i, step := range steps {
		if step.run != nil {
			step.run(t)
		} else {
			out, stderr, code := in.as(t, 0, nil, step.stdin, args[step.name]...)
			if code != 0 && step.name != "doctor" { // doctor may find this machine slow
				t.Fatalf("sudo counter.cgi %s: exit %d\n%s%s", step.name, code, out, stderr)
			}
			// Files made as root are handed over: nothing to warn of.
			if strings.Contains(out+stderr, "warning") {
				t.Errorf("sudo counter.cgi %s warns: %s%s", step.name, out, stderr)
			}
		}
		if bad := in.foreign(t); len(bad) > 0 {
			t.Errorf("after %s: not www-data's: %v", step.name, bad)
		}
		if step.name == "create" {
			continue // nothing to hit yet but the counter itself
		}
		// A new visitor's view, then its reload: the visitor table works.
		addr := fmt.Sprintf("203.0.113.%d", i+1)
		before := in.count(t, "blog")
		for range 2 {
			if a, stderr := in.cgi(t, testenv.UIDWWWData, "GET", "/blog.png", addr, ""); a.status != 200 || stderr != "" {
				t.Errorf("after %s: www-data's hit: %d, log %q", step.name, a.status, stderr)
			}
		}
		if after := in.count(t, "blog"); after == before || fmt.Sprint(atoi(t, before)+1) != after {
			t.Errorf("after %s: a view and its reload took the count from %s to %s, want one more", step.name, before, after)
		}
		if step.name != "passwd" && !strings.HasPrefix(step.name, "a ") && i%3 != 0 {
			continue // a login every few steps: each costs a bcrypt
		}
		if code, stderr := in.login(t, testenv.UIDWWWData, "blog", fmt.Sprintf("198.51.100.%d", 10+i)); code != 303 {
			t.Errorf("after %s: www-data's login: %d, log %q", step.name, code, stderr)
		}
	}

	// A root-owned file planted where none should be: doctor, as
	// www-data, names it.
	planted := filepath.Join(in.run, "throttle-network")
	os.Remove(planted)
	if err := os.WriteFile(planted, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := in.as(t, testenv.UIDWWWData, nil, "", "doctor", "-max", "10s", "-socket", filepath.Join(in.top, "none.sock"))
	if code == 0 || !strings.Contains(out, "runtime file "+planted+" belongs to root, not www-data") || !strings.Contains(out, "sudo rm "+planted) {
		t.Errorf("doctor as www-data, exit %d, does not name %s with its fix:\n%s", code, planted, out)
	}
	// And the next hit as www-data makes it anew, saying so once.
	_, stderr := in.cgi(t, testenv.UIDWWWData, "POST", "/blog/login", "198.51.100.99", "password=wrong")
	if strings.Count(stderr, "made anew") != 1 || !strings.Contains(stderr, planted) {
		t.Errorf("a login as www-data over root's file logged %q, want one line saying it was made anew", stderr)
	}
	if bad := in.foreign(t); len(bad) > 0 {
		t.Errorf("at the end: not www-data's: %v", bad)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
