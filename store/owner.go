package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ServerUser is whom the database's files are for: the owner of the
// directory that holds path, as the install makes it for the web
// server's user; or, where that tells nothing (root's directory, or a
// shared one like /tmp), the owner of the database itself when it is
// neither root's nor a link. ok is false when neither tells.
func ServerUser(path string) (uid, gid int, ok bool) {
	if fi, err := os.Stat(filepath.Dir(path)); err == nil {
		if st, isUnix := fi.Sys().(*syscall.Stat_t); isUnix && st.Uid != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return int(st.Uid), int(st.Gid), true
		}
	}
	// Lstat: a link, whoever made it, tells nothing.
	if fi, err := os.Lstat(path); err == nil {
		if st, isUnix := fi.Sys().(*syscall.Stat_t); isUnix && st.Uid != 0 {
			return int(st.Uid), int(st.Gid), true
		}
	}
	return 0, 0, false
}

// handOver gives f, the database at db or a file beside it, to the web
// server's user when this process runs as root: an owner's sudo by habit
// must never leave a file that the web server cannot open. It does
// nothing for any other user, who could not, and for a file that is
// already the server's. f must have been opened so that no other user
// chose what it is (openChecked, or made anew with O_EXCL): the change
// goes through its descriptor, never its name, and only to a regular
// file that has no other name, which could be anyone's, anywhere.
func handOver(f *os.File, db string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid, ok := ServerUser(db)
	if !ok {
		return nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return &os.PathError{Op: "stat", Path: f.Name(), Err: err}
	}
	if int(st.Uid) == uid && int(st.Gid) == gid {
		return nil
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return &refusal{f.Name(), fmt.Sprintf("is not a regular file: not given to uid %d", uid)}
	case st.Nlink != 1:
		return &refusal{f.Name(), fmt.Sprintf("belongs to uid %d and has another name too (a hard link): not given to uid %d", st.Uid, uid)}
	}
	if err := syscall.Fchown(int(f.Fd()), uid, gid); err != nil {
		return &os.PathError{Op: "chown", Path: f.Name(), Err: fmt.Errorf("give it to uid %d: %w", uid, err)}
	}
	return nil
}

// openChecked is openFile for the database and the files beside it. Run
// as root, it opens them as openAsRoot does, so that no other user
// chooses what root opens and hands over; anyone else opens them as
// before: they could only reach what they may reach anyway.
func openChecked(name string, flag int, perm os.FileMode) (*os.File, error) {
	if os.Geteuid() != 0 {
		return openFile(name, flag, perm)
	}
	return openAsRoot(name, flag, perm)
}

// Fixed says what FixOwner changed.
type Fixed struct {
	Owner    bool // given to UID, GID
	UID, GID int
	Mode     bool // made fileMode, from Was
	Was      os.FileMode
}

// FixOwner gives the database at path to the web server's user
// (ServerUser), private to it (mode 0600), as the install wants it. It is
// the install's repair of a file root made by hand or an older release
// left, run as root in a directory the web server's user may write in:
// so it opens the file as Open does under root (openAsRoot: no link of
// another user's, a regular file on its directory's disk), and changes
// owner and mode through that descriptor, never by name, and only on a
// file without another name. A missing file is no error: nothing to fix.
func FixOwner(path string) (Fixed, error) {
	var fixed Fixed
	if os.Geteuid() != 0 {
		return fixed, fmt.Errorf("store: fix owner of %s: only root may", path)
	}
	f, err := openAsRoot(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return fixed, nil
	}
	if err != nil {
		return fixed, fmt.Errorf("store: fix owner: %w", err)
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return fixed, fmt.Errorf("store: fix owner: %w", &os.PathError{Op: "stat", Path: path, Err: err})
	}
	if uid, gid, ok := ServerUser(path); ok && (int(st.Uid) != uid || int(st.Gid) != gid) {
		if err := handOver(f, path); err != nil {
			return fixed, fmt.Errorf("store: fix owner: %w", err)
		}
		fixed.Owner, fixed.UID, fixed.GID = true, uid, gid
	}
	if mode := os.FileMode(st.Mode & 0o7777); mode != fileMode {
		if st.Nlink != 1 {
			return fixed, fmt.Errorf("store: fix owner: %w", &refusal{path, fmt.Sprintf("has another name too (a hard link): its mode %04o is left alone", mode)})
		}
		if err := syscall.Fchmod(int(f.Fd()), fileMode); err != nil {
			return fixed, fmt.Errorf("store: fix owner: %w", &os.PathError{Op: "chmod", Path: path, Err: err})
		}
		fixed.Mode, fixed.Was = true, mode
	}
	return fixed, nil
}
