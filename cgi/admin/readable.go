package admin

import (
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// runner is the person who ran a command: the user who called sudo when
// it was run with sudo (typically as root or www-data), else the real
// user.
type runner struct{ uid, gid uint32 }

// runnerOf is the person who ran the command in an environment with
// getenv. known is false when sudo's variables are there but are no ids.
func runnerOf(getenv func(string) string) (r runner, known bool) {
	u, g := getenv("SUDO_UID"), getenv("SUDO_GID")
	if u == "" && g == "" {
		return runner{uint32(os.Getuid()), uint32(os.Getgid())}, true
	}
	uid, uerr := strconv.ParseUint(u, 10, 32)
	gid, gerr := strconv.ParseUint(g, 10, 32)
	return runner{uint32(uid), uint32(gid)}, uerr == nil && gerr == nil
}

// mayRead reports whether r may read a file of mode, owned by uid and
// gid, by its permission bits as the kernel checks them: the owner's when
// r owns it, else the group's when r's group is its group, else the
// others'; root reads every file. An import of a file its runner may not
// read quotes none of it in its errors: the command runs as root or
// www-data, and could otherwise show a piece of any file to whoever may
// run it with sudo.
//
// It looks at the file's own bits alone: not at r's other groups (sudo
// passes none), where it may say no when the kernel would let r read,
// nor at the folders above the file, where it may say yes to a file in a
// folder that r may not enter.
func mayRead(r runner, mode fs.FileMode, uid, gid uint32) bool {
	switch {
	case r.uid == 0:
		return true
	case r.uid == uid:
		return mode&0o400 != 0
	case r.gid == gid:
		return mode&0o040 != 0
	}
	return mode&0o004 != 0
}

// runnerMayRead reports whether the person who ran the command may read
// the open file f.
func (e *cmdEnv) runnerMayRead(f *os.File) bool {
	r, known := runnerOf(e.getenv)
	fi, err := f.Stat()
	if !known || err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && mayRead(r, fi.Mode().Perm(), st.Uid, st.Gid)
}
