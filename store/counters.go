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

// Visit is one hit to count: on counter Name at Now, from a page on
// RefHost ("" when unknown).
type Visit struct {
	Name    string
	Now     time.Time
	RefHost string
	// Source is the host of the page's own document.referrer, as NAME.js
	// sends it ("" for none or from an image): it adds to the sources.
	Source string
	// Target is, on a site, the page that showed the image as the tag or
	// the Referer gives it ("/posts/hello/?utm_source=x"), made a key by
	// counter.PageKey with the site's settings; "" when unknown. A plain
	// counter ignores it.
	Target string
	// Image, when set, overrides what a site's image shows.
	Image *counter.Image
	// Outcome is what the hit is, judged before its transaction from
	// the counter's settings that HitFacts read (see DB.HitFacts): the zero
	// Outcome is a plain view.
	Outcome counter.Outcome
	// Set is the digit set the tag names (theme=NAME), "" for none: one
	// the file does not hold fails the hit with counter.ErrNoDigitSet, in
	// its transaction, before anything is written.
	Set string
	// List names pages whose views and visitors the hit's answer gives
	// too (an index page's posts, which the script shows), read in the
	// hit's transaction into Counted.Listed.
	List []string
	// Joined is the other request of a view already counted (the
	// script's count of a page whose image came first): it adds its
	// Source alone, as that view's, and counts nothing else (no view,
	// visitor, referrer, page or tally row; Outcome is ignored), and reads
	// what a hit shows, that view in it.
	Joined bool
}

// Counted is what became of a hit.
type Counted struct {
	counter.Outcome
	// Shown is the figure the counter's image shows after the hit: its
	// views or its visitors, as its settings say (Show); on a site, the
	// page's or the site's.
	Shown uint64
	Show  counter.Show
	// Theme is the counter's default theme (its setting theme=).
	Theme string
	// Page is, on a site, the row the hit counted on or showed: a page,
	// counter.OtherPages, or "" for the site alone.
	Page string
	// PageErr says why a site's Target made no page key.
	PageErr error
	// FirstPastCap is set on the first hit of a UTC day that a site
	// counted under counter.OtherPages because it had no room for a page.
	FirstPastCap bool
	// FirstToday is set on the counter's first view of the UTC day: what
	// goes wrong on every hit is worth a log line on this one alone.
	FirstToday bool
	// Figures are the counter's and the page's views and visitors after
	// the hit, for the script's answer; Listed those of Visit.List.
	Figures Figures
	Listed  []PageCount

	// settings are the counter's as the hit's transaction read them, for
	// the Batcher's cache of what hits are judged by.
	settings counter.Settings
}

// Hit counts one plain view on counter name at time now, from a page on
// refHost ("" when unknown), and returns the new total.
func (db *DB) Hit(name string, now time.Time, refHost string) (uint64, error) {
	c, err := db.Visit(Visit{Name: name, Now: now, RefHost: refHost})
	return c.Shown, err
}

// Visit counts or tallies one hit. The total, the day, the tally and the
// referrer change together in one transaction or not at all.
func (db *DB) Visit(v Visit) (Counted, error) {
	var c Counted
	err := db.write(func(tx kv.Tx) (err error) {
		c, err = visitTx(tx, v)
		return err
	})
	if err != nil {
		return c, fmt.Errorf("store: hit %q: %w", v.Name, err)
	}
	return c, nil
}

