package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
	"hitcounter/store/kv"
	"hitcounter/store/kv/boltkv"
)

// Report is the state of a database file as Check found it.
type Report struct {
	Size      int64  // bytes on disk
	InUse     int64  // bytes up to the last page in use
	Schema    uint32 // schema version; 0 before the first counter
	Counters  int
	Hits      uint64 // the totals of every counter, added up
	DigitSets int    // owners' digit sets
}

// maxCheckErrors bounds how many of bbolt's findings Check keeps.
const maxCheckErrors = 5

// Check reads the file at path without changing it, waiting at most wait
// for writers: bbolt's own consistency check of every page, then every
// record against the schema of doc.go. A damaged file gives an error that
// wraps ErrDamaged (pages) or ErrCorrupt (records); a missing or empty one,
// ErrMissing. Nothing is repaired.
func Check(path string, wait time.Duration) (Report, error) {
	return CheckWith(path, Options{Wait: wait})
}

// CheckWith is Check with the options of the open: its wait, and the
// Remote that opens a cluster's store. A store in a cluster has no pages
// of its own to check (each member keeps its own file, and etcd checks
// it): its records are checked as a file's are.
func CheckWith(path string, opts Options) (Report, error) {
	var r Report
	opts.ReadOnly, opts.Create = true, false
	db, err := Open(path, opts)
	if err != nil {
		return r, err
	}
	defer db.Close()
	err = db.view(func(tx kv.Tx) error {
		if b, ok := boltkv.Unwrap(tx); ok {
			fi, err := db.file.Stat()
			if err != nil {
				return err
			}
			r.Size, r.InUse = fi.Size(), b.Size()
			if err := checkPages(b); err != nil {
				return err
			}
		}
		return checkRecords(tx, &r)
	})
	if err != nil {
		return r, fmt.Errorf("store: check %s: %w", path, err)
	}
	return r, nil
}

// checkPages runs bbolt's check: every page reachable or free, once.
func checkPages(tx *bolt.Tx) error {
	var found []string
	n := 0
	for err := range tx.Check() {
		if n++; n <= maxCheckErrors {
			found = append(found, err.Error())
		}
	}
	if n == 0 {
		return nil
	}
	if n > maxCheckErrors {
		found = append(found, fmt.Sprintf("and %d more", n-maxCheckErrors))
	}
	// One line, whatever bbolt found: errors.Join would make several.
	return fmt.Errorf("%w: %s", ErrDamaged, strings.Join(found, "; "))
}

