package store

import (
	"bytes"
	"fmt"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/store/kv"
)

// The costs' bucket keeps the cost meter's records (package cgi/meter):
// the meter encodes them and judges them, this file runs the transactions.

// costsBucket is the costs' bucket of a file of this schema, made if need
// be, for a write transaction.
func costsBucket(tx kv.Tx) (kv.Bucket, error) {
	if err := checkSchema(tx); err != nil {
		return nil, err
	}
	return tx.CreateBucketIfNotExists(bucketCosts)
}

// FoldCosts adds days (a day's figures, from the runtime directory) to
// the history, judges each against the days before it (meter.Check),
// keeps the warnings, and drops the days and warnings past their time;
// it returns the new warnings. A day already in the history is replaced
// only as meter.Day.Replaces says.
func (db *DB) FoldCosts(days []meter.Day, now time.Time) ([]string, error) {
	var found []string
	err := db.write(func(tx kv.Tx) error {
		found = found[:0] // an engine may run it again (kv.DB.Update)
		c, err := costsBucket(tx)
		if err != nil {
			return err
		}
		b, err := c.CreateBucketIfNotExists(bucketCostDays)
		if err != nil {
			return err
		}
		for _, d := range days {
			if old := b.Get([]byte(d.Date)); old != nil && !d.Replaces(old) {
				continue
			}
			before, err := costDays(b, d.Date, meter.Window)
			if err != nil {
				return err
			}
			found = append(found, meter.Check(d, before)...)
			if err := b.Put([]byte(d.Date), d.Encode()); err != nil {
				return err
			}
		}
		oldest := []byte(meter.Oldest(now))
		cur := b.Cursor()
		for k, _ := cur.First(); k != nil && bytes.Compare(k, oldest) < 0; k, _ = cur.First() {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return c.Put(keyCostWarnings, meter.KeepWarnings(c.Get(keyCostWarnings), found, now))
	})
	if err != nil {
		return nil, fmt.Errorf("store: fold costs: %w", err)
	}
	return found, nil
}

// costDays returns the n days of b before date, oldest first.
func costDays(b kv.Bucket, date string, n int) ([]meter.Day, error) {
	var out []meter.Day
	cur := b.Cursor()
	k, v := cur.Seek([]byte(date))
	if k == nil {
		k, v = cur.Last()
	} else {
		k, v = cur.Prev()
	}
	for ; k != nil && len(out) < n; k, v = cur.Prev() {
		d, err := meter.DecodeDay(string(k), v)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		out = append([]meter.Day{d}, out...)
	}
	return out, nil
}

// BuildCosts records what the first meter.BuildRequests requests of kind
// k cost under build id, and judges them against the build before it
// (meter.CheckBuild); it returns the warning, if any, which is kept with
// the others. A record of another build becomes the build before.
func (db *DB) BuildCosts(id string, k meter.Kind, f meter.Figures, now time.Time) (string, error) {
	var warning string
	err := db.write(func(tx kv.Tx) error {
		warning = "" // an engine may run it again (kv.DB.Update)
		c, err := costsBucket(tx)
		if err != nil {
			return err
		}
		cur, err := buildRecord(c.Get(keyBuild))
		if err != nil {
			return err
		}
		if cur.ID != id {
			if cur.ID != "" {
				if err := c.Put(keyBuildBefore, c.Get(keyBuild)); err != nil {
					return err
				}
			}
			cur = meter.Build{ID: id}
		}
		cur.Kinds[k] = f
		if err := c.Put(keyBuild, cur.Encode()); err != nil {
			return err
		}
		before, err := buildRecord(c.Get(keyBuildBefore))
		if err != nil {
			return err
		}
		line, ok := meter.CheckBuild(now.UTC().Format(time.DateOnly), before, cur, k)
		if !ok {
			return nil
		}
		warning = line
		return c.Put(keyCostWarnings, meter.KeepWarnings(c.Get(keyCostWarnings), []string{line}, now))
	})
	if err != nil {
		return "", fmt.Errorf("store: build costs: %w", err)
	}
	return warning, nil
}

func buildRecord(b []byte) (meter.Build, error) {
	bu, err := meter.DecodeBuild(b)
	if err != nil {
		return bu, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return bu, nil
}

// CostHistory is what the history holds: the days from since on, oldest
// first, the kept warnings, and the current and the previous build's
// first requests.
type CostHistory struct {
	Days          []meter.Day
	Warnings      []string
	Build, Before meter.Build
}

// Costs returns the history from since on.
func (db *DB) Costs(since time.Time) (CostHistory, error) {
	var h CostHistory
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		c := tx.Bucket(bucketCosts)
		if c == nil {
			return nil
		}
		if b := c.Bucket(bucketCostDays); b != nil {
			cur := b.Cursor()
			for k, v := cur.Seek([]byte(since.UTC().Format(time.DateOnly))); k != nil; k, v = cur.Next() {
				d, err := meter.DecodeDay(string(k), v)
				if err != nil {
					return fmt.Errorf("%w: %v", ErrCorrupt, err)
				}
				h.Days = append(h.Days, d)
			}
		}
		h.Warnings = meter.DecodeWarnings(c.Get(keyCostWarnings))
		var err error
		if h.Build, err = buildRecord(c.Get(keyBuild)); err != nil {
			return err
		}
		h.Before, err = buildRecord(c.Get(keyBuildBefore))
		return err
	})
	if err != nil {
		return h, fmt.Errorf("store: costs: %w", err)
	}
	return h, nil
}