// VisitAll counts or tallies many hits in one transaction, all or none:
// for a history made at once (a benchmark's, or an import's), not for
// hits that are answered one by one.
func (db *DB) VisitAll(visits []Visit) ([]Counted, error) {
	out := make([]Counted, 0, len(visits))
	err := db.write(func(tx kv.Tx) error {
		out = out[:0]
		for _, v := range visits {
			c, err := visitTx(tx, v)
			if err != nil {
				return fmt.Errorf("hit %q: %w", v.Name, err)
			}
			out = append(out, c)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: %d hits: %w", len(visits), err)
	}
	return out, nil
}

// HitFacts is what a hit is judged by, read before its write
// transaction: the counter's settings, the key that signs owner cookies
// (nil until the first is made) and, on a site, the key of the page.
type HitFacts struct {
	Settings counter.Settings
	OwnerKey []byte
	// Page is, on a site, the key of the hit's page as visitTx will
	// count it; "" when none.
	Page string
}

// HitFacts reads, in a read transaction, what hit v is judged by, so that
// the judging (the visitor table's file and its lock) happens before the
// write transaction opens and never while it holds the file. A counter
// that does not exist fails with counter.ErrNotFound.
func (db *DB) HitFacts(v Visit) (HitFacts, error) {
	var j HitFacts
	err := db.view(func(tx kv.Tx) error {
		b, err := counterBucket(tx, v.Name)
		if err != nil {
			return err
		}
		if j.Settings, err = readSettings(b); err != nil {
			return err
		}
		if meta := tx.Bucket(bucketMeta); meta != nil {
			if k := meta.Get(keyOwnerKey); k != nil {
				j.OwnerKey = slices.Clone(k)
			}
		}
		j.Page, _ = pageOf(j.Settings, v)
		return nil
	})
	if err != nil {
		return j, fmt.Errorf("store: hit %q: %w", v.Name, err)
	}
	return j, nil
}

// pageOf is the key of the page of hit v on a counter with settings s:
// on a site, a page on its own hosts, or one the tag names where the
// Referer was withheld; a page elsewhere is none of the site's. It is ""
// on a plain counter, or with an error when v.Target makes no key.
func pageOf(s counter.Settings, v Visit) (string, error) {
	if s.Site != nil && v.Target != "" && (v.RefHost == "" || s.Site.IsSiteHost(v.RefHost)) {
		return counter.PageKey(v.Target, s.Site.KeepQuery)
	}
	return "", nil
}

// visitTx counts one hit within tx. A counter that does not exist fails
// with counter.ErrNotFound before anything is written. A hit of the day of
// the today bucket's rows (or of a later day, which folds them first) goes
// into that bucket; a hit of an earlier day, or on a site whose pages are
// folded up to its day, goes into the history itself.
func visitTx(tx kv.Tx, v Visit) (Counted, error) {
	var c Counted
	b, err := counterBucket(tx, v.Name)
	if err != nil {
		return c, err
	}
	s, err := readSettings(b)
	if err != nil {
		return c, err
	}
	if v.Set != "" && digitSetBucket(tx, v.Set) == nil {
		return c, counter.ErrNoDigitSet
	}
	c.Show, c.Theme, c.settings = s.Show, s.Theme, s
	var page string
	page, c.PageErr = pageOf(s, v)
	c.Outcome = v.Outcome
	if v.Joined {
		// Its view, the other request's, counted already.
		c.Outcome = counter.Outcome{Kind: counter.View}
	}
	day := dayKey(v.Now)
	tb, err := todayFor(tx, day, v.Name)
	if err != nil {
		return c, err
	}
	if tb != nil && s.Site != nil {
		// A site's first hit of a day folds its page-days before the day
		// into its pages' records and trims them, as before version 6;
		// its other hits read one key.
		if pages, days := b.Bucket(bucketPages), b.Bucket(bucketPageDays); pages != nil && days != nil {
			if _, err := foldPages(b, pages, days, day, s.Site.MaxPages); err != nil {
				return c, err
			}
		}
	}
	if tb == nil || (s.Site != nil && bytes.Compare(day, b.Get(keyPagesFolded)) <= 0) {
		c, err = visitPast(tx, b, s, page, v, c)
	} else {
		c, err = visitToday(tb, b, s, page, v, c)
	}
	if err == nil && len(v.List) > 0 {
		var t todayRows
		if t, err = loadToday(tx, v.Name); err == nil {
			c.Listed, err = listPages(b, s, t, v.List)
		}
	}
	return c, err
}

// Figures are a counter's views and visitors, and a page's: on a plain
// counter, the counter's; on a site, the page's row's, zero for none.
type Figures struct {
	Views, Visitors         uint64
	PageViews, PageVisitors uint64
}

// figures are the Figures of a counter with settings s, its totals and
// the page's row (nil for none).
func figures(s counter.Settings, row *counter.Page, views, visitors uint64) Figures {
	f := Figures{Views: views, Visitors: visitors, PageViews: views, PageVisitors: visitors}
	if s.Site != nil {
		f.PageViews, f.PageVisitors = 0, 0
		if row != nil {
			f.PageViews, f.PageVisitors = row.Views, row.Visitors
		}
	}
	return f
}

// visitToday counts a hit of the today bucket's day in that bucket.
func visitToday(tb, b kv.Bucket, s counter.Settings, page string, v Visit, c Counted) (Counted, error) {
	t := todayRows{day: tb.Get(keyTodayDay), bucket: tb, prefix: todayPrefix(v.Name)}
	if old := tb.Get(t.prefix); old != nil {
		if err := decodeToday(old, &t.counts); err != nil {
			return c, err
		}
	}
	if !v.Joined {
		t.counts.Add(c.Outcome)
		if err := tb.Put(t.prefix, encodeToday(t.counts)); err != nil {
			return c, err
		}
	}
	views, visitors, err := readTotals(b)
	if err != nil {
		return c, err
	}
	views, visitors = saturatingAdd(views, t.counts.Views), saturatingAdd(visitors, t.counts.Visitors)
	if c.Kind.Counts() && !v.Joined {
		past, err := readDay(b, t.day)
		if err != nil {
			return c, err
		}
		c.FirstToday = saturatingAdd(past.Views, t.counts.Views) == 1
		if v.RefHost != "" {
			if err := addTodayHost(b, t, todayReferrer, bucketReferrers, v.RefHost); err != nil {
				return c, err
			}
		}
	}
	if c.Kind.Counts() {
		if src := s.Source(v.Source, v.RefHost); src != "" {
			if err := addTodayHost(b, t, todaySource, bucketSources, src); err != nil {
				return c, err
			}
		}
	}
	if s.Site == nil {
		c.Shown, c.Figures = shown(s, nil, nil, views, visitors), figures(s, nil, views, visitors)
		return c, nil
	}
	var row *counter.Page
	switch {
	case page == "":
	case c.Kind.Counts() && !v.Joined:
		if c.Page, row, c.FirstPastCap, err = countPageToday(b, t, s.Site, page, v); err != nil {
			return c, err
		}
	default:
		if row, err = pageRow(b, page, t); err != nil {
			return c, err
		}
		if row != nil {
			c.Page = page
		}
	}
	c.Shown, c.Figures = shown(s, v.Image, row, views, visitors), figures(s, row, views, visitors)
	return c, nil
}

// visitPast counts a hit in the counter's history, as every hit was
// counted before version 6. What it shows adds the today bucket's rows,
// of a later day.
func visitPast(tx kv.Tx, b kv.Bucket, s counter.Settings, page string, v Visit, c Counted) (Counted, error) {
	t, err := loadToday(tx, v.Name)
	if err != nil {
		return c, err
	}
	views, visitors, err := readTotals(b)
	if err != nil {
		return c, err
	}
	switch {
	case v.Joined:
		if src := s.Source(v.Source, v.RefHost); src != "" {
			if err := addHost(b, bucketSources, src, 1); err != nil {
				return c, err
			}
		}
	case c.Kind.Counts():
		if views, err = addTo(b, keyTotal, 1); err != nil {
			return c, err
		}
		today, err := addToBucket(b, bucketDays, dayKey(v.Now))
		if err != nil {
			return c, err
		}
		c.FirstToday = today == 1
		if v.RefHost != "" {
			if err := addHost(b, bucketReferrers, v.RefHost, 1); err != nil {
				return c, err
			}
		}
		if src := s.Source(v.Source, v.RefHost); src != "" {
			if err := addHost(b, bucketSources, src, 1); err != nil {
				return c, err
			}
		}
		if c.NewVisitor {
			if visitors, err = addTo(b, keyVisitors, 1); err != nil {
				return c, err
			}
		}
	}
	if !v.Joined && (c.Kind != counter.View || c.NewVisitor) {
		if err := addTally(b, dayKey(v.Now), c.Outcome); err != nil {
			return c, err
		}
	}
	views, visitors = saturatingAdd(views, t.counts.Views), saturatingAdd(visitors, t.counts.Visitors)
	if s.Site != nil {
		return c, sitePage(b, t, s, page, v, &c, views, visitors)
	}
	c.Shown, c.Figures = shown(s, nil, nil, views, visitors), figures(s, nil, views, visitors)
	return c, nil
}

// sitePage counts a site's hit on its page, when it counted and has one,
// and sets what the image shows: the page's figure, or the site's when
// the image is the site's or the hit has no row.
func sitePage(b kv.Bucket, t todayRows, s counter.Settings, page string, v Visit, c *Counted, views, visitors uint64) error {
	var row *counter.Page
	var err error
	switch {
	case page == "":
	case c.Kind.Counts() && !v.Joined:
		var h pageHit
		if h, err = countPage(b, s.Site, page, v, c.Outcome); err != nil {
			return err
		}
		c.Page, row, c.FirstPastCap = h.page, h.row, h.firstCap
		if row != nil {
			p, err := t.page(h.page)
			if err != nil {
				return err
			}
			*row = plus(*row, p)
		}
	default:
		if row, err = pageRow(b, page, t); err != nil {
			return err
		}
		if row != nil {
			c.Page = page
		}
	}
	c.Shown, c.Figures = shown(s, v.Image, row, views, visitors), figures(s, row, views, visitors)
	return nil
}

// shown is the figure a counter's image shows: its views or its
// visitors, as its settings say; on a site, those of the page of row when
// the image is the page's (the settings', or image when set) and the hit
// has a row of its own.
func shown(s counter.Settings, image *counter.Image, row *counter.Page, views, visitors uint64) uint64 {
	if s.Site != nil {
		img := s.Site.Image
		if image != nil {
			img = *image
		}
		if row != nil && row.Page != counter.OtherPages && img == counter.PageImage {
			views, visitors = row.Views, row.Visitors
		}
	}
	if s.Show == counter.ShowVisitors {
		return visitors
	}
	return views
}

// addTally adds outcome o to the tally record of day.
func addTally(parent kv.Bucket, day []byte, o counter.Outcome) error {
	b, err := parent.CreateBucketIfNotExists(bucketTally)
	if err != nil {
		return err
	}
	var t counter.Tally
	if old := b.Get(day); old != nil {
		if err := decodeTally(old, &t); err != nil {
			return err
		}
	}
	t.Add(o)
	if err := b.Put(day, encodeTally(t)); err != nil {
		return err
	}
	var added counter.Tally
	added.Add(o)
	return addNotCounted(parent, added)
}

// addTo adds n to the count under key in b, stopping at the largest count
// rather than wrapping to zero, and returns the new count.
func addTo(b kv.Bucket, key []byte, n uint64) (uint64, error) {
	old, err := decodeUint64(b.Get(key))
	if err != nil {
		return 0, err
	}
	sum := old + n
	if sum < old {
		sum = ^uint64(0)
	}
	return sum, b.Put(key, encodeUint64(sum))
}

// addToBucket adds one to the count under key in the bucket of that name
// in parent, and returns the new count.
func addToBucket(parent kv.Bucket, bucket, key []byte) (uint64, error) {
	b, err := parent.CreateBucketIfNotExists(bucket)
	if err != nil {
		return 0, err
	}
	return addTo(b, key, 1)
}

// addHost counts n views from host in the referrers or the sources
// (bucket), or under counter.OtherReferrers once counter.MaxReferrers
// hosts are known (counter.MaxSources and counter.OtherSources are the
// same).
func addHost(parent kv.Bucket, bucket []byte, host string, n uint64) error {
	b, err := parent.CreateBucketIfNotExists(bucket)
	if err != nil {
		return err
	}
	key := []byte(host)
	if b.Get(key) == nil && countHosts(b, counter.MaxReferrers) >= counter.MaxReferrers {
		key = []byte(counter.OtherReferrers)
	}
	_, err = addTo(b, key, n)
	return err
}

// countHosts counts the hosts of referrers bucket b, up to limit, not
// counter.OtherReferrers, which is made only past them: so that a fold,
// which adds the day's OtherReferrers before its hosts (it sorts first),
// keeps the hosts a hit at a time kept. Unlike b.Stats(), which reads the
// pages as last committed, it sees what this transaction wrote: the hosts
// a batch or a fold added before.
func countHosts(b kv.Bucket, limit int) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil && n < limit; k, _ = c.Next() {
		if string(k) != counter.OtherReferrers {
			n++
		}
	}
	return n
}

// addTodayHost counts a view from host in the today bucket, in its rows
// of kind (todayReferrer, todaySource) that fold into bucket, under
// counter.OtherReferrers once the history's hosts and the day's new ones
// are counter.MaxReferrers, as addHost will count it when the day is
// folded.
func addTodayHost(b kv.Bucket, t todayRows, kind byte, bucket []byte, host string) error {
	key := todayKey(t.prefix, kind, host)
	if t.bucket.Get(key) == nil {
		past := b.Bucket(bucket)
		if past == nil || past.Get([]byte(host)) == nil {
			n := 0
			if past != nil {
				n = countHosts(past, counter.MaxReferrers)
			}
			err := t.each(kind, func(rest, _ []byte) error {
				if string(rest) != counter.OtherReferrers && (past == nil || past.Get(rest) == nil) {
					n++
				}
				return nil
			})
			if err != nil {
				return err
			}
			if n >= counter.MaxReferrers {
				key = todayKey(t.prefix, kind, counter.OtherReferrers)
			}
		}
	}
	_, err := addTo(t.bucket, key, 1)
	return err
}

// Counter returns what is known about counter name.
func (db *DB) Counter(name string) (counter.Info, error) {
	var info counter.Info
	err := db.view(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		info, err = readInfo(name, b)
		return err
	})
	if err != nil {
		return info, fmt.Errorf("store: counter %q: %w", name, err)
	}
	return info, nil
}

