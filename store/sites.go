package store

import (
	"bytes"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
)

// A site is a counter with a row per page (doc.go, "Sites"). Its own keys
// keep the site's totals as a plain counter's do; its pages bucket keeps a
// record per page and its page-days bucket a record per page and day.

// readSite reads the settings that only a site has.
func readSite(b *bolt.Bucket) (*counter.Site, error) {
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
	return site, nil
}

// putSite stores the settings that only a site has.
func putSite(b *bolt.Bucket, site counter.Site) error {
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
	return nil
}

// pageHit is what a counted hit did to a site's pages.
type pageHit struct {
	page     string        // the row counted, "" for none
	row      *counter.Page // that row after the hit
	firstCap bool          // the first hit of the day past the cap
}

// countPage counts a view on page (a key made by counter.PageKey) of the
// site in b, making its row when the hit came from one of the site's hosts
// and the site has room, or counting it under counter.OtherPages when it
// has none. A hit that may not make the row it needs counts on the site
// alone.
func countPage(b *bolt.Bucket, site *counter.Site, page string, v Visit, o counter.Outcome) (pageHit, error) {
	var h pageHit
	pages, err := b.CreateBucketIfNotExists(bucketPages)
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
		if !found {
			p = counter.Page{Page: page, FirstSeen: v.Now.UTC().Truncate(time.Second)}
		}
	}
	p.Views = saturatingAdd(p.Views, 1)
	if o.PageVisitor {
		p.Visitors = saturatingAdd(p.Visitors, 1)
	}
	if err := pages.Put([]byte(page), encodePage(p)); err != nil {
		return h, err
	}
	days, err := b.CreateBucketIfNotExists(bucketPageDays)
	if err != nil {
		return h, err
	}
	key := pageDayKey(dayKey(v.Now), page)
	var views, visitors uint64
	old := days.Get(key)
	if old != nil {
		if views, visitors, err = decodePageDay(old); err != nil {
			return h, err
		}
	} else if page == counter.OtherPages {
		h.firstCap = true
	}
	views = saturatingAdd(views, 1)
	if o.PageVisitor {
		visitors = saturatingAdd(visitors, 1)
	}
	if err := days.Put(key, encodePageDay(views, visitors)); err != nil {
		return h, err
	}
	h.page, h.row = page, &p
	return h, nil
}

// pageRow reads the row of page, nil when the site has none.
func pageRow(b *bolt.Bucket, page string) (*counter.Page, error) {
	pages := b.Bucket(bucketPages)
	if pages == nil {
		return nil, nil
	}
	p, found, err := getPage(pages, page)
	if !found || err != nil {
		return nil, err
	}
	return &p, nil
}

func getPage(pages *bolt.Bucket, page string) (counter.Page, bool, error) {
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
	err := db.view(func(tx *bolt.Tx) error {
		b, err := siteBucket(tx, name)
		if err != nil {
			return err
		}
		list, err = readPages(b, since)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: pages of %q: %w", name, err)
	}
	return list, nil
}

// siteBucket returns the bucket of site name, or counter.ErrNotFound, or
// counter.ErrNotSite for a plain counter.
func siteBucket(tx *bolt.Tx, name string) (*bolt.Bucket, error) {
	b, err := counterBucket(tx, name)
	if err == nil && b.Get(keyHosts) == nil {
		err = counter.ErrNotSite
	}
	return b, err
}

// readPages reads the pages of the site in b since a day, or all of them.
// The days since are added up in a map of at most one entry per row.
func readPages(b *bolt.Bucket, since time.Time) ([]counter.Page, error) {
	pages := b.Bucket(bucketPages)
	if pages == nil {
		return nil, nil
	}
	var list []counter.Page
	if since.IsZero() {
		err := pages.ForEach(func(k, v []byte) error {
			p, err := decodePage(string(k), v)
			list = append(list, p)
			return err
		})
		return list, err
	}
	days := b.Bucket(bucketPageDays)
	if days == nil {
		return nil, nil
	}
	index := map[string]int{}
	c := days.Cursor()
	for k, v := c.Seek(dayKey(since)); k != nil; k, v = c.Next() {
		_, page, err := splitPageDayKey(k)
		if err != nil {
			return nil, err
		}
		views, visitors, err := decodePageDay(v)
		if err != nil {
			return nil, err
		}
		i, ok := index[page]
		if !ok {
			i = len(list)
			index[page] = i
			list = append(list, counter.Page{Page: page})
		}
		list[i].Views = saturatingAdd(list[i].Views, views)
		list[i].Visitors = saturatingAdd(list[i].Visitors, visitors)
	}
	for i := range list {
		if p, found, err := getPage(pages, list[i].Page); err != nil {
			return nil, err
		} else if found {
			list[i].FirstSeen = p.FirstSeen
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
	err := db.view(func(tx *bolt.Tx) error {
		b, err := siteBucket(tx, name)
		if err != nil {
			return err
		}
		if h.Info, err = readInfo(name, b); err != nil {
			return err
		}
		row, err := pageRow(b, page)
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
		h.Days, err = readPageDays(b, page, since)
		return err
	})
	if err != nil {
		return h, fmt.Errorf("store: history of %q: %w", name, err)
	}
	return h, nil
}

// readPageDays reads the days of one page: a look-up for each day the site
// has views on, since every day a page counts on, its site counts on.
func readPageDays(b *bolt.Bucket, page string, since time.Time) ([]counter.Day, error) {
	siteDays, pageDays := b.Bucket(bucketDays), b.Bucket(bucketPageDays)
	if siteDays == nil || pageDays == nil {
		return nil, nil
	}
	var days []counter.Day
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
	return days, nil
}

// EachPageDay calls fn with every page's every day of site name, by date
// then page, within one read transaction.
func (db *DB) EachPageDay(name string, fn func(counter.PageDay) error) error {
	err := db.view(func(tx *bolt.Tx) error {
		b, err := siteBucket(tx, name)
		if err != nil {
			return err
		}
		days := b.Bucket(bucketPageDays)
		if days == nil {
			return nil
		}
		return days.ForEach(func(k, v []byte) error {
			date, page, err := splitPageDayKey(k)
			if err != nil {
				return err
			}
			views, visitors, err := decodePageDay(v)
			if err != nil {
				return err
			}
			return fn(counter.PageDay{Date: date, Page: page, Views: views, Visitors: visitors})
		})
	})
	if err != nil {
		return fmt.Errorf("store: page days of %q: %w", name, err)
	}
	return nil
}

// MergePage folds page from of site name into page to, day by day, and
// removes from; to is made if the site has no row for it. Both are made
// keys by counter.PageKey with the site's settings first. It returns the
// row of to as it ends up. A visitor of both pages on one day counts
// twice in to's visitors of that day: the file never knew who he was.
func (db *DB) MergePage(name, from, to string) (counter.Page, error) {
	var merged counter.Page
	err := db.update(func(tx *bolt.Tx) error {
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
		return mergePageDays(b, from, to)
	})
	if err != nil {
		return merged, fmt.Errorf("store: merge pages of %q: %w", name, err)
	}
	return merged, nil
}

// mergePageDays adds every day of page from to page to, and deletes from's.
func mergePageDays(b *bolt.Bucket, from, to string) error {
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
