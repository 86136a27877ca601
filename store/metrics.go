package store

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store/kv"
)

// MetricsTokenHashLen is the length of the stored hash of the metrics
// token: a SHA-256. The token is 32 random bytes, so a fast hash is as
// safe as a slow one, and a scrape every few seconds costs no bcrypt.
const MetricsTokenHashLen = sha256.Size

// HashMetricsToken is what the file keeps of a metrics token.
func HashMetricsToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// SetMetricsTokenHash stores the hash of the token that opens the
// metrics, replacing any before it; nil removes it, and the metrics then
// open to nobody.
func (db *DB) SetMetricsTokenHash(hash []byte) error {
	if hash != nil && len(hash) != MetricsTokenHashLen {
		return fmt.Errorf("store: metrics token hash of %d bytes", len(hash))
	}
	err := db.write(func(tx kv.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		if hash == nil {
			return meta.Delete(keyMetricsToken)
		}
		return meta.Put(keyMetricsToken, hash)
	})
	if err != nil {
		return fmt.Errorf("store: set metrics token: %w", err)
	}
	return nil
}

// MetricsTokenHash returns the hash of the metrics token, or nil when
// none was made.
func (db *DB) MetricsTokenHash() ([]byte, error) {
	var hash []byte
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return nil
		}
		switch h := meta.Get(keyMetricsToken); len(h) {
		case 0:
		case MetricsTokenHashLen:
			hash = bytes.Clone(h)
		default:
			return fmt.Errorf("%w: metrics token hash of %d bytes", ErrCorrupt, len(h))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: metrics token: %w", err)
	}
	return hash, nil
}

// CounterTotals are a counter's figures of all time, as the metrics show
// them: each only grows (but for an owner's set or import), whatever day
// it is.
type CounterTotals struct {
	Name       string
	Site       bool
	Views      uint64
	Visitors   uint64
	NotCounted [len(counter.NotCountedKinds)]uint64 // in the order of counter.NotCountedKinds
}

// Metrics is what the metrics read from the file, in one transaction.
type Metrics struct {
	Counters []CounterTotals // sorted by name
	// Size is the file's size in bytes.
	Size int64
	// Login is the figures of the password checks of the last day in the
	// cost history that had any (Date "" if none): what a bcrypt check at
	// the pinned cost took on this machine, as logins measured it.
	Login     meter.Figures
	LoginDate string
	// LastBackup is when the backup command last wrote a checked copy;
	// zero if never.
	LastBackup time.Time
}

// Metrics reads every counter's totals of all time, the file's size and
// the last measured password checks and the last backup's time. The hits not counted are kept by
// day: it reads each counter's not-counted record, their sums, and adds
// the rows of a counter that has none (notcounted.go).
func (db *DB) Metrics() (Metrics, error) {
	var m Metrics
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		m.Size = sizeOf(tx)
		if meta := tx.Bucket(bucketMeta); meta != nil {
			var err error
			if m.LastBackup, err = decodeTime(meta.Get(keyLastBackup)); err != nil {
				return err
			}
		}
		if all := tx.Bucket(bucketCounters); all != nil {
			err := all.ForEachBucket(func(k []byte) error {
				c, err := readTotalsOfAllTime(tx, string(k), all.Bucket(k))
				if err != nil {
					return fmt.Errorf("%q: %w", k, err)
				}
				m.Counters = append(m.Counters, c)
				return nil
			})
			if err != nil {
				return err
			}
		}
		var err error
		m.LoginDate, m.Login, err = lastLogins(tx)
		return err
	})
	if err != nil {
		return m, fmt.Errorf("store: metrics: %w", err)
	}
	return m, nil
}

// readTotalsOfAllTime reads counter name's totals from its bucket b and
// its rows in the today bucket.
func readTotalsOfAllTime(tx kv.Tx, name string, b kv.Bucket) (CounterTotals, error) {
	c := CounterTotals{Name: name, Site: b.Get(keyHosts) != nil}
	t, err := loadToday(tx, name)
	if err != nil {
		return c, err
	}
	if c.Views, c.Visitors, err = readTotals(b); err != nil {
		return c, err
	}
	n, err := tallyNotCounted(b)
	if err != nil {
		return c, err
	}
	n.addTally(t.counts)
	c.Views, c.Visitors = saturatingAdd(c.Views, t.counts.Views), saturatingAdd(c.Visitors, t.counts.Visitors)
	c.NotCounted = n
	return c, nil
}

// lastLogins returns the date and figures of the last day of the cost
// history with password checks, or "" if none.
func lastLogins(tx kv.Tx) (string, meter.Figures, error) {
	c := tx.Bucket(bucketCosts)
	if c == nil {
		return "", meter.Figures{}, nil
	}
	b := c.Bucket(bucketCostDays)
	if b == nil {
		return "", meter.Figures{}, nil
	}
	cur := b.Cursor()
	for k, v := cur.Last(); k != nil; k, v = cur.Prev() {
		d, err := meter.DecodeDay(string(k), v)
		if err != nil {
			return "", meter.Figures{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		if f := d.Kinds[meter.Login]; f.Count > 0 {
			return d.Date, f, nil
		}
	}
	return "", meter.Figures{}, nil
}
