package store

import (
	"encoding/binary"
	"fmt"
	"time"

	"hitcounter/store/kv"
)

// migrate brings the file of tx from schema version from to the current
// one, within tx: the first write by a new program migrates, in the same
// transaction as its own change, under the same lock. A crash before the
// commit leaves the old file as it was, for the next write to migrate; a
// file already migrated is not touched again.
func migrate(tx kv.Tx, from uint32) error {
	meta := tx.Bucket(bucketMeta)
	switch from {
	case 1:
		// Version 1 counted every hit, so its totals and days are the
		// views of version 2 as they stand, and nothing is rewritten: the
		// migration takes the same time on any file. Visitors and the
		// hits not counted are kept from now on, which tallied-since
		// records for the statistics to say.
		if err := meta.Put(keyTalliedSince, encodeTime(time.Now())); err != nil {
			return err
		}
	case 2:
		// Version 3 added sites, whose keys a version 2 file cannot
		// hold: its counters are plain counters as they stand.
	case 3:
		// Version 4 added the costs bucket, made by the first fold of a
		// day's costs: nothing to rewrite.
	case 4:
		// Version 5 folds the long tail of a site's past days into their
		// OtherPages rows (pagetrim.go). A site of version 4 has no
		// pages-trimmed, and so none of its days trimmed: the daily fold
		// trims them, a bounded number of rows at a time, and nothing is
		// rewritten here.
	case 5:
	case 6:
		// Version 7 added the sources (a counter's sources/ bucket and
		// its rows in today) and a site's titles/: a file of version 6
		// has none of either, and the first view from a source or the
		// first titles command makes them. Nothing to rewrite.
	case 7:
		// Version 8 added the owner's login (owner-password and
		// owner-session-key in meta, absent until passwd -owner) and a
		// session key per counter, made by its next password or logout.
		// Until then a counter's sessions are still signed with meta's
		// session-key, as version 7 signed them (DB.SessionKey): a login
		// made before the upgrade lasts its day. Nothing to rewrite.
	default:
		return fmt.Errorf("%w: no migration from schema %d", ErrCorrupt, from)
	}
	// Every step after the first one a file needs, in order.
	if from < 6 {
		if err := migrateTo6(tx); err != nil {
			return err
		}
	}
	return meta.Put(keyVersion, binary.BigEndian.AppendUint32(nil, schemaVersion))
}

// migrateTo6 brings a version 5 file to version 6, which added the themes
// bucket (made by the first digitset add) and a counter's theme key (absent:
// the font, as before), and the today buckets (migrateToday): nothing to
// rewrite, and nothing to make.
func migrateTo6(tx kv.Tx) error { return migrateToday(tx) }

// migrateToday is the step of version 6 that keeps the day's hits apart,
// in the today buckets (today.go). A file of an earlier version has none:
// its history holds every hit, as a version 6 file's does once its today
// buckets are folded, and the first hit of a day makes its bucket. Nothing
// is rewritten, so the migration takes the same time on any file.
func migrateToday(tx kv.Tx) error {
	for i := range todayShards {
		if tx.Bucket(todayShard(i)) != nil {
			return fmt.Errorf("%w: a today bucket in a file of version %d", ErrCorrupt, fileVersion(tx))
		}
	}
	return nil
}
