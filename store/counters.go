package store

import (
	"bytes"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
)

// Hit counts one hit on counter name at time now, from a page on refHost
// ("" when unknown), and returns the new total. The total, the day and the
// referrer change together in one transaction or not at all.
func (db *DB) Hit(name string, now time.Time, refHost string) (uint64, error) {
	var total uint64
	err := db.update(func(tx *bolt.Tx) (err error) {
		total, err = hitTx(tx, name, now, refHost)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: hit %q: %w", name, err)
	}
	return total, nil
}

// hitTx counts one hit within tx. A counter that does not exist fails
// with counter.ErrNotFound before anything is written.
func hitTx(tx *bolt.Tx, name string, now time.Time, refHost string) (uint64, error) {
	b, err := counterBucket(tx, name)
	if err != nil {
		return 0, err
	}
	total, err := addTo(b, keyTotal, 1)
	if err != nil {
		return 0, err
	}
	if err := addToBucket(b, bucketDays, dayKey(now)); err != nil {
		return 0, err
	}
	if refHost != "" {
		if err := addReferrer(b, refHost); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// addTo adds n to the count under key in b, stopping at the largest count
// rather than wrapping to zero, and returns the new count.
func addTo(b *bolt.Bucket, key []byte, n uint64) (uint64, error) {
	old, err := decodeUint64(b.Get(key))
	if err != nil {
		return 0, err
	}
	sum := old + n
	if sum < old {
		sum = ^uint64(0)
	}
	return sum, b.Put(key, encodeUint64(sum))
}

func addToBucket(parent *bolt.Bucket, bucket, key []byte) error {
	b, err := parent.CreateBucketIfNotExists(bucket)
	if err != nil {
		return err
	}
	_, err = addTo(b, key, 1)
	return err
}

// addReferrer counts a hit from host, or under counter.OtherReferrers once
// counter.MaxReferrers hosts are known.
func addReferrer(parent *bolt.Bucket, host string) error {
	b, err := parent.CreateBucketIfNotExists(bucketReferrers)
	if err != nil {
		return err
	}
	key := []byte(host)
	if b.Get(key) == nil && b.Stats().KeyN >= counter.MaxReferrers {
		key = []byte(counter.OtherReferrers)
	}
	_, err = addTo(b, key, 1)
	return err
}

// Counter returns what is known about counter name.
func (db *DB) Counter(name string) (counter.Info, error) {
	var info counter.Info
	err := db.view(func(tx *bolt.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		info, err = readInfo(name, b)
		return err
	})
	if err != nil {
		return info, fmt.Errorf("store: counter %q: %w", name, err)
	}
	return info, nil
}

func readInfo(name string, b *bolt.Bucket) (counter.Info, error) {
	info := counter.Info{Name: name}
	var err error
	if info.Count, err = decodeUint64(b.Get(keyTotal)); err != nil {
		return info, err
	}
	if info.Created, err = decodeTime(b.Get(keyCreated)); err != nil {
		return info, err
	}
	if h := b.Get(keyPassword); len(h) > 0 {
		info.PasswordHash = bytes.Clone(h)
	}
	return info, nil
}

// List returns every counter, sorted by name.
func (db *DB) List() ([]counter.Info, error) {
	var list []counter.Info
	err := db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		all := tx.Bucket(bucketCounters)
		if all == nil {
			return nil
		}
		return all.ForEachBucket(func(k []byte) error {
			info, err := readInfo(string(k), all.Bucket(k))
			if err != nil {
				return fmt.Errorf("%q: %w", k, err)
			}
			list = append(list, info)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	return list, nil
}

// Create makes counter name, starting at start hits.
func (db *DB) Create(name string, start uint64, now time.Time) error {
	if err := counter.CheckName(name); err != nil {
		return err
	}
	err := db.update(func(tx *bolt.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		b, err := tx.Bucket(bucketCounters).CreateBucket([]byte(name))
		if err == bolt.ErrBucketExists {
			return counter.ErrExists
		}
		if err != nil {
			return err
		}
		if err := b.Put(keyTotal, encodeUint64(start)); err != nil {
			return err
		}
		return b.Put(keyCreated, encodeTime(now))
	})
	if err != nil {
		return fmt.Errorf("store: create %q: %w", name, err)
	}
	return nil
}

// Set sets the total of counter name to n, leaving its history alone.
func (db *DB) Set(name string, n uint64) error {
	err := db.update(func(tx *bolt.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		return b.Put(keyTotal, encodeUint64(n))
	})
	if err != nil {
		return fmt.Errorf("store: set %q: %w", name, err)
	}
	return nil
}

// Delete removes counter name and its history.
func (db *DB) Delete(name string) error {
	err := db.update(func(tx *bolt.Tx) error {
		if _, err := counterBucket(tx, name); err != nil {
			return err
		}
		return tx.Bucket(bucketCounters).DeleteBucket([]byte(name))
	})
	if err != nil {
		return fmt.Errorf("store: delete %q: %w", name, err)
	}
	return nil
}

// Days returns the hits per UTC day of counter name, oldest first, for the
// days from since (inclusive) on.
func (db *DB) Days(name string, since time.Time) ([]counter.Day, error) {
	h, err := db.History(name, since)
	return h.Days, err
}

// Referrers returns the hits per referring host of counter name, sorted by
// host.
func (db *DB) Referrers(name string) ([]counter.Referrer, error) {
	h, err := db.History(name, time.Now())
	return h.Referrers, err
}

// History returns counter name with its hits per UTC day from since
// (inclusive) on and its referring hosts, read in one transaction.
func (db *DB) History(name string, since time.Time) (counter.History, error) {
	var h counter.History
	err := db.view(func(tx *bolt.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		if h.Info, err = readInfo(name, b); err != nil {
			return err
		}
		if h.Days, err = readDays(b, since); err != nil {
			return err
		}
		h.Referrers, err = readReferrers(b)
		return err
	})
	if err != nil {
		return h, fmt.Errorf("store: history of %q: %w", name, err)
	}
	return h, nil
}

func readDays(b *bolt.Bucket, since time.Time) ([]counter.Day, error) {
	var days []counter.Day
	d := b.Bucket(bucketDays)
	if d == nil {
		return nil, nil
	}
	c := d.Cursor()
	for k, v := c.Seek(dayKey(since)); k != nil; k, v = c.Next() {
		n, err := decodeUint64(v)
		if err != nil {
			return nil, err
		}
		days = append(days, counter.Day{Date: string(k), Hits: n})
	}
	return days, nil
}

func readReferrers(b *bolt.Bucket) ([]counter.Referrer, error) {
	var refs []counter.Referrer
	r := b.Bucket(bucketReferrers)
	if r == nil {
		return nil, nil
	}
	err := r.ForEach(func(k, v []byte) error {
		n, err := decodeUint64(v)
		if err != nil {
			return err
		}
		refs = append(refs, counter.Referrer{Host: string(k), Hits: n})
		return nil
	})
	return refs, err
}
