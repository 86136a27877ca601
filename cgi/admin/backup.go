package admin

import (
	"fmt"

	"hitcounter/store"
)

// runBackup writes a consistent copy of the database to FILE while hits go
// on, then checks the copy as the check command would.
func runBackup(e *cmdEnv, args []string) error {
	dst := args[0]
	if _, err := store.Backup(e.cfg.DB, dst, e.cfg.Wait); err != nil {
		return err
	}
	r, err := store.Check(dst, e.cfg.Wait)
	if err != nil {
		return fmt.Errorf("backup written, but its check failed: %w", err)
	}
	fmt.Fprintf(e.stdout, "backup of %s written to %s and checked: %d counter(s), %d view(s) in all, %d bytes\n",
		e.cfg.DB, dst, r.Counters, r.Hits, r.Size)
	return nil
}
