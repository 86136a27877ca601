package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// A site is a counter with a row per page (doc.go, "Sites"). Its own keys
// keep the site's totals as a plain counter's do; its pages bucket keeps a
// record per page and its page-days bucket a record per page and day.

// readSite reads the settings that only a site has.
func readSite(b kv.Bucket) (*counter.Site, error) {
	site := &counter.Site{MaxPages: counter.DefaultMaxPages}
	var err error
	if site.Hosts, err = counter.DecodeReferrers(b.Get(keyHosts)); err != nil || len(site.Hosts) == 0 {
		return nil, fmt.Errorf("%w: a site's hosts %q: %v", ErrCorrupt, b.Get(keyHosts), err)
	}
	if v := b.Get(keyMaxPages); v != nil {
		n, err := decodeUint64(v)
		if err != nil {
			return nil, err
		}
		if n < 1 || n > counter.MaxMaxPages {
			return nil, fmt.Errorf("%w: max-pages %d", ErrCorrupt, n)
		}
		site.MaxPages = int(n)
	}
	if site.KeepQuery, err = counter.DecodeQueryKeys(b.Get(keyKeepQuery)); err != nil {
		return nil, fmt.Errorf("%w: keep-query: %w", ErrCorrupt, err)
	}
	switch v := b.Get(keyImage); {
	case v == nil || bytes.Equal(v, imagePage):
	case bytes.Equal(v, imageSite):
		site.Image = counter.SiteImage
	default:
		return nil, fmt.Errorf("%w: image %q", ErrCorrupt, v)
	}
	switch v := b.Get(keyPublicPages); {
	case v == nil:
	case bytes.Equal(v, switchOn):
		site.PublicPages = true
	default:
		return nil, fmt.Errorf("%w: public-pages %q", ErrCorrupt, v)
	}
	return site, nil
}

// putSite stores the settings that only a site has.
func putSite(b kv.Bucket, site counter.Site) error {
	image := imagePage
	if site.Image == counter.SiteImage {
		image = imageSite
	}
	for _, kv := range []struct{ k, v []byte }{
		{keyHosts, counter.EncodeList(site.Hosts)},
		{keyMaxPages, encodeUint64(uint64(site.MaxPages))},
		{keyKeepQuery, counter.EncodeList(site.KeepQuery)},
		{keyImage, image},
	} {
		if err := b.Put(kv.k, kv.v); err != nil {
			return err
		}
	}
	// Off is the key's absence, as in a file that never had it.
	if site.PublicPages {
		return b.Put(keyPublicPages, switchOn)
	}
	return b.Delete(keyPublicPages)
}

// pageHit is what a counted hit did to a site's pages.
type pageHit struct {
	page     string        // the row counted, "" for none
	row      *counter.Page // that row after the hit, its days all added
	firstCap bool          // the first hit of the day past the cap
}

// A page's views and visitors are in three places: its record holds the
// days up to pages-folded, and the page-days after it and its row in the
// today bucket are added on reading. A hit writes its page's row in today
// (countPageToday), or, for a day before today's rows, its page's day
// (countPage); the record is written when the page is made, or once a day
// by foldPages: one leaf of the file fewer to write for every hit, which a
// FastCGI batch of hits on many pages feels.

