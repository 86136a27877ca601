package store

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store/kv"
)

// The owner's overview and report read every counter at once. What one
// read holds is bounded by the number of counters, not by their history:
// each counter's days are summed into its periods as they are read, and
// only the first-ranked of its pages and sources are kept.

// MaxOverviewTop bounds the top lists of an overview: a counter's pages
// and sources, and those across counters.
const MaxOverviewTop = 20

// Overview is every counter's recent figures and what the owner should
// know of the file, as one read transaction saw them.
type Overview struct {
	// Counters are every counter, sorted by name.
	Counters []CounterOverview
	// Pages are the most viewed pages of every site over the report's
	// period, most first; Sources the sources of every counter, of all
	// time (sources are not kept by day), most first, with OtherSources
	// the views of the rest.
	Pages        []SitePage
	Sources      []counter.Referrer
	OtherSources uint64
	// Size is the file's size in bytes, or a cluster member's (sizeOf).
	Size int64
	// Cap is the size past which a cluster takes no writes (its
	// quota); 0 for a file, whose cap is the owner's setting.
	Cap int64
	// LastBackup is when the backup command last wrote a checked copy;
	// zero for never.
	LastBackup time.Time
	// TalliedSince is when visitors and the hits not counted began to be
	// kept; zero if unknown.
	TalliedSince time.Time
	// CostWarnings are the warnings of the cost meter, as kept.
	CostWarnings []string
}

// CounterOverview is one counter in an overview.
type CounterOverview struct {
	counter.Info
	counter.Periods
	// Pages, on a site, are its most viewed pages over the report's
	// period; Sources its sources of all time, with OtherSources the
	// views of the rest.
	Pages        []counter.Page
	Sources      []counter.Referrer
	OtherSources uint64
}

// SitePage is a page of a site.
type SitePage struct {
	Site string
	counter.Page
}

// Overview reads every counter's periods as of now, with a report period
// of days days (at most counter.MaxReportDays), and top lists of at most n
// entries (at most MaxOverviewTop), in one read transaction.
func (db *DB) Overview(now time.Time, days, n int) (Overview, error) {
	var o Overview
	if days < 1 || days > counter.MaxReportDays || n < 0 || n > MaxOverviewTop {
		return o, fmt.Errorf("store: overview of %d days, top %d: out of bounds", days, n)
	}
	cal := counter.NewCalendar(now, days)
	topSince := dayKey(now.AddDate(0, 0, 1-days))
	sources := map[string]uint64{}
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		o.Size, o.Cap = sizeOf(tx), capOf(db.eng)
		if meta := tx.Bucket(bucketMeta); meta != nil {
			var err error
			if o.TalliedSince, err = decodeTime(meta.Get(keyTalliedSince)); err != nil {
				return err
			}
			if o.LastBackup, err = decodeTime(meta.Get(keyLastBackup)); err != nil {
				return err
			}
		}
		if c := tx.Bucket(bucketCosts); c != nil {
			o.CostWarnings = meter.DecodeWarnings(c.Get(keyCostWarnings))
		}
		all := tx.Bucket(bucketCounters)
		if all == nil {
			return nil
		}
		o.Counters = make([]CounterOverview, 0, 64)
		return all.ForEachBucket(func(k []byte) error {
			c, srcs, err := overviewOf(tx, all.Bucket(k), string(k), cal, topSince, n)
			if err != nil {
				return fmt.Errorf("%q: %w", k, err)
			}
			for _, p := range c.Pages {
				o.Pages = append(o.Pages, SitePage{c.Name, p})
			}
			o.Pages = topSitePages(o.Pages, n)
			for _, s := range srcs {
				sources[s.Host] = counter.AddCount(sources[s.Host], s.Hits)
			}
			o.Counters = append(o.Counters, c)
			return nil
		})
	})
	if err != nil {
		return o, fmt.Errorf("store: overview: %w", err)
	}
	list := make([]counter.Referrer, 0, len(sources))
	for host, hits := range sources {
		list = append(list, counter.Referrer{Host: host, Hits: hits})
	}
	o.Sources, o.OtherSources = counter.TopHosts(list, n, counter.OtherSources)
	return o, nil
}

// overviewOf reads counter name, of bucket b, into its overview, and
// returns its sources, all of them, for the sums across counters.
func overviewOf(tx kv.Tx, b kv.Bucket, name string, cal counter.Calendar, topSince []byte, n int) (CounterOverview, []counter.Referrer, error) {
	var c CounterOverview
	var err error
	if c.Info, err = readInfo(name, b); err != nil {
		return c, nil, err
	}
	t, err := loadToday(tx, name)
	if err != nil {
		return c, nil, err
	}
	if c.Periods, err = sumDays(b, cal, t); err != nil {
		return c, nil, err
	}
	srcs, err := readHosts(b, t, bucketSources, todaySource)
	if err != nil {
		return c, nil, err
	}
	c.Sources, c.OtherSources = counter.TopHosts(srcs, n, counter.OtherSources)
	if c.Settings.Site != nil && n > 0 {
		if c.Pages, err = readTop(b, t, topSince, n); err != nil {
			return c, nil, err
		}
	}
	return c, srcs, nil
}

// sumDays adds a counter's days, of bucket b and today's rows t, into its
// periods, a record at a time: none of its days is held.
func sumDays(b kv.Bucket, cal counter.Calendar, t todayRows) (counter.Periods, error) {
	p := counter.Periods{N: cal.N()}
	from := []byte(cal.Since())
	if d := b.Bucket(bucketDays); d != nil {
		c := d.Cursor()
		for k, v := c.Seek(from); k != nil; k, v = c.Next() {
			n, err := decodeUint64(v)
			if err != nil {
				return p, err
			}
			cal.Add(&p, string(k), counter.Tally{Views: n})
		}
	}
	if d := b.Bucket(bucketTally); d != nil {
		c := d.Cursor()
		for k, v := c.Seek(from); k != nil; k, v = c.Next() {
			var day counter.Tally
			if err := decodeTally(v, &day); err != nil {
				return p, err
			}
			cal.Add(&p, string(k), day)
		}
	}
	if t.since(from) {
		cal.Add(&p, string(t.day), t.counts)
	}
	return p, nil
}

// topSitePages ranks pages of several sites, most viewed first (ties to
// more visitors, then to the site and the page), and keeps the n first.
func topSitePages(pages []SitePage, n int) []SitePage {
	slices.SortFunc(pages, func(a, b SitePage) int {
		if c := cmp.Compare(b.Views, a.Views); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Visitors, a.Visitors); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Site, b.Site), cmp.Compare(a.Page.Page, b.Page.Page))
	})
	return pages[:min(n, len(pages))]
}

// RecordBackup notes that a checked copy of the file was written at t.
func (db *DB) RecordBackup(t time.Time) error {
	err := db.write(func(tx kv.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyLastBackup, encodeTime(t))
	})
	if err != nil {
		return fmt.Errorf("store: record backup: %w", err)
	}
	return nil
}
