package admin

import (
	"fmt"

	"hitcounter/store"
)

// runCheck reports the state of the database file (or of FILE, a backup
// say) without changing it, and fails when the file is missing or damaged.
func runCheck(e *cmdEnv, args []string) error {
	path := e.cfg.DB
	if len(args) > 0 {
		path = args[0]
	}
	r, err := store.CheckWith(path, store.Options{Wait: e.cfg.Wait, Remote: e.cfg.Remote})
	if err != nil {
		return err
	}
	size := fmt.Sprintf(", %d bytes (%d in use)", r.Size, r.InUse)
	if store.IsRemote(path) {
		size = "" // no file of its own: doctor says the members' files
	}
	fmt.Fprintf(e.stdout, "database %s: ok, %d counter(s), %d view(s) in all, schema %d%s, %d digit set(s)\n",
		path, r.Counters, r.Hits, r.Schema, size, r.DigitSets)
	return nil
}
