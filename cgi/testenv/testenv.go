// Package testenv holds what the counter's tests need of the machine they
// run on: a tool or a privilege that, when missing, skips a test, except
// under CI=true, where it fails it, so that a missing server or tool is
// never taken for a pass. It is imported only by tests.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Users of Debian's /etc/passwd, and one that has no name.
const (
	UIDRoot    = 0
	UIDWWWData = 33
	UIDNobody  = 65534
	UIDNoName  = 4242
)

// Need skips t for want of what, or fails it under CI=true.
func Need(t testing.TB, what string) {
	t.Helper()
	Skip(t, "needs "+what)
}

// Skip skips t for the reason why, a part of this machine that is
// missing, or fails it under CI=true: a test of real parts must never
// pass by not running.
func Skip(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + "; CI=true, so this test fails instead of skipping")
	}
	t.Skip(why)
}

// NeedRoot skips a test that must chown files to other users.
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		Need(t, "root, to give files to other users")
	}
}

// OwnedDir makes a directory that belongs to uid, with mode perm.
func OwnedDir(t testing.TB, uid int, perm os.FileMode) string {
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

// OwnedFile makes a file counter.db in dir that belongs to uid and
// returns its path.
func OwnedFile(t testing.TB, dir string, uid int) string {
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
