package store

import (
	"bytes"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
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
	var g Glance
	err := db.view(func(tx *bolt.Tx) error {
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
		return nil
	})
	if err != nil {
		return g, fmt.Errorf("store: counter %q: %w", name, err)
	}
	return g, nil
}

// readDay reads one UTC day of a counter: its views and its tally.
func readDay(b *bolt.Bucket, day []byte) (counter.Tally, error) {
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
