package store

import (
	"errors"
	"fmt"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// ImportOptions say how an import merges with what the file holds.
type ImportOptions struct {
	// Replace makes each day the file gives what the file says, lower or
	// not, and the total and visitors the file's where it gives them.
	// Without it an import only ever raises a figure.
	Replace bool
	// DryRun works the import out and says what it would change, and
	// keeps nothing.
	DryRun bool
	// Now is the time of the import: no day after tomorrow's is taken.
	Now time.Time
}

// ImportChange is what an import did, or would do, to one counter.
type ImportChange struct {
	Name string
	// Made is set when the counter was not in the file and the import
	// made it.
	Made bool
	// Days the file gives: new to the counter, raised, lowered (with
	// Replace only), and as they were. Higher says how many of the
	// counter's days are higher than the file's and were left so.
	DaysNew, DaysRaised, DaysLowered, DaysSame, DaysHigher int
	// TotalBefore and Total, VisitorsBefore and Visitors are the
	// counter's figures before and after.
	TotalBefore, Total       uint64
	VisitorsBefore, Visitors uint64
	// PageDays is how many days of a site's pages changed, PagesNew the
	// pages made, PagesOther the days of pages the site had no room for,
	// counted under counter.OtherPages, and PagesDropped the page days not
	// kept because the counter is not a site.
	PageDays, PagesNew, PagesOther, PagesDropped int
	// Referrers is how many referring hosts changed, Sources how many
	// sources.
	Referrers, Sources int
	// CreatedBefore and Created are the counter's creation time before and
	// after (an import moves it back to the history's first day).
	CreatedBefore, Created time.Time
}

// Changed reports whether the import changes the counter at all.
func (c ImportChange) Changed() bool {
	return c.Made || c.DaysNew+c.DaysRaised+c.DaysLowered+c.PageDays+c.Referrers+c.Sources > 0 ||
		c.Total != c.TotalBefore || c.Visitors != c.VisitorsBefore || !c.Created.Equal(c.CreatedBefore)
}

// ErrImportNeedsSite refuses a site's history for a counter that is not
// in the file: a site needs its hosts, which only its owner can say.
var ErrImportNeedsSite = errors.New("the history is a site's, with pages: make the counter first with create NAME -site -hosts HOST")

// errDryRun rolls a dry run's transaction back.
var errDryRun = errors.New("dry run")

// Import merges the histories imps into the file in one transaction: all
// of them or, on any error, none. A counter not in the file is made as a
// plain counter. Merging takes the higher of each figure of each day
// (o.Replace takes the file's), so that the same import run twice changes
// nothing the second time; totals and visitors move with the days, and
// rise to the file's own totals where it gives higher ones.
func (db *DB) Import(imps []counter.Imported, o ImportOptions) ([]ImportChange, error) {
	imps = append([]counter.Imported(nil), imps...)
	for i := range imps {
		// In one transaction, all at once.
		imps[i].PageDays, imps[i].PageRows = imps[i].AllPageDays(), nil
	}
	var changes []ImportChange
	err := db.update(func(tx kv.Tx) error {
		changes = changes[:0]
		if err := initSchema(tx); err != nil {
			return err
		}
		safeToLower, err := talliedFromBirth(tx)
		if err != nil {
			return err
		}
		for _, imp := range imps {
			c, err := importCounter(tx.Bucket(bucketCounters), imp, o, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", imp.Name, err)
			}
			changes = append(changes, c)
			if !imp.TalliedSince.IsZero() && safeToLower {
				if err := lowerTalliedSince(tx, imp.TalliedSince); err != nil {
					return err
				}
			}
		}
		if o.DryRun {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: import: %w", err)
	}
	return changes, nil
}

// talliedFromBirth reports whether every counter in the file was made
// after it began to keep visitors, so that none has days without them:
// then the file's tallied-since may move back to an imported history's,
// which kept its visitors since then, without saying so of days that had
// none.
func talliedFromBirth(tx kv.Tx) (bool, error) {
	since, err := decodeTime(tx.Bucket(bucketMeta).Get(keyTalliedSince))
	if err != nil || since.IsZero() {
		return false, err
	}
	ok := true
	err = tx.Bucket(bucketCounters).ForEachBucket(func(name []byte) error {
		created, err := decodeTime(tx.Bucket(bucketCounters).Bucket(name).Get(keyCreated))
		if created.Before(since.Truncate(24 * time.Hour)) {
			ok = false
		}
		return err
	})
	return ok, err
}

func lowerTalliedSince(tx kv.Tx, t time.Time) error {
	meta := tx.Bucket(bucketMeta)
	since, err := decodeTime(meta.Get(keyTalliedSince))
	if err != nil || !t.Before(since) {
		return err
	}
	return meta.Put(keyTalliedSince, encodeTime(t))
}

// importCounter merges one history into the counter of its name in all,
// the file's counters or an import's staged copies of them. carry is what
// the pieces before of the same history brought to the date their page
// days ended on, nil for a whole history.
func importCounter(all kv.Bucket, imp counter.Imported, o ImportOptions, carry *pageCarry) (ImportChange, error) {
	c := ImportChange{Name: imp.Name}
	if err := counter.CheckName(imp.Name); err != nil {
		return c, err
	}
	tomorrow := string(dayKey(o.Now.AddDate(0, 0, 1)))
	checkDate := func(d string) error {
		if t, err := time.Parse(time.DateOnly, d); err != nil || t.Format(time.DateOnly) != d {
			return fmt.Errorf("%s is not a day like 2026-01-02", counter.Excerpt(d))
		}
		if d > tomorrow {
			return fmt.Errorf("day %s is after tomorrow: is the clock of the machine that wrote it right?", d)
		}
		return nil
	}
	for _, d := range imp.Days {
		if err := checkDate(d.Date); err != nil {
			return c, err
		}
	}
	for i, d := range imp.PageDays {
		// A site's days come by date: one check a date.
		if i > 0 && d.Date == imp.PageDays[i-1].Date {
			continue
		}
		if err := checkDate(d.Date); err != nil {
			return c, err
		}
	}
	b := all.Bucket([]byte(imp.Name))
	if b == nil {
		if len(imp.PageDays) > 0 {
			return c, ErrImportNeedsSite
		}
		var err error
		if b, err = makeImported(all, imp, o.Now); err != nil {
			return c, err
		}
		c.Made = true
	}
	info, err := readInfo(imp.Name, b)
	if err != nil {
		return c, err
	}
	c.TotalBefore, c.VisitorsBefore, c.CreatedBefore = info.Count, info.Visitors, info.Created
	if c.Made {
		c.TotalBefore, c.VisitorsBefore = 0, 0
	}
	total, visitors := info.Count, info.Visitors
	days, err := b.CreateBucketIfNotExists(bucketDays)
	if err != nil {
		return c, err
	}
	for _, d := range imp.Days {
		key := []byte(d.Date)
		old, err := readDay(b, key)
		if err != nil {
			return c, err
		}
		now := mergeTally(old, d.Tally, o.Replace)
		switch {
		case now == old && old == d.Tally:
			c.DaysSame++
		case now == old:
			c.DaysHigher++
		case old == counter.Tally{}:
			c.DaysNew++
		case lowerSomewhere(now, old):
			c.DaysLowered++
		default:
			c.DaysRaised++
		}
		if now == old {
			continue
		}
		total = moveBy(total, old.Views, now.Views)
		visitors = moveBy(visitors, old.Visitors, now.Visitors)
		if err := putDay(b, days, key, now); err != nil {
			return c, err
		}
	}
	if imp.HasTotal {
		total = settle(total, imp.Total, o.Replace)
	}
	if imp.HasVisitors {
		visitors = settle(visitors, imp.Visitors, o.Replace)
	}
	s, err := readSettings(b)
	if err != nil {
		return c, err
	}
	if len(imp.PageDays) > 0 {
		if s.Site == nil {
			c.PagesDropped = len(imp.PageDays)
		} else if total, err = importPages(b, s.Site, imp.PageDays, o, total, &c, carry); err != nil {
			return c, err
		}
	}
	if err := b.Put(keyTotal, encodeUint64(total)); err != nil {
		return c, err
	}
	if err := b.Put(keyVisitors, encodeUint64(visitors)); err != nil {
		return c, err
	}
	c.Total, c.Visitors = total, visitors
	if c.Referrers, err = importHosts(b, bucketReferrers, imp.Referrers, o.Replace); err != nil {
		return c, err
	}
	if c.Sources, err = importHosts(b, bucketSources, sourcesOf(s, imp.Sources), o.Replace); err != nil {
		return c, err
	}
	c.Created = c.CreatedBefore
	first, err := firstDay(imp)
	if err != nil {
		return c, err
	}
	if !first.IsZero() && first.Before(c.Created) {
		c.Created = first
	}
	if !imp.Created.IsZero() && imp.Created.Before(c.Created) {
		c.Created = imp.Created
	}
	return c, b.Put(keyCreated, encodeTime(c.Created))
}

// makeImported makes the counter of a history not in the file, with the
// history's setting of what its image shows.
func makeImported(all kv.Bucket, imp counter.Imported, now time.Time) (kv.Bucket, error) {
	b, err := all.CreateBucket([]byte(imp.Name))
	if err != nil {
		return nil, err
	}
	s := counter.DefaultSettings()
	if imp.HasShow {
		s.Show = imp.Show
	}
	if err := putSettings(b, s); err != nil {
		return nil, err
	}
	return b, b.Put(keyCreated, encodeTime(now))
}

// firstDay is the start of the history's first day, zero for none.
func firstDay(imp counter.Imported) (time.Time, error) {
	first := ""
	if len(imp.Days) > 0 {
		first = imp.Days[0].Date
	}
	if len(imp.PageDays) > 0 && (first == "" || imp.PageDays[0].Date < first) {
		first = imp.PageDays[0].Date
	}
	if first == "" {
		return time.Time{}, nil
	}
	return parseDay([]byte(first))
}

// mergeTally is the day that a day old of the file and a day in of an
// import make: the higher of each figure, or in's with replace.
func mergeTally(old, in counter.Tally, replace bool) counter.Tally {
	if replace {
		return in
	}
	m := counter.Tally{Views: max(old.Views, in.Views), Visitors: max(old.Visitors, in.Visitors), GitHub: max(old.GitHub, in.GitHub)}
	for _, k := range counter.NotCountedKinds {
		m.NotCounted[k] = max(old.NotCounted[k], in.NotCounted[k])
	}
	return m
}

func lowerSomewhere(now, old counter.Tally) bool {
	if now.Views < old.Views || now.Visitors < old.Visitors || now.GitHub < old.GitHub {
		return true
	}
	for _, k := range counter.NotCountedKinds {
		if now.NotCounted[k] < old.NotCounted[k] {
			return true
		}
	}
	return false
}

// moveBy moves n by the change from old to now, saturating at both ends.
func moveBy(n, old, now uint64) uint64 {
	if now >= old {
		return saturatingAdd(n, now-old)
	}
	if d := old - now; d < n {
		return n - d
	}
	return 0
}

// settle is a total after an import that gives the total in: the higher
// of the two, or in with replace.
func settle(n, in uint64, replace bool) uint64 {
	if replace {
		return in
	}
	return max(n, in)
}

// putDay writes a day's views into days and the rest into its tally
// record, leaving out what is zero and not there yet.
func putDay(b, days kv.Bucket, key []byte, t counter.Tally) error {
	if t.Views > 0 || days.Get(key) != nil {
		if err := days.Put(key, encodeUint64(t.Views)); err != nil {
			return err
		}
	}
	rest := t
	rest.Views = 0
	tally := b.Bucket(bucketTally)
	if rest == (counter.Tally{}) && (tally == nil || tally.Get(key) == nil) {
		return nil
	}
	tally, err := b.CreateBucketIfNotExists(bucketTally)
	if err != nil {
		return err
	}
	if err := dropNotCounted(b); err != nil {
		return err
	}
	return tally.Put(key, encodeTally(t))
}

// sourcesOf are the sources of a history as counter s keeps them: keys
// as counter.SourceKey makes them (the views of hosts that make the same
// key added up), and none of s's own hosts, which a reader goes from page
// to page on; counter.OtherSources as it is.
func sourcesOf(s counter.Settings, srcs []counter.Referrer) []counter.Referrer {
	var out []counter.Referrer
	at := map[string]int{}
	for _, src := range srcs {
		key := src.Host
		if key != counter.OtherSources {
			if key = s.Source(src.Host, ""); key == "" {
				continue
			}
		}
		if i, ok := at[key]; ok {
			out[i].Hits = saturatingAdd(out[i].Hits, src.Hits)
			continue
		}
		at[key] = len(out)
		out = append(out, counter.Referrer{Host: key, Hits: src.Hits})
	}
	return out
}

// importHosts merges referring hosts, or sources (bucket): the higher of
// each, or the file's with replace; hosts past the bound add up under
// counter.OtherReferrers.
func importHosts(b kv.Bucket, bucket []byte, refs []counter.Referrer, replace bool) (int, error) {
	if len(refs) == 0 {
		return 0, nil
	}
	r, err := b.CreateBucketIfNotExists(bucket)
	if err != nil {
		return 0, err
	}
	merged := make(map[string]uint64, len(refs))
	var order []string
	for _, ref := range refs {
		host := ref.Host
		if r.Get([]byte(host)) == nil && host != counter.OtherReferrers && r.KeyN()+len(order) >= counter.MaxReferrers {
			host = counter.OtherReferrers
		}
		if _, ok := merged[host]; !ok {
			order = append(order, host)
		}
		merged[host] = saturatingAdd(merged[host], ref.Hits)
	}
	changed := 0
	for _, host := range order {
		old, err := decodeUint64(r.Get([]byte(host)))
		if err != nil {
			return changed, err
		}
		if now := settle(old, merged[host], replace); now != old || r.Get([]byte(host)) == nil {
			changed++
			if err := r.Put([]byte(host), encodeUint64(now)); err != nil {
				return changed, err
			}
		}
	}
	return changed, nil
}