// countPage counts a view on page (a key made by counter.PageKey) of the
// site in b, making its row when the hit came from one of the site's hosts
// and the site has room, or counting it under counter.OtherPages when it
// has none. A hit that may not make the row it needs counts on the site
// alone.
func countPage(b kv.Bucket, site *counter.Site, page string, v Visit, o counter.Outcome) (pageHit, error) {
	var h pageHit
	pages, err := b.CreateBucketIfNotExists(bucketPages)
	if err != nil {
		return h, err
	}
	days, err := b.CreateBucketIfNotExists(bucketPageDays)
	if err != nil {
		return h, err
	}
	day := dayKey(v.Now)
	folded, err := foldPages(b, pages, days, day, site.MaxPages)
	if err != nil {
		return h, err
	}
	p, found, err := getPage(pages, page)
	if err != nil {
		return h, err
	}
	if !found {
		if !site.IsSiteHost(v.RefHost) {
			return h, nil
		}
		made, err := decodeUint64(b.Get(keyPageCount))
		if err != nil {
			return h, err
		}
		if made >= uint64(site.MaxPages) {
			page = counter.OtherPages
			if p, found, err = getPage(pages, page); err != nil {
				return h, err
			}
		} else if err := b.Put(keyPageCount, encodeUint64(made+1)); err != nil {
			return h, err
		}
	}
	var add counter.Page
	add.Views = 1
	if o.PageVisitor {
		add.Visitors = 1
	}
	// A day already folded (a hit that waited past midnight for its
	// batch, a clock set back) goes into the record as well as its day.
	if !found || bytes.Compare(day, folded) <= 0 {
		if !found {
			p = counter.Page{Page: page, FirstSeen: v.Now.UTC().Truncate(time.Second)}
		}
		if bytes.Compare(day, folded) <= 0 {
			p = plus(p, add)
		}
		if err := pages.Put([]byte(page), encodePage(p)); err != nil {
			return h, err
		}
	}
	key := pageDayKey(day, page)
	var views, visitors uint64
	if old := days.Get(key); old != nil {
		if views, visitors, err = decodePageDay(old); err != nil {
			return h, err
		}
	} else if page == counter.OtherPages {
		h.firstCap = true
	}
	if err := days.Put(key, encodePageDay(saturatingAdd(views, add.Views), saturatingAdd(visitors, add.Visitors))); err != nil {
		return h, err
	}
	if p, err = withUnfolded(b, days, folded, p); err != nil {
		return h, err
	}
	h.page, h.row = page, &p
	return h, nil
}

// countPageToday counts a view on page of the site in b in its today rows
// t, as countPage does in its history: it makes the page's record (once in
// the page's life) when the hit came from one of the site's hosts and the
// site has room, or counts it under counter.OtherPages when it has none. A
// hit that may not make the row it needs counts on the site alone (the
// page is ""). It returns the row counted, with all its days, and whether
// the hit was the day's first past the cap.
func countPageToday(b kv.Bucket, t todayRows, site *counter.Site, page string, v Visit) (string, *counter.Page, bool, error) {
	p, found, err := getPage(b.Bucket(bucketPages), page)
	if err != nil {
		return "", nil, false, err
	}
	if !found {
		if !site.IsSiteHost(v.RefHost) {
			return "", nil, false, nil
		}
		made, err := decodeUint64(b.Get(keyPageCount))
		if err != nil {
			return "", nil, false, err
		}
		if made >= uint64(site.MaxPages) {
			page = counter.OtherPages
			if p, found, err = getPage(b.Bucket(bucketPages), page); err != nil {
				return "", nil, false, err
			}
		} else if err := b.Put(keyPageCount, encodeUint64(made+1)); err != nil {
			return "", nil, false, err
		}
	}
	if !found {
		pages, err := b.CreateBucketIfNotExists(bucketPages)
		if err != nil {
			return "", nil, false, err
		}
		p = counter.Page{Page: page, FirstSeen: v.Now.UTC().Truncate(time.Second)}
		if err := pages.Put([]byte(page), encodePage(p)); err != nil {
			return "", nil, false, err
		}
	}
	key := todayKey(t.prefix, todayPage, page)
	var views, visitors uint64
	firstCap := false
	if old := t.bucket.Get(key); old != nil {
		if views, visitors, err = decodePageDay(old); err != nil {
			return "", nil, false, err
		}
	} else if page == counter.OtherPages {
		days := b.Bucket(bucketPageDays)
		firstCap = days == nil || days.Get(pageDayKey(t.day, page)) == nil
	}
	views = saturatingAdd(views, 1)
	if v.Outcome.PageVisitor {
		visitors = saturatingAdd(visitors, 1)
	}
	if err := t.bucket.Put(key, encodePageDay(views, visitors)); err != nil {
		return "", nil, false, err
	}
	if p, err = withUnfolded(b, b.Bucket(bucketPageDays), b.Get(keyPagesFolded), p); err != nil {
		return "", nil, false, err
	}
	p = plus(p, counter.Page{Views: views, Visitors: visitors})
	return page, &p, firstCap, nil
}

