package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Users of Debian's /etc/passwd, and one that has no name.
const (
	uidRoot    = 0
	uidWWWData = 33
	uidNobody  = 65534
	uidNoName  = 4242
)

// needRoot skips a test that must chown files to other users.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		missingTool(t, "root, to give files to other users")
	}
}

// ownedDir makes a directory that belongs to uid, with mode perm.
func ownedDir(t *testing.T, uid int, perm os.FileMode) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "db")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, uid, uid); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ownedFile makes a file in dir that belongs to uid and returns its path.
func ownedFile(t *testing.T, dir string, uid int) string {
	t.Helper()
	path := filepath.Join(dir, "counter.db")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOwnerWarning(t *testing.T) {
	needRoot(t)
	www := ownedDir(t, uidWWWData, 0o750)
	wwwFile := ownedFile(t, ownedDir(t, uidWWWData, 0o750), uidWWWData)
	rootDir := ownedDir(t, uidRoot, 0o700)
	rootFile := ownedFile(t, ownedDir(t, uidRoot, 0o700), uidRoot)
	sticky := ownedDir(t, uidRoot, 0o777|os.ModeSticky) // like /tmp
	stickyWWWFile := ownedFile(t, ownedDir(t, uidRoot, 0o777|os.ModeSticky), uidWWWData)
	noName := ownedDir(t, uidNoName, 0o750)
	tests := []struct {
		name string
		path string
		euid int
		want string // "" for no warning
	}{
		{"root creating for www-data", filepath.Join(www, "counter.db"), uidRoot, "running as root, but " + www + " belongs to www-data: files made now (the database, its .lock) may be unusable by the web server; run as: sudo -u www-data counter.cgi ..."},
		{"www-data creating its own", filepath.Join(www, "counter.db"), uidWWWData, ""},
		{"root on www-data's", wwwFile, uidRoot, "sudo -u www-data"},
		{"www-data on its own", wwwFile, uidWWWData, ""},
		{"nobody on www-data's", wwwFile, uidNobody, "running as nobody, but"},
		{"root creating in root's", filepath.Join(rootDir, "counter.db"), uidRoot, "creating " + filepath.Join(rootDir, "counter.db") + " as root: a web server cannot open a file only root may read"},
		{"root on root's", rootFile, uidRoot, ""},
		{"root creating in a shared one", filepath.Join(sticky, "counter.db"), uidRoot, "as root: a web server cannot open"},
		{"a user creating in a shared one", filepath.Join(sticky, "counter.db"), 1000, ""},
		{"root on www-data's in a shared one", stickyWWWFile, uidRoot, "sudo -u www-data"},
		{"www-data on its own in a shared one", stickyWWWFile, uidWWWData, ""},
		{"an owner without a name", filepath.Join(noName, "counter.db"), uidRoot, "belongs to 4242: files made now (the database, its .lock) may be unusable by the web server; run as: sudo -u #4242 counter.cgi"},
		{"no directory", filepath.Join(www, "missing", "counter.db"), uidRoot, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ownerWarning(tc.path, tc.euid)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) || strings.Contains(got, "\n") {
				t.Errorf("ownerWarning(%s, %d) = %q, want one line containing %q", tc.path, tc.euid, got, tc.want)
			}
		})
	}
}

// TestAdminWarnsOnceAndStillRuns runs the binary as root on a database
// whose directory belongs to www-data: each command warns once, on
// stderr, and does its work.
func TestAdminWarnsOnceAndStillRuns(t *testing.T) {
	needRoot(t)
	db := filepath.Join(ownedDir(t, uidWWWData, 0o750), "counter.db")
	tests := []struct {
		args []string
		out  string
	}{
		{[]string{"create", "blog"}, "created blog at 0"},
		{[]string{"set", "blog", "7"}, ""},
		{[]string{"passwd", "-clear", "blog"}, "public now"}, // opens the file twice
		{[]string{"list"}, "blog  7"},
	}
	for _, tc := range tests {
		out, err := adminRun(t, db, tc.args...)
		if err != nil || !strings.Contains(out, tc.out) {
			t.Errorf("counter.cgi %s: %v, output %q; want it to work, saying %q", strings.Join(tc.args, " "), err, out, tc.out)
		}
		if n := strings.Count(out, "counter: warning: running as root"); n != 1 {
			t.Errorf("counter.cgi %s: %d warnings in %q, want 1", strings.Join(tc.args, " "), n, out)
		}
	}
}
