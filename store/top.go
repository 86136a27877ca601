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

// TopPages returns site name's q.N most viewed pages over the UTC days
// from q.Days-1 days before now's to now's, most viewed first (ties to
// more visitors, then to the key), without counter.OtherPages, in one
// read transaction. Only a site whose page list is public answers
// (counter.Info.PageListPublic): another is counter.ErrPagesPrivate, a
// plain counter counter.ErrNotSite.
//
// Each day counts its KeptPagesADay most viewed pages, ranked as the trim
// ranks them: a past day holds no more once trimmed (doc.go, "Sites"),
// and today and the days not trimmed yet are cut the same way as they are
// read. A page that was never among a day's most viewed is left out, even
// if its views over the days add up to more than a listed page's: with 200
// pages a day kept, only a site of many pages of even views would see it.
// What the request holds is a day's KeptPagesADay rows and a sum for each
// page kept on any of the days, at most q.Days×KeptPagesADay.
func (db *DB) TopPages(name string, now time.Time, q counter.TopQuery) ([]counter.Page, error) {
	list, _, err := db.topPages(name, now, q, false)
	return list, err
}

// TopPagesTitled is TopPages with the titles of the pages listed that the
// owner gave one (the titles command, from the site's own feed), by page,
// read in the same transaction; nil when none has.
func (db *DB) TopPagesTitled(name string, now time.Time, q counter.TopQuery) ([]counter.Page, map[string]string, error) {
	return db.topPages(name, now, q, true)
}

// topPages is TopPages, and with titled the titles of its pages.
func (db *DB) topPages(name string, now time.Time, q counter.TopQuery, titled bool) ([]counter.Page, map[string]string, error) {
	var list []counter.Page
	var titles map[string]string
	err := db.view(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		info, err := readInfo(name, b)
		if err != nil {
			return err
		}
		switch {
		case info.Settings.Site == nil:
			return counter.ErrNotSite
		case !info.PageListPublic():
			return counter.ErrPagesPrivate
		}
		t, err := loadToday(tx, name)
		if err != nil {
			return err
		}
		if list, err = readTop(b, t, dayKey(now.AddDate(0, 0, 1-q.Days)), q.N); err != nil || !titled {
			return err
		}
		pages := make([]string, len(list))
		for i, p := range list {
			pages[i] = p.Page
		}
		titles = readTitles(b, pages)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("store: top pages of %q: %w", name, err)
	}
	return list, titles, nil
}

// readTop reads the n first-ranked pages of the site in b from day since
// on, its today rows t included.
func readTop(b kv.Bucket, t todayRows, since []byte, n int) ([]counter.Page, error) {
	pages := b.Bucket(bucketPages)
	if pages == nil {
		return nil, nil
	}
	sums := map[string]counter.Page{}
	var keep []dayRow // the day's most viewed, ranked
	addDay := func() {
		for _, r := range keep {
			p := sums[r.page]
			p.Page = r.page
			sums[r.page] = plus(p, counter.Page{Views: r.views, Visitors: r.visitors})
		}
		keep = keep[:0]
	}
	if days := b.Bucket(bucketPageDays); days != nil {
		// A trimmed day holds its most viewed already: its rows are
		// added as they are, without reading the pages' records.
		trimmed := b.Get(keyPagesTrimmed)
		var day []byte
		whole := false
		c := days.Cursor()
		for k, v := c.Seek(since); k != nil; k, v = c.Next() {
			if len(k) <= len(time.DateOnly) {
				return nil, fmt.Errorf("%w: page-day key %q", ErrCorrupt, k)
			}
			if date := k[:len(time.DateOnly)]; !bytes.Equal(date, day) {
				addDay()
				day = bytes.Clone(date)
				whole = trimmed != nil && bytes.Compare(day, trimmed) <= 0
			}
			if whole && len(keep) == KeptPagesADay {
				// More rows than a trim keeps (an import's day, say):
				// ranked from here on, as a day not trimmed.
				whole = false
				slices.SortFunc(keep, rank)
			}
			if whole {
				if page := k[len(time.DateOnly):]; string(page) != counter.OtherPages {
					r := dayRow{page: string(page)}
					var err error
					if r.views, r.visitors, err = decodePageDay(v); err != nil {
						return nil, err
					}
					keep = append(keep, r)
				}
				continue
			}
			var err error
			if keep, err = rankRow(keep, pages, k[len(time.DateOnly):], v); err != nil {
				return nil, err
			}
		}
		addDay()
	}
	if t.since(since) {
		err := t.each(todayPage, func(page, v []byte) error {
			var err error
			keep, err = rankRow(keep, pages, page, v)
			return err
		})
		if err != nil {
			return nil, err
		}
		addDay()
	}
	list := make([]counter.Page, 0, len(sums))
	for _, p := range sums {
		list = append(list, p)
	}
	slices.SortFunc(list, func(a, b counter.Page) int {
		return rank(dayRow{page: a.Page, views: a.Views, visitors: a.Visitors},
			dayRow{page: b.Page, views: b.Views, visitors: b.Visitors})
	})
	return list[:min(n, len(list))], nil
}

// rankRow puts a day's row of page, with record v, in its place among
// keep, a day's KeptPagesADay first-ranked rows at most, as trimDay
// ranks them; the OtherPages row is no page and is left out.
func rankRow(keep []dayRow, pages kv.Bucket, page, v []byte) ([]dayRow, error) {
	if string(page) == counter.OtherPages {
		return keep, nil
	}
	r := dayRow{}
	var err error
	if r.views, r.visitors, err = decodePageDay(v); err != nil {
		return keep, err
	}
	if len(keep) == KeptPagesADay && cmp.Compare(keep[len(keep)-1].views, r.views) > 0 {
		return keep, nil // the common case on a day of many pages
	}
	r.page = string(page)
	if len(keep) == KeptPagesADay && rank(r, keep[len(keep)-1]) >= 0 {
		return keep, nil
	}
	p, found, err := getPage(pages, r.page)
	if err != nil {
		return keep, err
	}
	if !found {
		return keep, fmt.Errorf("%w: a day of page %q, which the site has not", ErrCorrupt, r.page)
	}
	r.first = p.FirstSeen
	i, _ := slices.BinarySearchFunc(keep, r, rank)
	if keep = slices.Insert(keep, i, r); len(keep) > KeptPagesADay {
		keep = keep[:KeptPagesADay]
	}
	return keep, nil
}
