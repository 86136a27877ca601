package store

import (
	"bytes"
	"fmt"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// Glance is what a counter shows without counting: its totals, today's
// figures and the figure its image would show; on a site, those of one
// page too.
type Glance struct {
	counter.Info
	// Today holds the views, visitors and hits not counted of the UTC day
	// of the glance.
	Today counter.Tally
	// Shown is the figure the counter's image shows, as Counted.Shown
	// would after a hit that did not count.
	Shown uint64
	// Page is, on a site, the page asked for with its figures of all
	// time, and PageToday its views and visitors today; Page is nil when
	// no page was asked for, when the target makes no page key, or when
	// the site has no row for it.
	Page      *counter.Page
	PageToday counter.Tally
}

// Glance reads counter name as it stands at now, counting nothing. On a
// site, target ("" for none) names a page as a hit's would, and image
// (nil for the site's setting) says whether the image shows the page's
// figure or the site's.
func (db *DB) Glance(name, target string, image *counter.Image, now time.Time) (Glance, error) {
	g, _, err := db.GlancePages(name, target, image, nil, now)
	return g, err
}

// MaxPagesRead bounds the pages that one read of many pages names: an
// index page's list of posts.
const MaxPagesRead = 100

// PageCount is one page's views and visitors of all time, as a read of
// many pages gives them: zeros for a page the site has not counted, or a
// path that makes no page key.
type PageCount struct {
	Page     string // as asked for
	Views    uint64
	Visitors uint64
}

// GlancePages is Glance, and, in the same read transaction, the views and
// visitors of each of pages (at most MaxPagesRead) in their order: on a
// site, each page's; on a plain counter, which has no pages, zeros.
func (db *DB) GlancePages(name, target string, image *counter.Image, pages []string, now time.Time) (Glance, []PageCount, error) {
	var g Glance
	if len(pages) > MaxPagesRead {
		return g, nil, fmt.Errorf("store: counter %q: %d pages, more than %d", name, len(pages), MaxPagesRead)
	}
	var counts []PageCount
	err := db.view(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		if g.Info, err = readInfo(name, b); err != nil {
			return err
		}
		t, err := loadToday(tx, name)
		if err != nil {
			return err
		}
		today := dayKey(now)
		if g.Today, err = readDay(b, today); err != nil {
			return err
		}
		if bytes.Equal(t.day, today) {
			g.Today = g.Today.Plus(t.counts)
		}
		s := g.Settings
		if s.Site != nil && target != "" {
			page, err := counter.PageKey(target, s.Site.KeepQuery)
			if err == nil {
				if g.Page, err = pageRow(b, page, t); err != nil {
					return err
				}
			}
			if g.Page != nil {
				if v := b.Bucket(bucketPageDays); v != nil {
					if rec := v.Get(pageDayKey(today, page)); rec != nil {
						if g.PageToday.Views, g.PageToday.Visitors, err = decodePageDay(rec); err != nil {
							return err
						}
					}
				}
				if bytes.Equal(t.day, today) {
					p, err := t.page(page)
					if err != nil {
						return err
					}
					g.PageToday.Views, g.PageToday.Visitors = saturatingAdd(g.PageToday.Views, p.Views), saturatingAdd(g.PageToday.Visitors, p.Visitors)
				}
			}
		}
		g.Shown = shown(s, image, g.Page, g.Count, g.Visitors)
		counts, err = listPages(b, s, t, pages)
		return err
	})
	if err != nil {
		return g, nil, fmt.Errorf("store: counter %q: %w", name, err)
	}
	return g, counts, nil
}

// listPages reads each of pages' views and visitors on a counter with
// settings s, today's rows t added: zeros on a plain counter, or for a
// page the site has no row of.
func listPages(b kv.Bucket, s counter.Settings, t todayRows, pages []string) ([]PageCount, error) {
	if len(pages) == 0 {
		return nil, nil
	}
	if len(pages) > MaxPagesRead {
		return nil, fmt.Errorf("%d pages, more than %d", len(pages), MaxPagesRead)
	}
	counts := make([]PageCount, len(pages))
	for i, target := range pages {
		counts[i].Page = target
		if s.Site == nil {
			continue
		}
		page, err := counter.PageKey(target, s.Site.KeepQuery)
		if err != nil {
			continue
		}
		row, err := pageRow(b, page, t)
		if err != nil {
			return nil, err
		}
		if row != nil {
			counts[i].Views, counts[i].Visitors = row.Views, row.Visitors
		}
	}
	return counts, nil
}

// Figures are the Figures a glance read.
func (g Glance) Figures() Figures {
	return figures(g.Settings, g.Page, g.Count, g.Visitors)
}

// readDay reads one UTC day of a counter: its views and its tally.
func readDay(b kv.Bucket, day []byte) (counter.Tally, error) {
	var t counter.Tally
	if d := b.Bucket(bucketDays); d != nil {
		n, err := decodeUint64(d.Get(day))
		if err != nil {
			return t, err
		}
		t.Views = n
	}
	if d := b.Bucket(bucketTally); d != nil {
		if rec := d.Get(day); rec != nil {
			if err := decodeTally(rec, &t); err != nil {
				return t, err
			}
		}
	}
	return t, nil
}
