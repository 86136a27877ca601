package rundir

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// dbOwner is whom a root process makes files for: the owner of the
// database, or, before it exists, of the directory meant to hold it;
// root itself when neither can be looked at. A database that is a link
// tells nothing: whoever may write in its directory could point it at a
// file of anyone's, and have the runtime files given to them.
func dbOwner(db string) owner {
	if fi, err := os.Lstat(db); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			return owner{int(st.Uid), int(st.Gid)}
		}
	}
	if fi, err := os.Stat(filepath.Dir(db)); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			return owner{int(st.Uid), int(st.Gid)}
		}
	}
	return owner{0, 0}
}

// userName is user uid's name, or its number: for messages only.
func userName(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return id
}

// groupName is group gid's name, or its number.
func groupName(gid int) string {
	id := strconv.Itoa(gid)
	if g, err := user.LookupGroupId(id); err == nil {
		return g.Name
	}
	return id
}