// checkRecords reads every key the schema defines and checks its encoding.
func checkRecords(tx kv.Tx, r *Report) error {
	if err := checkSchema(tx); err != nil {
		return err
	}
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if tx.Bucket(bucketCounters) != nil {
			return fmt.Errorf("%w: counters without a meta bucket", ErrCorrupt)
		}
		return nil // a file made before its first counter
	}
	r.Schema = binary.BigEndian.Uint32(meta.Get(keyVersion))
	if k := meta.Get(keySessionKey); k != nil && len(k) != sessionKeyLen {
		return fmt.Errorf("%w: session key of %d bytes", ErrCorrupt, len(k))
	}
	if k := meta.Get(keyOwnerKey); k != nil && len(k) != ownerKeyLen {
		return fmt.Errorf("%w: owner key of %d bytes", ErrCorrupt, len(k))
	}
	if _, err := readOwnerLogin(meta); err != nil {
		return err
	}
	if _, err := decodeTime(meta.Get(keyTalliedSince)); err != nil {
		return fmt.Errorf("tallied-since: %w", err)
	}
	all := tx.Bucket(bucketCounters)
	if all == nil {
		return fmt.Errorf("%w: no counters bucket", ErrCorrupt)
	}
	if err := checkDigitSets(tx, r); err != nil {
		return err
	}
	err := all.ForEach(func(k, v []byte) error {
		b := all.Bucket(k)
		if v != nil || b == nil {
			return fmt.Errorf("%w: %q under counters is not a bucket", ErrCorrupt, k)
		}
		if err := checkCounter(string(k), b, r); err != nil {
			return fmt.Errorf("counter %q: %w", k, err)
		}
		if t := b.Get(keyTheme); len(t) > 0 && !counter.IsLook(string(t)) && digitSetBucket(tx, string(t)) == nil {
			return fmt.Errorf("counter %q: %w: its default digit set %q is not in the file", k, ErrCorrupt, t)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return checkToday(tx, all)
}

// checkDigitSets checks every stored digit set: its name, when it was added,
// and its records as digitset reads them on a hit.
func checkDigitSets(tx kv.Tx, r *Report) error {
	all := tx.Bucket(bucketDigitSets)
	if all == nil {
		return nil
	}
	return all.ForEach(func(k, v []byte) error {
		b := all.Bucket(k)
		if v != nil || b == nil {
			return fmt.Errorf("%w: %q among the digit sets is not a bucket", ErrCorrupt, k)
		}
		if counter.CheckDigitSetName(string(k)) != nil {
			return fmt.Errorf("digit set %q: %w: not a digit set's name", k, ErrCorrupt)
		}
		t, err := readDigitSetInfo(string(k), b)
		if err == nil {
			t.Records, err = readDigitSetRecords(b, "0123456789")
		}
		if err == nil {
			err = checkDigitSetRecords(t.Records)
		}
		if err != nil {
			return fmt.Errorf("digit set %q: %w", k, err)
		}
		r.DigitSets++
		return nil
	})
}

// checkToday checks the today buckets: each one's day, and each row's
// counter (whose name hashes to the bucket), kind and record; a page's row
// needs the page's record.
func checkToday(tx kv.Tx, all kv.Bucket) error {
	for i := range todayShards {
		shard := todayShard(i)
		tb := tx.Bucket(shard)
		if tb == nil {
			continue
		}
		if _, err := parseDay(tb.Get(keyTodayDay)); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrCorrupt, shard, err)
		}
		if err := checkShard(tb, shard, all); err != nil {
			return fmt.Errorf("%s: %w", shard, err)
		}
	}
	return nil
}

func checkShard(tb kv.Bucket, shard []byte, all kv.Bucket) error {
	return tb.ForEach(func(k, v []byte) error {
		if bytes.Equal(k, keyTodayDay) || bytes.Equal(k, keyTodayPinned) {
			return nil
		}
		i := bytes.IndexByte(k, 0)
		if i < 0 || v == nil || !bytes.Equal(todayBucket(string(k[:i])), shard) {
			return fmt.Errorf("%w: today's key %q", ErrCorrupt, k)
		}
		b := all.Bucket(k[:i])
		if b == nil {
			return fmt.Errorf("%w: today's rows of counter %q, which the file has not", ErrCorrupt, k[:i])
		}
		switch rest := k[i+1:]; {
		case len(rest) == 0:
			var t counter.Tally
			return decodeToday(v, &t)
		case (rest[0] == todayReferrer || rest[0] == todaySource) && len(rest) > 1:
			_, err := decodeUint64(v)
			return err
		case rest[0] == todayPage && len(rest) > 1:
			if pages := b.Bucket(bucketPages); pages == nil || pages.Get(rest[1:]) == nil {
				return fmt.Errorf("%w: today's row of page %q, which counter %q has not", ErrCorrupt, rest[1:], k[:i])
			}
			_, _, err := decodePageDay(v)
			return err
		}
		return fmt.Errorf("%w: today's key %q", ErrCorrupt, k)
	})
}

