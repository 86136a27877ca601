package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"hitcounter/store/kv"
	"hitcounter/store/kv/boltkv"
)

// ErrBackupOverLive reports a backup that would overwrite the live database
// or its lock file.
var ErrBackupOverLive = errors.New("the backup would overwrite the live database")

// Backup writes a consistent copy of the database at path to dst, waiting
// at most wait for the lock. The copy is one read transaction's view
// (bbolt's Tx.WriteTo), so hits may go on meanwhile. It is written to a
// temporary file beside dst, synced, and renamed over dst, so dst is
// either the old file or the whole new copy, never half of one. It returns
// the number of bytes written.
func Backup(path, dst string, wait time.Duration) (int64, error) {
	return BackupWith(path, dst, Options{Wait: wait})
}

// BackupWith is Backup with the options of the open: its wait, and the
// Remote that opens a cluster's store. A cluster's backup is a file, the
// same as one Pi's: what copy back would write, read in one read
// transaction of the cluster.
func BackupWith(path, dst string, opts Options) (int64, error) {
	if err := notLive(path, dst); err != nil {
		return 0, fmt.Errorf("store: backup to %s: %w", dst, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("store: backup: %w", err)
	}
	// A copy made with sudo beside the database is the web server's
	// user's, as everything there is (handOver); elsewhere, root's own.
	if err := handOver(tmp, dst); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return 0, fmt.Errorf("store: backup: %w", err)
	}
	n, err := copyTo(path, tmp, opts)
	// The slow part, the sync, runs after the database is closed, so the
	// hits wait only for the copy into memory.
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return 0, fmt.Errorf("store: backup to %s: %w", dst, err)
	}
	syncDir(filepath.Dir(dst))
	return n, nil
}

func copyTo(path string, f *os.File, opts Options) (int64, error) {
	db, err := Open(path, Options{ReadOnly: true, Wait: opts.Wait, Remote: opts.Remote})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	err = db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		b, ok := boltkv.Unwrap(tx)
		if !ok {
			var sum [sha256.Size]byte
			if err := writeFile(tx, f.Name(), &sum); err != nil {
				return err
			}
			fi, err := f.Stat()
			n = fi.Size()
			return err
		}
		n, err = b.WriteTo(f)
		return err
	})
	return n, err
}

// notLive refuses a dst that is the database or its side lock file.
func notLive(path, dst string) error {
	d, err := os.Stat(dst)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if d.IsDir() {
		return fmt.Errorf("%s is a directory", dst)
	}
	for _, p := range []string{path, path + ".lock"} {
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, d) {
			return ErrBackupOverLive
		}
	}
	return nil
}

// syncDir makes a rename in dir durable; a failure only weakens that.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
