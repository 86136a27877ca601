package store

import (
	"bytes"
	"fmt"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// A hit of the current UTC day writes its counter's today bucket alone
// (doc.go, "Today"): a small bucket at the top of the file, so that bbolt
// rewrites its leaf, the root, the freelist and the meta page, and not the
// path down to a counter's days, tally and referrers, which a year of
// history makes two or three pages deeper. The first write of a later day
// on a bucket folds its rows into the history, as do the writes that
// change the history (update), all buckets: every reader adds the rows to
// what the history holds.

// todayRows is counter's rows in the today bucket, as a reader adds them
// to its history.
type todayRows struct {
	day    []byte        // the day of the rows; nil when there are none
	bucket kv.Bucket     // the today bucket; nil when there are no rows
	prefix []byte        // todayPrefix of the counter
	counts counter.Tally // the counter's views and tally that day
}

// loadToday reads counter name's counts row and finds its other rows.
func loadToday(tx kv.Tx, name string) (todayRows, error) {
	t := todayRows{prefix: todayPrefix(name)}
	tb := tx.Bucket(todayBucket(name))
	if tb == nil {
		return t, nil
	}
	if t.day = tb.Get(keyTodayDay); t.day == nil {
		return t, nil
	}
	t.bucket = tb
	if v := tb.Get(t.prefix); v != nil {
		if err := decodeToday(v, &t.counts); err != nil {
			return t, err
		}
	}
	return t, nil
}

// since says whether the rows are of day from or later (a day key).
func (t todayRows) since(from []byte) bool {
	return t.day != nil && bytes.Compare(t.day, from) >= 0
}

// page is the page's views and visitors of the rows' day.
func (t todayRows) page(page string) (counter.Page, error) {
	p := counter.Page{Page: page}
	if t.bucket == nil {
		return p, nil
	}
	v := t.bucket.Get(todayKey(t.prefix, todayPage, page))
	if v == nil {
		return p, nil
	}
	var err error
	p.Views, p.Visitors, err = decodePageDay(v)
	return p, err
}

// each calls fn with each of the counter's rows of kind, in key order,
// with the rest of its key (a page, a host).
func (t todayRows) each(kind byte, fn func(rest, v []byte) error) error {
	if t.bucket == nil {
		return nil
	}
	p := append(bytes.Clone(t.prefix), kind)
	c := t.bucket.Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if err := fn(k[len(p):], v); err != nil {
			return err
		}
	}
	return nil
}

// todayFor returns the today bucket of counter name for a hit on day,
// folding the bucket's rows of an earlier day into the history first; nil
// when the rows are of a later day than the hit's (a hit that waited past
// midnight for its batch, a clock set back), which then goes into the
// history itself.
func todayFor(tx kv.Tx, day []byte, name string) (kv.Bucket, error) {
	shard := todayBucket(name)
	if tb := tx.Bucket(shard); tb != nil {
		switch d := tb.Get(keyTodayDay); {
		case d == nil:
		case bytes.Equal(d, day):
			return tb, nil
		case bytes.Compare(d, day) > 0:
			return nil, nil
		default:
			if err := foldShard(tx, shard, day); err != nil {
				return nil, err
			}
		}
	}
	tb, err := tx.CreateBucketIfNotExists(shard)
	if err != nil {
		return nil, err
	}
	if _, err := tb.CreateBucketIfNotExists(keyTodayPinned); err != nil {
		return nil, err
	}
	return tb, tb.Put(keyTodayDay, day)
}

// foldToday folds every today bucket into the history (foldShard), for a
// write that changes the history.
func foldToday(tx kv.Tx) error {
	if err := checkSchema(tx); err != nil {
		return err
	}
	for i := range todayShards {
		if err := foldShard(tx, todayShard(i), nil); err != nil {
			return err
		}
	}
	return nil
}

// foldShard adds every row of today bucket shard into its counter's
// history and removes the bucket, in tx: a crash loses neither the rows
// nor the history, and nothing is added twice. A site's page-days before
// next (the day of the hit that folds; the rows' own day when nil) are
// then folded into its pages' records and trimmed, as a v5 site's first
// hit of a day did (foldPages).
func foldShard(tx kv.Tx, shard, next []byte) error {
	tb := tx.Bucket(shard)
	if tb == nil {
		return nil
	}
	day := bytes.Clone(tb.Get(keyTodayDay))
	if day != nil {
		if next == nil {
			next = day
		}
		if err := foldRows(tx, tb, day, next); err != nil {
			return fmt.Errorf("fold the hits of %s: %w", day, err)
		}
	}
	return tx.DeleteBucket(shard)
}