// foldPages adds into the page records every page day before day that is
// not in them yet, trims the days folded (pagetrim.go), and returns the
// last day folded ("" for none). It does the work on the first hit of a
// day; the other hits read one key. Its work is the rows of the days not
// folded yet (a day's, as a rule) and at most twice a day's rows of a site
// with maxPages more to trim.
func foldPages(b, pages, days kv.Bucket, day []byte, maxPages int) ([]byte, error) {
	folded := b.Get(keyPagesFolded)
	today, err := parseDay(day)
	if err != nil {
		return nil, err
	}
	yesterday := dayKey(today.AddDate(0, 0, -1))
	if bytes.Compare(folded, yesterday) >= 0 {
		return folded, nil
	}
	c := days.Cursor()
	for k, v := pastFolded(c, folded); k != nil && bytes.Compare(k[:min(len(k), len(day))], day) < 0; k, v = c.Next() {
		d, err := readPageDay(k, v)
		if err != nil {
			return nil, err
		}
		p, found, err := getPage(pages, d.Page)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("%w: a day of page %q, which the site has not", ErrCorrupt, d.Page)
		}
		if err := pages.Put([]byte(d.Page), encodePage(plus(p, counter.Page{Views: d.Views, Visitors: d.Visitors}))); err != nil {
			return nil, err
		}
	}
	if err := b.Put(keyPagesFolded, yesterday); err != nil {
		return nil, err
	}
	if err := trimPages(b, pages, days, 2*(maxPages+1)); err != nil {
		return nil, err
	}
	return yesterday, nil
}

// parseDay reads a day key (2006-01-02): one this package made, or an
// imported history's day, which counter.Imported has checked.
func parseDay(day []byte) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, string(day))
	if err != nil {
		return t, fmt.Errorf("day key %q: %w", day, err)
	}
	return t, nil
}

// pastFolded places c, on a site's page-days, on the first day not
// folded into the pages' records yet, after folded ("" or nil for none),
// and returns its entry.
func pastFolded(c kv.Cursor, folded []byte) (k, v []byte) {
	if folded == nil {
		return c.First()
	}
	return c.Seek(append(bytes.Clone(folded), 0xff)) // past the folded day's pages
}

// plus adds the views and visitors of q to p.
func plus(p, q counter.Page) counter.Page {
	p.Views = saturatingAdd(p.Views, q.Views)
	p.Visitors = saturatingAdd(p.Visitors, q.Visitors)
	return p
}

// withUnfolded adds to p, its record, the page's days after folded: a
// look-up for each day the site has views on since, a day or two.
func withUnfolded(b, days kv.Bucket, folded []byte, p counter.Page) (counter.Page, error) {
	siteDays := b.Bucket(bucketDays)
	if siteDays == nil || days == nil {
		return p, nil
	}
	c := siteDays.Cursor()
	k, _ := c.First()
	if folded != nil {
		if k, _ = c.Seek(folded); bytes.Equal(k, folded) {
			k, _ = c.Next()
		}
	}
	for ; k != nil; k, _ = c.Next() {
		v := days.Get(pageDayKey(k, p.Page))
		if v == nil {
			continue
		}
		views, visitors, err := decodePageDay(v)
		if err != nil {
			return p, err
		}
		p = plus(p, counter.Page{Views: views, Visitors: visitors})
	}
	return p, nil
}

// pageRow reads the row of page with all its days, today's rows t
// included, nil when the site has none.
func pageRow(b kv.Bucket, page string, t todayRows) (*counter.Page, error) {
	pages := b.Bucket(bucketPages)
	if pages == nil {
		return nil, nil
	}
	p, found, err := getPage(pages, page)
	if !found || err != nil {
		return nil, err
	}
	if p, err = withUnfolded(b, b.Bucket(bucketPageDays), b.Get(keyPagesFolded), p); err != nil {
		return nil, err
	}
	q, err := t.page(page)
	p = plus(p, q)
	return &p, err
}

// getPage reads the record of page from pages (nil for none).
func getPage(pages kv.Bucket, page string) (counter.Page, bool, error) {
	if pages == nil {
		return counter.Page{Page: page}, false, nil
	}
	v := pages.Get([]byte(page))
	if v == nil {
		return counter.Page{Page: page}, false, nil
	}
	p, err := decodePage(page, v)
	return p, true, err
}

