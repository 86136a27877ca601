package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ServerUser is whom the database's files are for: the owner of the
// directory that holds path, as the install makes it for the web
// server's user; or, where that tells nothing (root's directory, or a
// shared one like /tmp), the owner of the database itself when it is not
// root's. ok is false when neither tells.
func ServerUser(path string) (uid, gid int, ok bool) {
	if fi, err := os.Stat(filepath.Dir(path)); err == nil {
		if st, isUnix := fi.Sys().(*syscall.Stat_t); isUnix && st.Uid != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return int(st.Uid), int(st.Gid), true
		}
	}
	if fi, err := os.Stat(path); err == nil {
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
// already the server's.
func handOver(f *os.File, db string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid, ok := ServerUser(db)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if st, isUnix := fi.Sys().(*syscall.Stat_t); isUnix && int(st.Uid) == uid && int(st.Gid) == gid {
		return nil
	}
	if err := f.Chown(uid, gid); err != nil {
		return fmt.Errorf("give %s to uid %d: %w", f.Name(), uid, err)
	}
	return nil
}

// refuseForeignLink refuses, to root, a database path that is a link
// another user made: root would otherwise open, and maybe write, whatever
// the web server's user pointed it at. A link of root's own is followed.
func refuseForeignLink(path string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	if st, isUnix := fi.Sys().(*syscall.Stat_t); isUnix && st.Uid != 0 {
		return fmt.Errorf("%s is a link made by uid %d: root does not follow it (point COUNTER_DB at the file itself)", path, st.Uid)
	}
	return nil
}
