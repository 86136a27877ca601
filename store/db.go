package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/store/kv"
	"hitcounter/store/kv/boltkv"
)

// DefaultWait is how long an open waits for the file by default.
const DefaultWait = 2 * time.Second

// fileMode keeps the counts private to the web server's user.
const fileMode = 0o600

// ErrTimeout reports that the file stayed locked by others for longer than
// the wait allowed.
var ErrTimeout = errors.New("database busy: timed out waiting for the lock")

// ErrMissing reports a database file that does not exist or is empty where
// one was required. The file is never created or initialised behind the
// owner's back.
var ErrMissing = errors.New("database file missing or empty: create a counter with the admin command first")

// ErrLockIsDatabase reports a side lock file that is the database itself,
// through a link: a writer would lock the file against itself and time
// out as if the database were busy.
var ErrLockIsDatabase = errors.New("the .lock file is the database itself (a link to it): remove the .lock file, it is made again")

// Options says how to open the file.
type Options struct {
	ReadOnly bool          // take a shared lock and refuse writes
	Create   bool          // create and initialise the file if it is missing
	Wait     time.Duration // longest wait for the lock; 0 means DefaultWait
	MaxSize  int           // size in bytes past which writes fail with ErrFull; 0 means DefaultMaxSize
	// Waits bounds the lock waits of a process that serves many
	// requests; nil suits a process that serves one and exits.
	Waits *LockWaits
	// Committed, if not nil, is told how long each commit took: the
	// writing of its pages and the fsyncs, what an SD card's age moves.
	Committed func(time.Duration)
	// Remote, if not nil, opens the stores whose path is an address
	// (IsRemote). The full tool's composition root sets it, so that the
	// hit binary, which never does, links no cluster client.
	Remote Remote
}

// LockWaits bounds, for a process that serves many requests, the flock
// calls it leaves blocked on the side file.
//
// A blocked flock cannot be cancelled: when an open gives up waiting, its
// flock goes on, holding an OS thread and a file descriptor until the
// holder lets go. A CGI process exits and takes them along; a FastCGI
// process would gather one per request for as long as a stuck holder (a
// process stopped with its lock, an fsync hung on a failing card) keeps
// the lock, until the runtime's thread limit kills it. With LockWaits, the
// readers and the batcher of one process share a fixed number of blocked
// flocks; an open that finds them all taken waits for one to come free,
// within its own wait, holding no thread.
type LockWaits struct {
	slots chan struct{}
}

// NewLockWaits allows at most n flock calls blocked at once.
func NewLockWaits(n int) *LockWaits {
	return &LockWaits{slots: make(chan struct{}, max(n, 1))}
}

// DB is an open counter database. Close it as soon as its work is done.
type DB struct {
	path      string // for the owner's log: which file is damaged
	eng       kv.DB  // every transaction goes through it
	bolt      *bolt.DB
	file      *os.File // bbolt's, to look at through its descriptor
	lock      *os.File
	committed func(time.Duration)
	readOnly  bool
}

// Open opens the database at path, waiting at most opts.Wait for other
// processes to finish with it.
func Open(path string, opts Options) (*DB, error) {
	if IsRemote(path) {
		return openRemote(path, opts)
	}
	wait := opts.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	deadline := time.Now().Add(wait)
	fi, statErr := os.Stat(path)
	if !opts.Create && (statErr != nil || fi.Size() == 0) {
		if statErr != nil && !errors.Is(statErr, os.ErrNotExist) {
			return nil, fmt.Errorf("store: open %s: %w", path, statErr)
		}
		return nil, fmt.Errorf("store: open %s: %w", path, ErrMissing)
	}
	if !opts.ReadOnly && statErr == nil && lockIsDatabase(path, fi) {
		return nil, fmt.Errorf("store: open %s: %s: %w", path, LockPath(path), ErrLockIsDatabase)
	}
	lock, err := lockSide(path, !opts.ReadOnly, wait, opts.Waits)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	var bdb *bolt.DB
	var file *os.File
	err = catchDamage(func() (err error) {
		bdb, err = bolt.Open(path, fileMode, &bolt.Options{
			ReadOnly: opts.ReadOnly,
			Timeout:  max(time.Until(deadline), time.Millisecond),
			OpenFile: openFileFunc(opts.Create, &file),
			MaxSize:  maxSize(opts.MaxSize),
		})
		return err
	})
	if err != nil {
		// bbolt closes its file when it fails, but not when it panics on a
		// damaged file. Unlock it here, or a long-lived process keeps the
		// lock: the file stays mapped, and the map holds the lock.
		if file != nil {
			syscall.Flock(int(file.Fd()), syscall.LOCK_UN)
			file.Close()
		}
		unlockSide(lock)
		switch {
		case errors.Is(err, bolt.ErrTimeout):
			err = ErrTimeout
		case !errors.Is(err, ErrDamaged) && !isOSError(err):
			err = fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db := &DB{path: path, eng: boltkv.New(bdb), bolt: bdb, file: file, lock: lock, committed: opts.Committed}
	err = db.named(catchDamage(func() error {
		return bdb.View(func(tx *bolt.Tx) error { return checkLength(tx, file) })
	}))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if opts.Create {
		if err := db.eng.Update(initSchema); err != nil {
			db.Close()
			return nil, fmt.Errorf("store: init %s: %w", path, err)
		}
	}
	return db, nil
}

// LockPath is the side file whose flock queues the processes that open
// the database at path. It is made on first use, with the database's mode.
func LockPath(path string) string { return path + ".lock" }

// lockIsDatabase says whether the side lock file of the database at path,
// whose own stat is db, is the database itself. Readers share both locks
// and are not hurt by it.
func lockIsDatabase(path string, db os.FileInfo) bool {
	lock, err := os.Stat(LockPath(path))
	return err == nil && os.SameFile(lock, db)
}

// openFileFunc keeps bbolt from creating a file unless asked to: a visitor's
// hit must never leave a new, empty database behind.
// It also hands the file it opened to opened.
// Under root it opens the file as openAsRoot does (no link another user
// made, and what was opened checked through its descriptor), and hands
// that very file to the web server's user before bbolt writes a byte of
// it.
func openFileFunc(create bool, opened **os.File) func(string, int, os.FileMode) (*os.File, error) {
	return func(name string, flag int, perm os.FileMode) (*os.File, error) {
		if !create {
			flag &^= os.O_CREATE
		}
		f, err := openChecked(name, flag, perm)
		if err != nil {
			return nil, err
		}
		*opened = f
		if flag&os.O_RDWR != 0 {
			if err := handOver(f, name); err != nil {
				f.Close()
				*opened = nil
				return nil, err
			}
		}
		return f, nil
	}
}

// Close releases the file and its lock.
func (db *DB) Close() error {
	if db.bolt == nil {
		if err := db.eng.Close(); err != nil {
			return fmt.Errorf("store: close %s: %w", db.path, err)
		}
		return nil
	}
	err := db.bolt.Close()
	unlockSide(db.lock)
	if err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}