// saturatingAdd adds, stopping at the largest count rather than wrapping.
func saturatingAdd(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}

// Pages returns the pages of site name with their views and visitors from
// since (inclusive) on, or of all time when since is zero, in no order.
// The OtherPages row is among them when the site has one.
func (db *DB) Pages(name string, since time.Time) ([]counter.Page, error) {
	var list []counter.Page
	err := db.view(func(tx kv.Tx) error {
		b, err := siteBucket(tx, name)
		if err != nil {
			return err
		}
		t, err := loadToday(tx, name)
		if err != nil {
			return err
		}
		list, err = readPages(b, since, t)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: pages of %q: %w", name, err)
	}
	return list, nil
}

// siteBucket returns the bucket of site name, or counter.ErrNotFound, or
// counter.ErrNotSite for a plain counter.
func siteBucket(tx kv.Tx, name string) (kv.Bucket, error) {
	b, err := counterBucket(tx, name)
	if err == nil && b.Get(keyHosts) == nil {
		err = counter.ErrNotSite
	}
	return b, err
}

// readPages reads the pages of the site in b since a day, or all of them,
// with today's rows t. The days since are added up in a map of at most one
// entry per row.
func readPages(b kv.Bucket, since time.Time, t todayRows) ([]counter.Page, error) {
	pages := b.Bucket(bucketPages)
	if pages == nil {
		return nil, nil
	}
	var list []counter.Page
	index := map[string]int{}
	add := func(d counter.PageDay, known bool) error {
		i, ok := index[d.Page]
		switch {
		case !ok && known:
			return fmt.Errorf("%w: a day of page %q, which the site has not", ErrCorrupt, d.Page)
		case !ok:
			i = len(list)
			index[d.Page] = i
			list = append(list, counter.Page{Page: d.Page})
		}
		list[i] = plus(list[i], counter.Page{Views: d.Views, Visitors: d.Visitors})
		return nil
	}
	days := b.Bucket(bucketPageDays)
	var c kv.Cursor
	var k, v []byte
	if days != nil {
		c = days.Cursor()
	}
	if since.IsZero() {
		err := pages.ForEach(func(k, v []byte) error {
			p, err := decodePage(string(k), v)
			index[p.Page] = len(list)
			list = append(list, p)
			return err
		})
		if err != nil {
			return nil, err
		}
		// The days not folded into the records yet: a day or two.
		if c != nil {
			k, v = pastFolded(c, b.Get(keyPagesFolded))
		}
	} else if c != nil {
		k, v = c.Seek(dayKey(since))
	}
	for ; k != nil; k, v = c.Next() {
		d, err := readPageDay(k, v)
		if err != nil {
			return nil, err
		}
		if err := add(d, since.IsZero()); err != nil {
			return nil, err
		}
	}
	if since.IsZero() || t.since(dayKey(since)) {
		err := t.each(todayPage, func(page, v []byte) error {
			d := counter.PageDay{Page: string(page)}
			var err error
			if d.Views, d.Visitors, err = decodePageDay(v); err != nil {
				return err
			}
			return add(d, since.IsZero())
		})
		if err != nil {
			return nil, err
		}
	}
	if !since.IsZero() {
		for i := range list {
			if p, found, err := getPage(pages, list[i].Page); err != nil {
				return nil, err
			} else if found {
				list[i].FirstSeen = p.FirstSeen
			}
		}
	}
	return list, nil
}

// PageHistory returns site name with its page's record and the page's
// views and visitors per UTC day from since (inclusive) on, read in one
// transaction; the history's Count and Visitors are the page's. A page the
// site has no row for is counter.ErrNotFound.
func (db *DB) PageHistory(name, page string, since time.Time) (counter.History, error) {
	var h counter.History
	err := db.view(func(tx kv.Tx) error {
		b, err := siteBucket(tx, name)
		if err != nil {
			return err
		}
		if h.Info, err = readInfo(name, b); err != nil {
			return err
		}
		t, err := loadToday(tx, name)
		if err != nil {
			return err
		}
		row, err := pageRow(b, page, t)
		if err != nil {
			return err
		}
		if row == nil {
			return fmt.Errorf("page %q: %w", page, counter.ErrNotFound)
		}
		h.Count, h.Visitors, h.Created = row.Views, row.Visitors, row.FirstSeen
		if meta := tx.Bucket(bucketMeta); meta != nil {
			if h.TalliedSince, err = decodeTime(meta.Get(keyTalliedSince)); err != nil {
				return err
			}
		}
		h.Days, err = readPageDays(b, page, since, t)
		return err
	})
	if err != nil {
		return h, fmt.Errorf("store: history of %q: %w", name, err)
	}
	return h, nil
}

// readPageDays reads the days of one page, with today's rows t: a look-up
// for each day the site has views on, since every day a page counts on,
// its site counts on.
func readPageDays(b kv.Bucket, page string, since time.Time, t todayRows) ([]counter.Day, error) {
	var days []counter.Day
	siteDays, pageDays := b.Bucket(bucketDays), b.Bucket(bucketPageDays)
	if siteDays != nil && pageDays != nil {
		c := siteDays.Cursor()
		for k, _ := c.Seek(dayKey(since)); k != nil; k, _ = c.Next() {
			v := pageDays.Get(pageDayKey(k, page))
			if v == nil {
				continue
			}
			views, visitors, err := decodePageDay(v)
			if err != nil {
				return nil, err
			}
			days = append(days, counter.Day{Date: string(k), Tally: counter.Tally{Views: views, Visitors: visitors}})
		}
	}
	if !t.since(dayKey(since)) {
		return days, nil
	}
	p, err := t.page(page)
	if err != nil || p.Views == 0 && p.Visitors == 0 {
		return days, err
	}
	return addDay(days, counter.Day{Date: string(t.day), Tally: counter.Tally{Views: p.Views, Visitors: p.Visitors}}), nil
}

// addDay adds d to days, sorted by date: to the day of its date, or as a
// day of its own in its place.
func addDay(days []counter.Day, d counter.Day) []counter.Day {
	i, found := slices.BinarySearchFunc(days, d.Date, func(e counter.Day, date string) int { return strings.Compare(e.Date, date) })
	if !found {
		return slices.Insert(days, i, d)
	}
	days[i].Tally = days[i].Tally.Plus(d.Tally)
	return days
}

// PageDays returns, in one read transaction, up to n page-days of site
// name in the order of the file, by date then page, today's rows among
// them: the first ones when after is the zero PageDay, else the ones
// after its date and page (from its date on when it has no page). Fewer
// than n means there are no more. An export, or the statistics of a
// period, reads a site's history a piece at a time this way, closing the
// file between pieces, so that neither its memory nor the time it holds
// the lock grows with the history; a piece read later sees the hits
// counted since.
func (db *DB) PageDays(name string, after counter.PageDay, n int) ([]counter.PageDay, error) {
	var list []counter.PageDay
	err := db.view(func(tx kv.Tx) error {
		b, err := siteBucket(tx, name)
		if err != nil {
			return err
		}
		var from []byte // the first key past after's: its own, then a zero byte
		if after.Date != "" {
			from = append(pageDayKey([]byte(after.Date), after.Page), 0)
		}
		if days := b.Bucket(bucketPageDays); days != nil {
			c := days.Cursor()
			k, v := c.First()
			if from != nil {
				k, v = c.Seek(from)
			}
			for ; k != nil && len(list) < n; k, v = c.Next() {
				d, err := readPageDay(k, v)
				if err != nil {
					return err
				}
				list = append(list, d)
			}
		}
		t, err := loadToday(tx, name)
		if err != nil {
			return err
		}
		// Today's rows, of one day, sort by page as the file's do: the
		// first n past after's, merged in.
		var today []counter.PageDay
		err = t.each(todayPage, func(page, v []byte) error {
			if len(today) >= n || bytes.Compare(pageDayKey(t.day, string(page)), from) < 0 {
				return nil
			}
			d := counter.PageDay{Date: string(t.day), Page: string(page)}
			var err error
			d.Views, d.Visitors, err = decodePageDay(v)
			today = append(today, d)
			return err
		})
		if err != nil {
			return err
		}
		list = mergeDays(list, today, n)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: page days of %q: %w", name, err)
	}
	return list, nil
}

// mergeDays merges two lists of page-days sorted by date then page,
// adding up the rows of one date and page, and keeps the first n.
func mergeDays(a, b []counter.PageDay, n int) []counter.PageDay {
	if len(b) == 0 {
		return a
	}
	key := func(d counter.PageDay) string { return d.Date + d.Page }
	out := make([]counter.PageDay, 0, min(n, len(a)+len(b)))
	for len(out) < n && (len(a) > 0 || len(b) > 0) {
		switch {
		case len(b) == 0 || len(a) > 0 && key(a[0]) < key(b[0]):
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || key(b[0]) < key(a[0]):
			out, b = append(out, b[0]), b[1:]
		default:
			d := a[0]
			d.Views, d.Visitors = saturatingAdd(d.Views, b[0].Views), saturatingAdd(d.Visitors, b[0].Visitors)
			out, a, b = append(out, d), a[1:], b[1:]
		}
	}
	return out
}

// MergePage folds page from of site name into page to, day by day, and
// removes from; to is made if the site has no row for it. Both are made
// keys by counter.PageKey with the site's settings first. It returns the
// row of to as it ends up. A visitor of both pages on one day counts
// twice in to's visitors of that day: the file never knew who he was.
func (db *DB) MergePage(name, from, to string) (counter.Page, error) {
	var merged counter.Page
	err := db.update(func(tx kv.Tx) error {
		b, err := siteBucket(tx, name)
		if err != nil {
			return err
		}
		s, err := readSite(b)
		if err != nil {
			return err
		}
		if from, err = counter.PageKey(from, s.KeepQuery); err != nil {
			return err
		}
		if to, err = counter.PageKey(to, s.KeepQuery); err != nil {
			return err
		}
		if from == to {
			return fmt.Errorf("%w: %q and %q are one page", counter.ErrPage, from, to)
		}
		pages := b.Bucket(bucketPages)
		if pages == nil {
			return fmt.Errorf("page %q: %w", from, counter.ErrNotFound)
		}
		old, found, err := getPage(pages, from)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("page %q: %w", from, counter.ErrNotFound)
		}
		merged, found, err = getPage(pages, to)
		if err != nil {
			return err
		}
		if !found || old.FirstSeen.Before(merged.FirstSeen) {
			merged.FirstSeen = old.FirstSeen
		}
		merged.Views = saturatingAdd(merged.Views, old.Views)
		merged.Visitors = saturatingAdd(merged.Visitors, old.Visitors)
		if err := pages.Put([]byte(to), encodePage(merged)); err != nil {
			return err
		}
		if err := pages.Delete([]byte(from)); err != nil {
			return err
		}
		if !found {
			// The row moved: the number of pages stays.
		} else if made, err := decodeUint64(b.Get(keyPageCount)); err != nil {
			return err
		} else if made > 0 {
			if err := b.Put(keyPageCount, encodeUint64(made-1)); err != nil {
				return err
			}
		}
		if err := mergePageDays(b, from, to); err != nil {
			return err
		}
		row, err := pageRow(b, to, todayRows{})
		if err == nil {
			merged = *row
		}
		return err
	})
	if err != nil {
		return merged, fmt.Errorf("store: merge pages of %q: %w", name, err)
	}
	return merged, nil
}

// mergePageDays adds every day of page from to page to, and deletes from's.
func mergePageDays(b kv.Bucket, from, to string) error {
	siteDays, pageDays := b.Bucket(bucketDays), b.Bucket(bucketPageDays)
	if siteDays == nil || pageDays == nil {
		return nil
	}
	var dates [][]byte
	err := siteDays.ForEach(func(k, _ []byte) error {
		if pageDays.Get(pageDayKey(k, from)) != nil {
			dates = append(dates, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range dates {
		fromKey, toKey := pageDayKey(d, from), pageDayKey(d, to)
		views, visitors, err := decodePageDay(pageDays.Get(fromKey))
		if err != nil {
			return err
		}
		if old := pageDays.Get(toKey); old != nil {
			v, u, err := decodePageDay(old)
			if err != nil {
				return err
			}
			views, visitors = saturatingAdd(views, v), saturatingAdd(visitors, u)
		}
		if err := pageDays.Put(toKey, encodePageDay(views, visitors)); err != nil {
			return err
		}
		if err := pageDays.Delete(fromKey); err != nil {
			return err
		}
	}
	return nil
}
