package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// The last step of an import in steps (import_steps.go): what the import
// changed of a counter, brought into the counter as the hits left it.

// finish makes the import visible: each counter the import made moves into
// the file, and each it changed takes the staged big buckets and what the
// import changed of the rest.
func (im *stepImport) finish(tx kv.Tx, _ time.Time) error {
	_, staged, base, trash, err := im.work(tx)
	if err != nil {
		return err
	}
	all := tx.Bucket(bucketCounters)
	safeToLower, err := talliedFromBirth(tx)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, imp := range im.imps {
		if done[imp.Name] {
			continue
		}
		done[imp.Name] = true
		name := []byte(imp.Name)
		live, b := all.Bucket(name), base.Bucket(name)
		switch {
		case b == nil && live != nil, b != nil && live == nil:
			return fmt.Errorf("%s: %w", imp.Name, ErrImportRaced)
		case b == nil:
			err = staged.MoveBucket(name, all)
		default:
			err = im.mergeStaged(live, b, staged.Bucket(name), trash, name)
		}
		if err == nil {
			// The import rewrote days of the tally.
			err = dropNotCounted(all.Bucket(name))
		}
		if err != nil {
			return fmt.Errorf("%s: %w", imp.Name, err)
		}
	}
	for _, imp := range im.imps {
		if !imp.TalliedSince.IsZero() && safeToLower {
			if err := lowerTalliedSince(tx, imp.TalliedSince); err != nil {
				return err
			}
		}
	}
	return tx.DeleteBucket(bucketImporting)
}

// mergeStaged brings into live, the counter as it is now, what the import
// changed of it: base is the counter as the import found it, staged as
// the import left it.
func (im *stepImport) mergeStaged(live, base, staged, trash kv.Bucket, name []byte) error {
	both, err := mergePages(live, base, staged)
	if err != nil {
		return err
	}
	for _, k := range [][]byte{keyTotal, keyVisitors, keyPageCount} {
		if err := moveKey(live, base, staged, k); err != nil {
			return err
		}
	}
	if both > 0 {
		// Pages both the import and a hit made are one page each.
		n, err := decodeUint64(live.Get(keyPageCount))
		if err != nil {
			return err
		}
		if err := live.Put(keyPageCount, encodeUint64(n-min(n, both))); err != nil {
			return err
		}
	}
	created, err := decodeTime(staged.Get(keyCreated))
	if err != nil {
		return err
	}
	if was, err := decodeTime(live.Get(keyCreated)); err != nil || created.Before(was) {
		if err != nil {
			return err
		}
		if err := live.Put(keyCreated, encodeTime(created)); err != nil {
			return err
		}
	}
	for _, bucket := range [][]byte{bucketReferrers, bucketSources} {
		if err := mergeHosts(live, base, staged, bucket); err != nil {
			return err
		}
	}
	for _, big := range bigBuckets {
		if err := im.moveBig(live, base, staged, trash, name, big); err != nil {
			return err
		}
	}
	return nil
}

// moveKey moves the count under k in live by what the import changed of
// it.
func moveKey(live, base, staged kv.Bucket, k []byte) error {
	b, s := base.Get(k), staged.Get(k)
	if bytes.Equal(b, s) {
		return nil
	}
	return live.Put(k, moveColumns(live.Get(k), b, s))
}

// moveColumns is a record of 8-byte counts as it is now, now, moved column
// by column by the change from base to staged. A missing record or column
// is zero.
func moveColumns(now, base, staged []byte) []byte {
	out := make([]byte, max(len(now), len(base), len(staged))/8*8)
	col := func(b []byte, i int) uint64 {
		if i+8 > len(b) {
			return 0
		}
		return binary.BigEndian.Uint64(b[i:])
	}
	for i := 0; i < len(out); i += 8 {
		binary.BigEndian.PutUint64(out[i:], moveBy(col(now, i), col(base, i), col(staged, i)))
	}
	return out
}