// readTotals reads the views and visitors of a counter's history from its
// bucket b, without its rows in the today bucket.
func readTotals(b kv.Bucket) (views, visitors uint64, err error) {
	if views, err = decodeUint64(b.Get(keyTotal)); err != nil {
		return 0, 0, err
	}
	visitors, err = decodeUint64(b.Get(keyVisitors))
	return views, visitors, err
}

// readInfo reads counter name from its bucket b; its views and visitors
// add its rows in the today bucket to its history's.
func readInfo(name string, b kv.Bucket) (counter.Info, error) {
	info := counter.Info{Name: name}
	t, err := loadToday(b.Tx(), name)
	if err != nil {
		return info, err
	}
	if info.Count, info.Visitors, err = readTotals(b); err != nil {
		return info, err
	}
	info.Count, info.Visitors = saturatingAdd(info.Count, t.counts.Views), saturatingAdd(info.Visitors, t.counts.Visitors)
	if info.Created, err = decodeTime(b.Get(keyCreated)); err != nil {
		return info, err
	}
	if info.Pages, err = decodeUint64(b.Get(keyPageCount)); err != nil {
		return info, err
	}
	if h := b.Get(keyPassword); len(h) > 0 {
		info.PasswordHash = bytes.Clone(h)
	}
	info.Settings, err = readSettings(b)
	return info, err
}

