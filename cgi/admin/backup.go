package admin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"hitcounter/store"
)

// BackupDir is the folder the install makes for backups, the web server's
// user's: /var/backups itself is root's alone.
const BackupDir = "/var/backups/counter"

// runBackup writes a consistent copy of the database to FILE while hits go
// on, then checks the copy as the check command would.
func runBackup(e *cmdEnv, args []string) error {
	dst := args[0]
	if _, err := store.BackupWith(e.cfg.DB, dst, store.Options{Wait: e.cfg.Wait, Remote: e.cfg.Remote}); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%w (back up into a folder this user may write in, such as %s, which the install makes for the web server's user)", err, BackupDir)
		}
		return err
	}
	// The check takes the copy's side lock, as every open does; nobody
	// else uses a backup's, so the one it made goes with it, and the
	// folder holds the backup alone.
	lock := store.LockPath(dst)
	_, lerr := os.Lstat(lock)
	r, err := store.Check(dst, e.cfg.Wait)
	if errors.Is(lerr, fs.ErrNotExist) {
		os.Remove(lock)
	}
	if err != nil {
		return fmt.Errorf("backup written, but its check failed: %w", err)
	}
	// Noted in the live file for the overview and the report, which warn
	// when backups stop; a file that cannot take the note (full, say)
	// keeps the backup all the same.
	if err := e.update(false, func(db *store.DB) error { return db.RecordBackup(e.cfg.Now()) }); err != nil {
		fmt.Fprintf(e.stderr, "counter: backup written and checked, but its time not noted: %v\n", err)
	}
	fmt.Fprintf(e.stdout, "backup of %s written to %s and checked: %d counter(s), %d view(s) in all, %d bytes\n",
		e.cfg.DB, filepath.Clean(dst), r.Counters, r.Hits, r.Size)
	return nil
}
