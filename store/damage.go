package store

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/store/kv"
)

// ErrDamaged reports a file that bbolt cannot read as a database: not a
// bbolt file, cut short, or with pages that point nowhere. The file is
// left exactly as it was: nothing here repairs or replaces it.
var ErrDamaged = errors.New("database file damaged")

// catchDamage runs fn, turning a panic raised by bbolt's own code, or a
// memory fault reading the mapped file, into ErrDamaged. bbolt trusts its
// pages: a corrupted one can make it panic, or read outside the mapped
// file, which the runtime would otherwise treat as a fatal fault. Any
// other panic is a bug, not damage: it goes on up as it was, for the
// web's recovery to answer 500 and log where it happened. A transaction
// that panics is rolled back by bbolt itself, so nothing is written.
func catchDamage(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			if !isDamage(v) {
				panic(v)
			}
			err = fmt.Errorf("%w: %v", ErrDamaged, v)
		}
	}()
	return fn()
}

// isDamage reports whether panic v, being recovered by the caller's
// deferred function, is bbolt's on a damaged file: a memory fault (a read
// past the mapped file, in bbolt or in a decoder reading a value it
// returned), or a panic whose nearest frame outside the runtime is in
// bbolt.
func isDamage(v any) bool {
	if _, fault := v.(interface {
		runtime.Error
		Addr() uintptr
	}); fault {
		return true
	}
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic" || strings.HasPrefix(f.Function, "runtime.panic") || f.Function == "runtime.goPanicIndex":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return strings.HasPrefix(f.Function, "go.etcd.io/bbolt")
		}
		if !more {
			return false
		}
	}
}

// update runs fn in one write transaction, as write does, after folding
// the today bucket's rows into the counters' history (foldToday): what
// changes or replaces the history (settings, imports, merges, deletions)
// finds it whole.
func (db *DB) update(fn func(kv.Tx) error) error {
	return db.write(func(tx kv.Tx) error {
		if err := foldToday(tx); err != nil {
			return err
		}
		return fn(tx)
	})
}

// write runs fn in one write transaction, with damage caught, and tells
// db.committed how long the commit took, once bbolt is done. Hits, and
// writes that leave the counters alone, use it and fold nothing.
func (db *DB) write(fn func(kv.Tx) error) error {
	if db.readOnly {
		return fmt.Errorf("store: %w", kv.ErrTxNotWritable)
	}
	if db.committed == nil {
		return db.named(catchDamage(func() error { return db.eng.Update(fn) }))
	}
	var commit time.Time
	err := catchDamage(func() error {
		return db.eng.Update(func(tx kv.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			// The engine commits as soon as fn returns nil.
			commit = time.Now()
			return nil
		})
	})
	if err == nil && !commit.IsZero() {
		db.committed(time.Since(commit))
	}
	return db.named(err)
}

// view runs fn in one read transaction, with damage caught.
func (db *DB) view(fn func(kv.Tx) error) error {
	return db.named(catchDamage(func() error { return db.eng.View(fn) }))
}

// named adds the file's path to an error that says it is damaged: a
// transaction, not only an open, can be the first to find out (a read-only
// open reads less of the file than a writer's), and the owner must know
// which file.
func (db *DB) named(err error) error {
	if errors.Is(err, ErrDamaged) {
		return fmt.Errorf("%s: %w", db.path, err)
	}
	return err
}

// checkLength fails if the file is shorter than the pages its meta page
// says are in use: a file cut short (a copy that stopped, a full card).
// bbolt would read past its end, and a write would grow it back with holes,
// "repairing" it behind the owner's back. It looks at the file bbolt
// opened, never at its name: another user may have put something else
// there since.
func checkLength(tx *bolt.Tx, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if want := tx.Size(); fi.Size() < want {
		return fmt.Errorf("%w: the file is %d bytes but its pages reach %d bytes: it was cut short", ErrDamaged, fi.Size(), want)
	}
	return nil
}

// isOSError reports errors of the file system (permissions, a missing
// directory) and files that root refuses, which are not damage to the
// file.
func isOSError(err error) bool {
	var pe *os.PathError
	var r *refusal
	return errors.As(err, &pe) || errors.As(err, &r)
}