// readSettings reads a counter's settings; a key not set keeps its default.
func readSettings(b kv.Bucket) (counter.Settings, error) {
	s := counter.DefaultSettings()
	switch v := b.Get(keyShow); {
	case v == nil || bytes.Equal(v, showViews):
	case bytes.Equal(v, showVisitors):
		s.Show = counter.ShowVisitors
	default:
		return s, fmt.Errorf("%w: show %q", ErrCorrupt, v)
	}
	if v := b.Get(keyReload); v != nil {
		n, err := decodeUint64(v)
		if err != nil {
			return s, err
		}
		if s.Reload, err = counter.ReloadFromSeconds(n); err != nil {
			return s, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
	}
	var err error
	if s.Ignore, err = counter.DecodeIgnore(b.Get(keyIgnore)); err != nil {
		return s, fmt.Errorf("%w: ignore list: %w", ErrCorrupt, err)
	}
	if s.Referrers, err = counter.DecodeReferrers(b.Get(keyAllowReferrer)); err != nil {
		return s, fmt.Errorf("%w: referrer list: %w", ErrCorrupt, err)
	}
	if v := b.Get(keyTheme); len(v) > 0 {
		if err := counter.CheckThemeDefault(string(v)); err != nil {
			return s, fmt.Errorf("%w: theme: %w", ErrCorrupt, err)
		}
		s.Theme = string(v)
	}
	if b.Get(keyHosts) != nil {
		s.Site, err = readSite(b)
	}
	return s, err
}

// putSettings stores s in a counter's bucket; a setting at its default is
// stored all the same, so that the file says what the counter does. A
// default theme must be a look or a set the file holds.
func putSettings(b kv.Bucket, s counter.Settings) error {
	if s.Theme != "" && !counter.IsLook(s.Theme) && digitSetBucket(b.Tx(), s.Theme) == nil {
		return fmt.Errorf("%w theme=%s: %w (digitset list shows them)", counter.ErrSetting, s.Theme, counter.ErrNoDigitSet)
	}
	show := showViews
	if s.Show == counter.ShowVisitors {
		show = showVisitors
	}
	for _, kv := range []struct{ k, v []byte }{
		{keyShow, show},
		{keyReload, encodeUint64(s.ReloadSeconds())},
		{keyIgnore, counter.EncodeList(s.IgnoreLines())},
		{keyAllowReferrer, counter.EncodeList(s.Referrers)},
		{keyTheme, []byte(s.Theme)},
	} {
		if err := b.Put(kv.k, kv.v); err != nil {
			return err
		}
	}
	if s.Site != nil {
		return putSite(b, *s.Site)
	}
	return nil
}

// Configure changes the settings of counter name by edit, which gets the
// settings as they stand, and returns them as stored.
func (db *DB) Configure(name string, edit func(*counter.Settings) error) (counter.Settings, error) {
	var s counter.Settings
	err := db.update(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		if s, err = readSettings(b); err != nil {
			return err
		}
		if err := edit(&s); err != nil {
			return err
		}
		return putSettings(b, s)
	})
	if err != nil {
		return s, fmt.Errorf("store: configure %q: %w", name, err)
	}
	return s, nil
}

