package admin

import (
	"fmt"
	"os/user"
	"strconv"

	"hitcounter/store"
)

// fixOwnerCommand is install.sh's repair of the database's owner and mode,
// left out of the usage: the owner never needs it, and the shell cannot
// do it safely. chmod and chown by name follow whatever link the web
// server's user put in its own directory; this goes through a descriptor
// that root opened without following one (store.FixOwner). It prints one
// line a change, which install.sh passes on.
func fixOwnerCommand() command {
	return command{"", 0, 0, noFlags, func(e *cmdEnv, _ []string) error {
		fixed, err := store.FixOwner(e.cfg.DB)
		if err != nil {
			return err
		}
		if fixed.Owner {
			fmt.Fprintf(e.stdout, "chown %s:%s %s\n", userName(uint32(fixed.UID)), groupName(fixed.GID), e.cfg.DB)
		}
		if fixed.Mode {
			fmt.Fprintf(e.stdout, "chmod 0600 %s (was %04o)\n", e.cfg.DB, uint32(fixed.Was))
		}
		return nil
	}}
}

// groupName returns the name of group gid, or its number.
func groupName(gid int) string {
	id := strconv.Itoa(gid)
	if g, err := user.LookupGroupId(id); err == nil {
		return g.Name
	}
	return id
}
