package store

import (
	"fmt"

	"hitcounter/store/kv"
)

// Cluster is what the members of the cluster that holds the store say of
// themselves (kv.Cluster); false for a file.
func (db *DB) Cluster() (kv.Cluster, bool, error) {
	c, ok := db.eng.(interface{ Cluster() (kv.Cluster, error) })
	if !ok {
		return kv.Cluster{}, false, nil
	}
	s, err := c.Cluster()
	if err != nil {
		err = fmt.Errorf("store: %w", err)
	}
	return s, true, err
}

// capOf is the size past which the store's engine takes no writes, when
// the engine says it (a cluster's quota); 0 for a file, whose cap is
// Options.MaxSize.
func capOf(eng kv.DB) int64 {
	if q, ok := eng.(interface{ Quota() int64 }); ok {
		return q.Quota()
	}
	return 0
}