// List returns every counter, sorted by name.
func (db *DB) List() ([]counter.Info, error) {
	var list []counter.Info
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		all := tx.Bucket(bucketCounters)
		if all == nil {
			return nil
		}
		return all.ForEachBucket(func(k []byte) error {
			info, err := readInfo(string(k), all.Bucket(k))
			if err != nil {
				return fmt.Errorf("%q: %w", k, err)
			}
			list = append(list, info)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	return list, nil
}

// Create makes counter name, starting at start hits, with the default
// settings.
func (db *DB) Create(name string, start uint64, now time.Time) error {
	return db.CreateWith(name, start, now, counter.DefaultSettings())
}

// CreateWith makes counter name, starting at start hits, with settings s.
func (db *DB) CreateWith(name string, start uint64, now time.Time, s counter.Settings) error {
	if err := counter.CheckName(name); err != nil {
		return err
	}
	err := db.update(func(tx kv.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		b, err := tx.Bucket(bucketCounters).CreateBucket([]byte(name))
		if err == kv.ErrBucketExists {
			return counter.ErrExists
		}
		if err != nil {
			return err
		}
		if err := b.Put(keyTotal, encodeUint64(start)); err != nil {
			return err
		}
		if err := putSettings(b, s); err != nil {
			return err
		}
		return b.Put(keyCreated, encodeTime(now))
	})
	if err != nil {
		return fmt.Errorf("store: create %q: %w", name, err)
	}
	return nil
}

// Set sets the total of counter name to n, leaving its history alone.
func (db *DB) Set(name string, n uint64) error {
	err := db.update(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		return b.Put(keyTotal, encodeUint64(n))
	})
	if err != nil {
		return fmt.Errorf("store: set %q: %w", name, err)
	}
	return nil
}

// Delete removes counter name and its history.
func (db *DB) Delete(name string) error {
	err := db.update(func(tx kv.Tx) error {
		if _, err := counterBucket(tx, name); err != nil {
			return err
		}
		return tx.Bucket(bucketCounters).DeleteBucket([]byte(name))
	})
	if err != nil {
		return fmt.Errorf("store: delete %q: %w", name, err)
	}
	return nil
}

// Days returns the hits per UTC day of counter name, oldest first, for the
// days from since (inclusive) on.
func (db *DB) Days(name string, since time.Time) ([]counter.Day, error) {
	h, err := db.History(name, since)
	return h.Days, err
}

// Referrers returns the hits per referring host of counter name, sorted by
// host.
func (db *DB) Referrers(name string) ([]counter.Referrer, error) {
	h, err := db.History(name, time.Now())
	return h.Referrers, err
}

// History returns counter name with its hits per UTC day from since
// (inclusive) on, its referring hosts and its sources, read in one
// transaction.
func (db *DB) History(name string, since time.Time) (counter.History, error) {
	var h counter.History
	err := db.view(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		if h.Info, err = readInfo(name, b); err != nil {
			return err
		}
		if meta := tx.Bucket(bucketMeta); meta != nil {
			if h.TalliedSince, err = decodeTime(meta.Get(keyTalliedSince)); err != nil {
				return err
			}
		}
		t, err := loadToday(tx, name)
		if err != nil {
			return err
		}
		if h.Days, err = readDays(b, since, t); err != nil {
			return err
		}
		if h.Referrers, err = readHosts(b, t, bucketReferrers, todayReferrer); err != nil {
			return err
		}
		h.Sources, err = readHosts(b, t, bucketSources, todaySource)
		return err
	})
	if err != nil {
		return h, fmt.Errorf("store: history of %q: %w", name, err)
	}
	return h, nil
}

