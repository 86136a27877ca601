//go:build !bboltlockonly

package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

const uidWWWData = 33 // Debian's

// serverDir makes a directory of the web server's user, as the install
// does, or skips a test that is not run as root.
func serverDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs root, to give files to other users; CI=true, so this fails")
		}
		t.Skip("needs root, to give files to other users")
	}
	top := t.TempDir()
	os.Chmod(top, 0o755)
	dir := filepath.Join(top, "counter")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, uidWWWData, uidWWWData); err != nil {
		t.Fatal(err)
	}
	return dir
}

func ownerOf(t *testing.T, path string) uint32 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Uid
}

// TestRootMakesTheServersFiles: a database made, or opened, by root in
// the web server's directory is the web server's user's, and so is its
// .lock; a .lock that root left behind is handed over.
func TestRootMakesTheServersFiles(t *testing.T) {
	dir := serverDir(t)
	db := filepath.Join(dir, "counter.db")
	with(t, db, Options{Create: true}, func(d *DB) {
		if err := d.Create("blog", 0, time.Now()); err != nil {
			t.Fatal(err)
		}
	})
	for _, p := range []string{db, LockPath(db)} {
		if uid := ownerOf(t, p); uid != uidWWWData {
			t.Errorf("%s belongs to uid %d, want www-data's", filepath.Base(p), uid)
		}
	}
	os.Remove(LockPath(db))
	os.WriteFile(LockPath(db), nil, 0o600) // root's, as an older release left it
	with(t, db, Options{ReadOnly: true}, func(*DB) {})
	if uid := ownerOf(t, LockPath(db)); uid != uidWWWData {
		t.Errorf("root's .lock still belongs to uid %d after an open as root", uid)
	}
}

// TestLinksBesideTheDatabaseAreNotFollowed: a .lock that is a link is
// neither followed nor written through, and root follows no database
// link that another user made.
func TestLinksBesideTheDatabaseAreNotFollowed(t *testing.T) {
	dir := serverDir(t)
	db := filepath.Join(dir, "counter.db")
	with(t, db, Options{Create: true}, func(d *DB) { d.Create("blog", 0, time.Now()) })
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	os.Remove(LockPath(db))
	os.Symlink(victim+".new", LockPath(db))
	with(t, db, Options{}, func(d *DB) {
		if _, err := d.Hit("blog", time.Now(), ""); err != nil {
			t.Error(err)
		}
	})
	if _, err := os.Lstat(victim + ".new"); err == nil {
		t.Errorf("the .lock link's target was made")
	}
	if uid := ownerOf(t, victim); uid != 0 {
		t.Errorf("the file behind the link was handed to uid %d", uid)
	}

	link := filepath.Join(dir, "linked.db")
	os.Symlink(victim, link)
	os.Lchown(link, uidWWWData, uidWWWData)
	if _, err := Open(link, Options{Create: true, Wait: time.Second}); err == nil {
		t.Errorf("root opened a database link made by www-data")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the file behind the database link holds %q", b)
	}
}
