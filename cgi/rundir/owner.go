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
// root itself when neither can be looked at.
func dbOwner(db string) owner {
	for _, p := range []string{db, filepath.Dir(db)} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				return owner{int(st.Uid), int(st.Gid)}
			}
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