// mergePages brings into live's pages what the import changed of them,
// and returns how many pages both the import and a hit made.
func mergePages(live, base, staged kv.Bucket) (both uint64, err error) {
	sp := staged.Bucket(bucketPages)
	if sp == nil {
		return 0, nil
	}
	lp, err := live.CreateBucketIfNotExists(bucketPages)
	if err != nil {
		return 0, err
	}
	bp := base.Bucket(bucketPages)
	if bp != nil {
		// A page merged into another meanwhile took its days along: the
		// staged page days may hold some of them.
		err := bp.ForEach(func(k, _ []byte) error {
			if lp.Get(k) == nil {
				return ErrImportRaced
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	err = sp.ForEach(func(k, s []byte) error {
		var b []byte
		if bp != nil {
			b = bp.Get(k)
		}
		if bytes.Equal(b, s) {
			return nil
		}
		l := lp.Get(k)
		switch {
		case l == nil:
			return lp.Put(k, s)
		case b == nil:
			both++
		}
		p := moveColumns(l, b, s)
		// The first seen is the earlier, not a count.
		if len(p) >= 8*pageColumns {
			first := min(binary.BigEndian.Uint64(l[16:]), binary.BigEndian.Uint64(s[16:]))
			binary.BigEndian.PutUint64(p[16:], first)
		}
		return lp.Put(k, p)
	})
	return both, err
}

// mergeHosts adds into live's referrers, or sources (bucket), what the
// import changed of them; a host new to both past the bound goes under
// counter.OtherReferrers.
func mergeHosts(live, base, staged kv.Bucket, bucket []byte) error {
	sr := staged.Bucket(bucket)
	if sr == nil {
		return nil
	}
	lr, err := live.CreateBucketIfNotExists(bucket)
	if err != nil {
		return err
	}
	br := base.Bucket(bucket)
	n := lr.KeyN()
	return sr.ForEach(func(k, s []byte) error {
		var b []byte
		if br != nil {
			b = br.Get(k)
		}
		if bytes.Equal(b, s) {
			return nil
		}
		if lr.Get(k) == nil {
			if n >= counter.MaxReferrers && string(k) != counter.OtherReferrers {
				k, b = []byte(counter.OtherReferrers), nil
			} else {
				n++
			}
		}
		return lr.Put(k, moveColumns(lr.Get(k), b, s))
	})
}

// moveBig puts the staged big bucket in place of live's, its rows from
// recentFrom on made live's as they are now moved by what the import
// changed; a site's page days that a hit folded meanwhile bring the
// import's change to their pages' records.
func (im *stepImport) moveBig(live, base, staged, trash kv.Bucket, name, big []byte) error {
	sb := staged.Bucket(big)
	if sb == nil {
		return nil // the counter had none and the import made none
	}
	lb, bb := live.Bucket(big), base.Bucket(big)
	var keys [][]byte
	seen := map[string]bool{}
	for _, b := range []kv.Bucket{lb, sb} {
		if b == nil {
			continue
		}
		c := b.Cursor()
		for k, v := c.Seek(im.recentFrom); k != nil; k, v = c.Next() {
			if v != nil && !seen[string(k)] {
				seen[string(k)] = true
				keys = append(keys, bytes.Clone(k))
			}
		}
	}
	var foldedBefore, foldedNow []byte
	var pages kv.Bucket
	if bytes.Equal(big, bucketPageDays) {
		foldedBefore, foldedNow, pages = base.Get(keyPagesFolded), live.Get(keyPagesFolded), live.Bucket(bucketPages)
	}
	get := func(b kv.Bucket, k []byte) []byte {
		if b == nil {
			return nil
		}
		return b.Get(k)
	}
	rows := make([][]byte, len(keys))
	for i, k := range keys {
		l, b, s := get(lb, k), get(bb, k), get(sb, k)
		if l == nil && b != nil && bytes.Equal(b, s) {
			// A hit removed the row meanwhile (a day's trim folds a
			// page's row into its other pages) and the import did not
			// change it: it stays removed (rows[i] nil).
			continue
		}
		rows[i] = moveColumns(l, b, s)
		// A day folded since the import began is in its pages' records
		// as it was in the file: add what the import changed of it.
		if pages != nil && !bytes.Equal(b, s) && len(k) > len(time.DateOnly) {
			date := k[:len(time.DateOnly)]
			if bytes.Compare(date, foldedBefore) > 0 && bytes.Compare(date, foldedNow) <= 0 {
				page := k[len(time.DateOnly):]
				rec := pages.Get(page)
				if len(rec) < 8*pageColumns {
					return fmt.Errorf("%w: a day of page %q, which the site has not", ErrCorrupt, page)
				}
				p := moveColumns(rec, b, s)
				copy(p[16:], rec[16:]) // the first seen
				if err := pages.Put(page, p); err != nil {
					return err
				}
			}
		}
	}
	// bbolt moves a bucket as it was last committed, without what this
	// transaction wrote in it: move first, then write.
	if lb != nil {
		t, err := trash.CreateBucketIfNotExists(name)
		if err != nil {
			return err
		}
		if err := live.MoveBucket(big, t); err != nil {
			return err
		}
	}
	if err := staged.MoveBucket(big, live); err != nil {
		return err
	}
	nb := live.Bucket(big)
	for i, k := range keys {
		put := nb.Put(k, rows[i])
		if rows[i] == nil {
			put = nb.Delete(k)
		}
		if put != nil {
			return put
		}
	}
	return nil
}
