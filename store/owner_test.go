//go:build !bboltlockonly

package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

const uidWWWData = 33 // Debian's

// serverDir makes a directory of the web server's user, as the install
// does, or skips a test that is not run as root.
func serverDir(t *testing.T) string {
	t.Helper()
	testenv.NeedRoot(t)
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
	if _, err := testOpen(link, Options{Create: true, Wait: time.Second}); err == nil {
		t.Errorf("root opened a database link made by www-data")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the file behind the database link holds %q", b)
	}
}

// TestRootOpensOnlyWhatItChecked: run as root in the web server's
// directory, Open looks at what it opened through its descriptor. A link
// of root's own is followed; a link of www-data's, a FIFO, and a hard
// link to a root file are refused with a line that says why, at once,
// and nothing behind them changes owner.
func TestRootOpensOnlyWhatItChecked(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, db, victim string)
		want  string // in the error; "" for an open that works
	}{
		{"a link of root's own", func(t *testing.T, db, _ string) {
			real := filepath.Join(t.TempDir(), "real.db")
			with(t, real, Options{Create: true}, func(d *DB) { d.Create("blog", 0, time.Now()) })
			if err := os.Symlink(real, db); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"a link of www-data's", func(t *testing.T, db, victim string) {
			os.Symlink(victim, db)
			os.Lchown(db, uidWWWData, uidWWWData)
		}, "is a link made by uid 33: root does not follow it"},
		{"a FIFO", func(t *testing.T, db, _ string) {
			if err := syscall.Mkfifo(db, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is not a regular file: root does not use it"},
		{"a hard link to a root file", func(t *testing.T, db, victim string) {
			if err := os.Link(victim, db); err != nil {
				t.Fatal(err)
			}
		}, "belongs to uid 0 and has another name too (a hard link): not given to uid 33"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := serverDir(t)
			victim := filepath.Join(dir, "victim") // root's, where a hard link may reach it
			if err := os.WriteFile(victim, []byte("root's own"), 0o600); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, "counter.db")
			tc.plant(t, db, victim)
			start := time.Now()
			d, err := testOpen(db, Options{Create: true, Wait: time.Second}) // as create does
			if err == nil {
				d.Close()
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Open = %v, want it open", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Open = %v, want %q", err, tc.want)
			case errors.Is(err, ErrDamaged):
				t.Errorf("Open = %v: a refusal, not damage", err)
			}
			if took := time.Since(start); took > 500*time.Millisecond {
				t.Errorf("took %v, want at once", took)
			}
			if uid := ownerOf(t, victim); uid != 0 {
				t.Errorf("the victim now belongs to uid %d", uid)
			}
			if b, _ := os.ReadFile(victim); string(b) != "root's own" {
				t.Errorf("the victim now holds %q", b)
			}
		})
	}
}