// readDays reads a counter's days from since on, with today's rows t.
func readDays(b kv.Bucket, since time.Time, t todayRows) ([]counter.Day, error) {
	var days []counter.Day
	from := dayKey(since)
	if d := b.Bucket(bucketDays); d != nil {
		c := d.Cursor()
		for k, v := c.Seek(from); k != nil; k, v = c.Next() {
			n, err := decodeUint64(v)
			if err != nil {
				return nil, err
			}
			days = append(days, counter.Day{Date: string(k), Tally: counter.Tally{Views: n}})
		}
	}
	// Days with a tally and no view (only bots, say) go in among the
	// others, in date order.
	if t := b.Bucket(bucketTally); t != nil {
		c := t.Cursor()
		i := 0
		for k, v := c.Seek(from); k != nil; k, v = c.Next() {
			for i < len(days) && days[i].Date < string(k) {
				i++
			}
			if i == len(days) || days[i].Date != string(k) {
				days = slices.Insert(days, i, counter.Day{Date: string(k)})
			}
			if err := decodeTally(v, &days[i].Tally); err != nil {
				return nil, err
			}
		}
	}
	if t.since(from) && t.counts != (counter.Tally{}) {
		days = addDay(days, counter.Day{Date: string(t.day), Tally: t.counts})
	}
	return days, nil
}

// readHosts reads a counter's referring hosts or its sources (bucket, and
// today's rows t of kind), sorted by host.
func readHosts(b kv.Bucket, t todayRows, bucket []byte, kind byte) ([]counter.Referrer, error) {
	var refs []counter.Referrer
	if r := b.Bucket(bucket); r != nil {
		err := r.ForEach(func(k, v []byte) error {
			n, err := decodeUint64(v)
			if err != nil {
				return err
			}
			refs = append(refs, counter.Referrer{Host: string(k), Hits: n})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	err := t.each(kind, func(host, v []byte) error {
		n, err := decodeUint64(v)
		if err != nil {
			return err
		}
		i, found := slices.BinarySearchFunc(refs, string(host), func(r counter.Referrer, host string) int { return strings.Compare(r.Host, host) })
		if found {
			refs[i].Hits = saturatingAdd(refs[i].Hits, n)
		} else {
			refs = slices.Insert(refs, i, counter.Referrer{Host: string(host), Hits: n})
		}
		return nil
	})
	return refs, err
}
