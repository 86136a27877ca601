package store

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// KeptPagesADay is how many of a day's pages keep a row of their own in the
// site's history once the day is over: the day's most viewed. The others'
// views and visitors that day go into the day's counter.OtherPages row, and
// their own records (all time) keep them. Every page a visitor names may
// get a row while its day lasts, up to max-pages; what is kept of a day is
// bounded by this, whatever visitors make up (doc.go, "Growth").
const KeptPagesADay = 200

// trimBatch bounds the keys a trim holds in memory before deleting them.
const trimBatch = 512

// A site's page days are trimmed a day at a time, in order, on the first
// hit of a day, after they are folded into the records: pages-trimmed is
// the last day trimmed, and the days after it up to pages-folded are
// trimmed next. A file of version 4 has none trimmed: its days are trimmed
// a budget at a time, twice a full day's rows on each fold, so that the
// trimming catches up, and the file does not grow while it does.

// trimPages trims the days of a site after pages-trimmed up to
// pages-folded, in order, until it has read budget rows (finishing the day
// in hand), and moves pages-trimmed on.
func trimPages(b, pages, days kv.Bucket, budget int) error {
	folded := b.Get(keyPagesFolded)
	if folded == nil {
		return nil
	}
	trimmed := b.Get(keyPagesTrimmed)
	if trimmed != nil && bytes.Compare(trimmed, folded) >= 0 {
		return nil
	}
	last := bytes.Clone(trimmed)
	next := func(after []byte) []byte {
		c := days.Cursor()
		if after == nil {
			k, _ := c.First()
			return k
		}
		k, _ := c.Seek(append(bytes.Clone(after), 0xff)) // past the day's pages
		return k
	}
	read := 0
	for k := next(last); ; k = next(last) {
		if k == nil || bytes.Compare(k[:min(len(k), len(time.DateOnly))], folded) > 0 {
			last = bytes.Clone(folded) // caught up
			break
		}
		if read >= budget {
			break
		}
		date, _, err := splitPageDayKey(k)
		if err != nil {
			return err
		}
		n, err := trimDay(pages, days, []byte(date))
		if err != nil {
			return fmt.Errorf("trim the pages of %s: %w", date, err)
		}
		read, last = read+n, []byte(date)
	}
	if last == nil {
		return nil
	}
	return b.Put(keyPagesTrimmed, last)
}

// dayRow is a page's row of one day, as trimDay ranks it.
type dayRow struct {
	page            string
	views, visitors uint64
	first           time.Time // the page's first seen
}

// rank orders rows from the one kept first: more views, then more
// visitors, then the page seen first (a page the site had before a flood
// of made-up ones began wins their ties), then the key.
func rank(a, b dayRow) int {
	if c := cmp.Compare(b.views, a.views); c != 0 {
		return c
	}
	if c := cmp.Compare(b.visitors, a.visitors); c != 0 {
		return c
	}
	if c := a.first.Compare(b.first); c != 0 {
		return c
	}
	return cmp.Compare(a.page, b.page)
}

// trimDay keeps the KeptPagesADay first-ranked pages of date and folds the
// other pages' rows of that date into its OtherPages row, and returns the
// number of rows it read. Its memory is KeptPagesADay rows and a batch of
// keys, whatever the day holds. The pages' records are not touched: they
// hold the day already.
func trimDay(pages, days kv.Bucket, date []byte) (int, error) {
	var keep []dayRow // ranked, at most KeptPagesADay
	rows, ranked := 0, 0
	c := days.Cursor()
	for k, v := c.Seek(date); k != nil && bytes.HasPrefix(k, date); k, v = c.Next() {
		rows++
		_, page, err := splitPageDayKey(k)
		if err != nil {
			return rows, err
		}
		if page == counter.OtherPages {
			continue
		}
		ranked++
		r := dayRow{page: page}
		if r.views, r.visitors, err = decodePageDay(v); err != nil {
			return rows, err
		}
		if len(keep) == KeptPagesADay && rank(r, keep[len(keep)-1]) >= 0 {
			continue // the common case in a flood: no record to read
		}
		p, found, err := getPage(pages, page)
		if err != nil {
			return rows, err
		}
		if !found {
			return rows, fmt.Errorf("%w: a day of page %q, which the site has not", ErrCorrupt, page)
		}
		r.first = p.FirstSeen
		i, _ := slices.BinarySearchFunc(keep, r, rank)
		if keep = slices.Insert(keep, i, r); len(keep) > KeptPagesADay {
			keep = keep[:KeptPagesADay]
		}
	}
	if ranked <= KeptPagesADay {
		return rows, nil // every page of the day is kept
	}
	kept := make(map[string]bool, len(keep))
	for _, r := range keep {
		kept[r.page] = true
	}
	var rest counter.Page
	batch := make([][]byte, 0, trimBatch)
	for from := date; ; {
		batch = batch[:0]
		c := days.Cursor()
		k, v := c.Seek(from)
		for ; k != nil && bytes.HasPrefix(k, date) && len(batch) < trimBatch; k, v = c.Next() {
			page := string(k[len(date):])
			if page == counter.OtherPages || kept[page] {
				continue
			}
			views, visitors, err := decodePageDay(v)
			if err != nil {
				return rows, err
			}
			rest = plus(rest, counter.Page{Views: views, Visitors: visitors})
			batch = append(batch, bytes.Clone(k))
		}
		for _, key := range batch {
			if err := days.Delete(key); err != nil {
				return rows, err
			}
		}
		if len(batch) < trimBatch {
			break
		}
		from = append(batch[len(batch)-1], 0) // the first key after the last deleted
	}
	key := pageDayKey(date, counter.OtherPages)
	if old := days.Get(key); old != nil {
		views, visitors, err := decodePageDay(old)
		if err != nil {
			return rows, err
		}
		rest = plus(rest, counter.Page{Views: views, Visitors: visitors})
	}
	return rows, days.Put(key, encodePageDay(rest.Views, rest.Visitors))
}