// foldRows adds the rows of tb, of day, into the history.
func foldRows(tx kv.Tx, tb kv.Bucket, day, next []byte) error {
	all := tx.Bucket(bucketCounters)
	var name []byte
	var b kv.Bucket
	var sites [][]byte
	c := tb.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if bytes.Equal(k, keyTodayDay) || bytes.Equal(k, keyTodayPinned) {
			continue
		}
		i := bytes.IndexByte(k, 0)
		if i < 0 || v == nil {
			return fmt.Errorf("%w: today's key %q", ErrCorrupt, k)
		}
		if !bytes.Equal(k[:i], name) {
			name = bytes.Clone(k[:i])
			if all != nil {
				b = all.Bucket(name)
			}
			if b == nil {
				return fmt.Errorf("%w: today's rows of counter %q, which the file has not", ErrCorrupt, name)
			}
			if b.Get(keyHosts) != nil {
				sites = append(sites, name)
			}
		}
		rest := k[i+1:]
		var err error
		switch {
		case len(rest) == 0:
			err = foldCounts(b, day, v)
		case rest[0] == todayReferrer && len(rest) > 1:
			var n uint64
			if n, err = decodeUint64(v); err == nil {
				err = addHost(b, bucketReferrers, string(rest[1:]), n)
			}
		case rest[0] == todaySource && len(rest) > 1:
			var n uint64
			if n, err = decodeUint64(v); err == nil {
				err = addHost(b, bucketSources, string(rest[1:]), n)
			}
		case rest[0] == todayPage && len(rest) > 1:
			err = foldPageDay(b, day, string(rest[1:]), v)
		default:
			err = fmt.Errorf("%w: today's key %q", ErrCorrupt, k)
		}
		if err != nil {
			return fmt.Errorf("counter %q: %w", name, err)
		}
	}
	for _, name := range sites {
		b := all.Bucket(name)
		site, err := readSite(b)
		if err != nil {
			return fmt.Errorf("counter %q: %w", name, err)
		}
		pages, days := b.Bucket(bucketPages), b.Bucket(bucketPageDays)
		if pages == nil || days == nil {
			continue
		}
		if _, err := foldPages(b, pages, days, next, site.MaxPages); err != nil {
			return fmt.Errorf("counter %q: %w", name, err)
		}
	}
	return nil
}

// foldCounts adds a counts row of day into the counter's total, visitors,
// day and tally, as the day's hits added to them one by one before version 6.
func foldCounts(b kv.Bucket, day, v []byte) error {
	var t counter.Tally
	if err := decodeToday(v, &t); err != nil {
		return err
	}
	if t.Views > 0 {
		if _, err := addTo(b, keyTotal, t.Views); err != nil {
			return err
		}
		days, err := b.CreateBucketIfNotExists(bucketDays)
		if err != nil {
			return err
		}
		if _, err := addTo(days, day, t.Views); err != nil {
			return err
		}
	}
	if t.Visitors > 0 {
		if _, err := addTo(b, keyVisitors, t.Visitors); err != nil {
			return err
		}
	}
	if len(v) <= 8 {
		return nil // views alone: no tally, as a plain view of an old visitor made none
	}
	tally, err := b.CreateBucketIfNotExists(bucketTally)
	if err != nil {
		return err
	}
	var old counter.Tally
	if rec := tally.Get(day); rec != nil {
		if err := decodeTally(rec, &old); err != nil {
			return err
		}
	}
	if err := tally.Put(day, encodeTally(old.Plus(t))); err != nil {
		return err
	}
	return addNotCounted(b, t)
}

// foldPageDay adds a page's row of day into the site's page-days (and into
// its record, for a day already folded into the records).
func foldPageDay(b kv.Bucket, day []byte, page string, v []byte) error {
	views, visitors, err := decodePageDay(v)
	if err != nil {
		return err
	}
	pages := b.Bucket(bucketPages)
	if pages == nil {
		return fmt.Errorf("%w: today's row of page %q, which the site has not", ErrCorrupt, page)
	}
	p, found, err := getPage(pages, page)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%w: today's row of page %q, which the site has not", ErrCorrupt, page)
	}
	days, err := b.CreateBucketIfNotExists(bucketPageDays)
	if err != nil {
		return err
	}
	key := pageDayKey(day, page)
	var oldViews, oldVisitors uint64
	if old := days.Get(key); old != nil {
		if oldViews, oldVisitors, err = decodePageDay(old); err != nil {
			return err
		}
	}
	if err := days.Put(key, encodePageDay(saturatingAdd(oldViews, views), saturatingAdd(oldVisitors, visitors))); err != nil {
		return err
	}
	if bytes.Compare(day, b.Get(keyPagesFolded)) <= 0 {
		return pages.Put([]byte(page), encodePage(plus(p, counter.Page{Views: views, Visitors: visitors})))
	}
	return nil
}