func checkCounter(name string, b kv.Bucket, r *Report) error {
	if counter.CheckName(name) != nil {
		return fmt.Errorf("%w: not a valid counter name", ErrCorrupt)
	}
	info, err := readInfo(name, b)
	if err != nil {
		return err
	}
	if k := b.Get(keySessionKey); k != nil && len(k) != sessionKeyLen {
		return fmt.Errorf("%w: session key of %d bytes", ErrCorrupt, len(k))
	}
	r.Counters++
	r.Hits += info.Count
	if days := b.Bucket(bucketDays); days != nil {
		err := days.ForEach(func(k, v []byte) error {
			if _, err := time.Parse(time.DateOnly, string(k)); err != nil {
				return fmt.Errorf("%w: day key %q", ErrCorrupt, k)
			}
			_, err := decodeUint64(v)
			return err
		})
		if err != nil {
			return err
		}
	}
	if tally := b.Bucket(bucketTally); tally != nil {
		err := tally.ForEach(func(k, v []byte) error {
			if _, err := time.Parse(time.DateOnly, string(k)); err != nil {
				return fmt.Errorf("%w: tally key %q", ErrCorrupt, k)
			}
			var t counter.Tally
			return decodeTally(v, &t)
		})
		if err != nil {
			return err
		}
	}
	for _, list := range []struct {
		bucket []byte
		what   string
	}{{bucketReferrers, "referring hosts"}, {bucketSources, "sources"}} {
		refs := b.Bucket(list.bucket)
		if refs == nil {
			continue
		}
		n := 0
		err := refs.ForEach(func(k, v []byte) error {
			n++
			_, err := decodeUint64(v)
			return err
		})
		if err != nil {
			return err
		}
		if n > counter.MaxReferrers+1 {
			return fmt.Errorf("%w: %d %s, more than the bound", ErrCorrupt, n, list.what)
		}
	}
	if err := checkTitles(b); err != nil {
		return err
	}
	return checkSite(info, b)
}

// checkSite checks a site's pages and page days, and that a plain counter
// has neither.
func checkSite(info counter.Info, b kv.Bucket) error {
	pages, days := b.Bucket(bucketPages), b.Bucket(bucketPageDays)
	if !info.Settings.IsSite() {
		if pages != nil || days != nil || info.Pages != 0 {
			return fmt.Errorf("%w: pages on a counter that is no site", ErrCorrupt)
		}
		return nil
	}
	var made uint64
	if pages != nil {
		err := pages.ForEach(func(k, v []byte) error {
			if string(k) != counter.OtherPages {
				// Not PageKey itself: keep-query may have changed since.
				if len(k) > counter.MaxPageLen || k[0] != '/' || !utf8.Valid(k) || bytes.IndexByte(k, 0) >= 0 {
					return fmt.Errorf("%w: page key %q", ErrCorrupt, k)
				}
				made++
			}
			_, err := decodePage(string(k), v)
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, key := range [][]byte{keyPagesFolded, keyPagesTrimmed} {
		if f := b.Get(key); f != nil {
			if _, err := time.Parse(time.DateOnly, string(f)); err != nil {
				return fmt.Errorf("%w: %s %q", ErrCorrupt, key, f)
			}
		}
	}
	if t, f := b.Get(keyPagesTrimmed), b.Get(keyPagesFolded); t != nil && bytes.Compare(t, f) > 0 {
		return fmt.Errorf("%w: pages trimmed to %s, folded to %q only", ErrCorrupt, t, f)
	}
	if made != info.Pages {
		return fmt.Errorf("%w: %d pages, and a page count of %d", ErrCorrupt, made, info.Pages)
	}
	if days == nil {
		return nil
	}
	return days.ForEach(func(k, v []byte) error {
		d, err := readPageDay(k, v)
		if err != nil {
			return err
		}
		if _, err := parseDay([]byte(d.Date)); err != nil {
			return fmt.Errorf("%w: page-day key %q", ErrCorrupt, k)
		}
		// A trimmed day's OtherPages row may hold the views of pages
		// the site has rows for, and no view past max-pages.
		if d.Page != counter.OtherPages && (pages == nil || pages.Get([]byte(d.Page)) == nil) {
			return fmt.Errorf("%w: a day of page %q, which the site has not", ErrCorrupt, d.Page)
		}
		return nil
	})
}
