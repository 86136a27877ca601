// Package health checks the files the counter works with, the database,
// its side lock, what lies beside it and the runtime directory, as the web
// server's user sees them. The doctor command prints its findings among
// its own; the owner's overview shows the problems. No check needs root,
// times a password hash or opens the database.
package health

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"hitcounter/cgi/rundir"
	"hitcounter/store"
)

// Line is one finding: a fact, or a problem the owner should fix.
type Line struct {
	Problem bool
	Text    string
}

// Report is the findings of the checks, in the order they were made.
type Report struct {
	Lines []Line
}

func (r *Report) info(format string, args ...any) {
	r.Lines = append(r.Lines, Line{false, fmt.Sprintf(format, args...)})
}

func (r *Report) problem(format string, args ...any) {
	r.Lines = append(r.Lines, Line{true, fmt.Sprintf(format, args...)})
}

// Problems are the report's problems alone.
func (r *Report) Problems() []string {
	var p []string
	for _, l := range r.Lines {
		if l.Problem {
			p = append(p, l.Text)
		}
	}
	return p
}

// Database checks the database at path: its mode and owner, its side lock
// and the other files beside it. It reports whether the file is there.
func (r *Report) Database(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		r.problem("database %s: %v", path, err)
		return false
	}
	r.info("database %s: %s", path, describe(fi))
	if fi.Mode().Perm()&0o004 != 0 {
		r.problem("database %s is readable by every user: chmod o-rwx it", path)
	}
	if dir, err := os.Stat(filepath.Dir(path)); err == nil && owner(dir) != owner(fi) {
		r.problem("database %s belongs to %s but its directory to %s: the web server's user must own both", path, owner(fi), owner(dir))
	}
	r.lockFile(store.LockPath(path), fi)
	r.besideDatabase(path, fi)
	return true
}

// lockFile checks the side file that queues processes for the database:
// one they cannot open makes every open fall back to bbolt's own lock,
// which polls, and hits then wait longer than they need to.
func (r *Report) lockFile(lock string, db os.FileInfo) {
	fi, err := os.Stat(lock)
	if errors.Is(err, os.ErrNotExist) {
		return // made by the first open, owned as the database is
	}
	if err != nil {
		r.problem("lock file %s: %v", lock, err)
		return
	}
	r.info("lock file %s: %s", lock, describe(fi))
	if os.SameFile(fi, db) {
		r.problem("lock file %s is the database itself (a link to it): every hit would wait, then fail as busy; remove %s, it is made again", lock, lock)
		return
	}
	if owner(fi) != owner(db) {
		r.problem("lock file %s belongs to %s but the database to %s: remove it, it is made again", lock, owner(fi), owner(db))
	}
	// Never through a link, nor blocking on a FIFO: run as root, doctor
	// would otherwise open whatever another user put there.
	fd, err := syscall.Open(lock, syscall.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		r.problem("lock file %s cannot be opened by this user: %v", lock, &os.PathError{Op: "open", Path: lock, Err: err})
		return
	}
	syscall.Close(fd)
}

// RunDir checks the runtime directory as every hit checks it (package
// rundir), with write that this user may make files in it, and then
// every file in it: each must be a plain file of its own, private, and
// the database owner's, or the hits and logins of that user cannot use
// it.
func (r *Report) RunDir(dir, db string, write bool) {
	fi, err := os.Lstat(dir)
	if err != nil {
		r.problem("runtime directory %s: %v (logins and telling reloads apart need it; /run is emptied at every boot, and the install has it made again: systemd's tmpfiles.d/counter.conf, or /etc/init.d/counter-rundir); make it now with: %s", dir, err, makeRunDir(dir, db))
		return
	}
	r.info("runtime directory %s: %s", dir, describe(fi))
	run := rundir.New(dir, db, nil)
	defer run.Close()
	if err := run.Check(false); err != nil {
		r.problem("%v", err)
		return
	}
	if write {
		f, err := os.CreateTemp(dir, ".doctor-*")
		if err != nil {
			r.problem("runtime directory %s is not writable by this user: %v", dir, err)
			return
		}
		f.Close()
		os.Remove(f.Name())
	}
	names, err := run.Names()
	if err != nil {
		r.problem("%v", err)
		return
	}
	want, ok := OwnerUID(fi)
	if dbInfo, err := os.Stat(db); err == nil {
		want, ok = OwnerUID(dbInfo)
		// Run as root, doctor may write where the web server's user may
		// not: the directory must be the database owner's.
		if have, _ := OwnerUID(fi); ok && have != want {
			r.problem("runtime directory %s belongs to %s but the database to %s: hits cannot make files in it; sudo chown %s: %s",
				dir, owner(fi), UserName(want), UserName(want), dir)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if what := unfitFile(path, want, ok); what != "" {
			r.problem("runtime file %s %s: hits and logins cannot use it; remove it, it is made again: sudo rm %s", path, what, path)
		}
	}
}

// besideDatabase checks every other file in the database's directory:
// each must be a plain file of the database owner's, not readable by
// every user. A link there is one root would follow.
func (r *Report) besideDatabase(db string, dbInfo os.FileInfo) {
	dir := filepath.Dir(db)
	entries, err := os.ReadDir(dir)
	if err != nil {
		r.problem("database directory %s: %v", dir, err)
		return
	}
	want, ok := OwnerUID(dbInfo)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if path == db || path == store.LockPath(db) || e.IsDir() || e.Name() == "fastcgi.sock" {
			continue // checked on their own, or not a file
		}
		if what := unfitFile(path, want, ok); what != "" {
			r.problem("%s, beside the database, %s: sudo chown %s: %s, or remove it", path, what, UserName(want), path)
		}
	}
}

// unfitFile says what is wrong with the file at path, which should be a
// plain, private file of its own, of user want (if known), and one this
// user may open; "" if nothing is.
func unfitFile(path string, want uint32, known bool) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "cannot be looked at: " + err.Error()
	}
	st, isUnix := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "is a link (never followed)"
	case fi.Mode()&fs.ModeSocket != 0:
		return "" // a FastCGI socket someone keeps here
	case !fi.Mode().IsRegular():
		return "is not a regular file"
	case isUnix && st.Nlink > 1:
		return "has another name too (a hard link)"
	case known && isUnix && st.Uid != want:
		return fmt.Sprintf("belongs to %s, not %s", owner(fi), UserName(want))
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Sprintf("has mode %s: others may read it", fi.Mode().Perm())
	}
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Sprintf("(%s) cannot be opened by this user: %v", describe(fi), err)
	}
	syscall.Close(fd)
	return ""
}

func describe(fi os.FileInfo) string {
	return fmt.Sprintf("owner %s, mode %s", owner(fi), fi.Mode().Perm())
}

// makeRunDir is the command that makes the runtime directory dir for the
// web server's user, whose the database is.
func makeRunDir(dir, db string) string {
	uid, gid, ok := store.ServerUser(db)
	if !ok {
		uid, gid = os.Getuid(), os.Getgid()
	}
	group := strconv.Itoa(gid)
	if g, err := user.LookupGroupId(group); err == nil {
		group = g.Name
	}
	return fmt.Sprintf("sudo install -d -m 0750 -o %s -g %s %s", UserName(uint32(uid)), group, dir)
}

func owner(fi os.FileInfo) string {
	uid, ok := OwnerUID(fi)
	if !ok {
		return "?"
	}
	return UserName(uid)
}

// OwnerUID returns the user id that owns fi.
func OwnerUID(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}

// UserName returns the name of user uid, or its number.
func UserName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return id
}
