package store

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"hitcounter/store/kv"
)

// ErrNoRemote reports a store address (etcd://...) given to a program
// that opens files only: the hit binary links no cluster client, and
// hands such a store to the full tool.
var ErrNoRemote = errors.New("this program opens database files only, not a cluster")

// The errors of a store in a cluster, which a hit answers with the
// dashes image: the cluster did not answer in time (nothing written), or
// a commit was sent whose outcome is unknown (it applied once or not at
// all).
var (
	ErrUnavailable    = kv.ErrUnavailable
	ErrUnknownOutcome = kv.ErrUnknownOutcome
)

// Remote opens the store at addr, an address that is not a file's path
// (IsRemote), waiting at most wait for the cluster. A read-only store
// refuses writes.
type Remote func(addr string, readOnly bool, wait time.Duration) (kv.DB, error)

// IsRemote says whether path names a store in a cluster
// (etcd://host:2379,host:2379/PREFIX) rather than a file.
func IsRemote(path string) bool { return strings.Contains(path, "://") }

// openRemote opens the store at addr through opts.Remote. There is no
// file, no side lock and no damaged page to catch: the cluster keeps its
// own. Every schema rule stays: the version is checked by every
// transaction, as on a file.
func openRemote(addr string, opts Options) (*DB, error) {
	if opts.Remote == nil {
		return nil, fmt.Errorf("store: open %s: %w", addr, ErrNoRemote)
	}
	wait := opts.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	eng, err := opts.Remote(addr, opts.ReadOnly, wait)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", addr, err)
	}
	db := &DB{path: addr, eng: eng, committed: opts.Committed, readOnly: opts.ReadOnly}
	if opts.Create {
		err = eng.Update(initSchema)
	} else {
		// As a missing file is, a prefix with no store under it is
		// refused: a visitor's hit must not make one.
		err = eng.View(func(tx kv.Tx) error {
			if tx.Bucket(bucketMeta) == nil && tx.Bucket(bucketCounters) == nil {
				return ErrMissing
			}
			return nil
		})
	}
	if err != nil {
		eng.Close()
		return nil, fmt.Errorf("store: open %s: %w", addr, err)
	}
	return db, nil
}
