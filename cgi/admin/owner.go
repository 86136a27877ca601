package admin

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"hitcounter/cgi/health"
	"hitcounter/store"
)

// ownerWarning returns a one-line warning when an admin command run with
// the effective user id euid would leave the database at path, or the
// .lock file beside it, unusable by the web server, and "" when it would
// not. The command still runs: the warning only says how to run it.
//
// The web server's user is whoever owns the database's directory, as the
// install makes it, or else the database's own owner when not root
// (store.ServerUser).
//   - Run as root, a command hands every file it makes to that user
//     (store.Open), so there is nothing to warn of, unless that user is
//     unknown and the database is being made: it would be root's alone.
//   - Run as anyone else, a command may make files the web server cannot
//     open: a new database, or its .lock (the side lock then never works).
func ownerWarning(path string, euid int) string {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err != nil {
		return "" // the command fails, and says why
	}
	uid, _, known := store.ServerUser(path)
	server := uint32(uid)
	_, err := os.Stat(path)
	exists := err == nil
	switch {
	case known && euid != 0 && uint32(euid) != server:
		name := userName(server)
		return fmt.Sprintf("warning: running as %s, but %s belongs to %s: files made now (the database, its .lock) may be unusable by the web server; run as: sudo -u %s counter ...",
			userName(uint32(euid)), dir, name, sudoUser(server, name))
	case !known && euid == 0 && !exists:
		return fmt.Sprintf("warning: creating %s as root: a web server cannot open a file only root may read; make its directory for the web server's user (README, step 2) and run as: sudo -u www-data counter ...", path)
	}
	return ""
}

// userName returns the name of user uid, or its number.
func userName(uid uint32) string { return health.UserName(uid) }

// sudoUser is how sudo -u names user uid: by name, or as #uid.
func sudoUser(uid uint32, name string) string {
	if name == strconv.FormatUint(uint64(uid), 10) {
		return "#" + name
	}
	return name
}
