package store

import (
	"fmt"

	"hitcounter/counter"
	"hitcounter/store/kv"
	"hitcounter/store/kv/boltkv"
)

// importFill is how full the page-days bucket's pages are made as an
// import writes them. Its keys go in in order, the date first, so that a
// page filled splits nearly full rather than in halves (bbolt's default,
// for keys that come in any order): the file and the transaction, which
// holds every page it writes in memory, are smaller by almost half.
const importFill = 0.9

// pageImport is an import of one site's page days within a transaction.
type pageImport struct {
	b, pages, days, siteDays kv.Bucket
	site                     *counter.Site
	o                        ImportOptions
	carry                    *pageCarry
	folded                   []byte
	made                     uint64 // the pages the site has made
	total                    uint64 // the site's total
	c                        *ImportChange
}

// importPages merges a site's page days, by date then page as
// counter.Imported has them, making the pages it has room for, and
// returns the site's total, raised where a day's pages add up to more
// than the site's day. It works a day at a time, so that what it keeps
// in memory beside the transaction is one day's pages. carry is what the
// pieces before brought to the date in's first day may share with them;
// nil is none.
func importPages(b kv.Bucket, site *counter.Site, in []counter.PageDay, o ImportOptions, total uint64, c *ImportChange, carry *pageCarry) (uint64, error) {
	if carry == nil {
		carry = &pageCarry{}
	}
	im := pageImport{b: b, site: site, o: o, total: total, c: c, carry: carry}
	var err error
	if im.pages, err = b.CreateBucketIfNotExists(bucketPages); err != nil {
		return total, err
	}
	if im.days, err = b.CreateBucketIfNotExists(bucketPageDays); err != nil {
		return total, err
	}
	boltkv.SetFillPercent(im.days, importFill)
	if im.siteDays, err = b.CreateBucketIfNotExists(bucketDays); err != nil {
		return total, err
	}
	if im.made, err = decodeUint64(b.Get(keyPageCount)); err != nil {
		return total, err
	}
	im.folded = b.Get(keyPagesFolded)
	for len(in) > 0 {
		n := 1
		for n < len(in) && in[n].Date == in[0].Date {
			n++
		}
		if n < len(in) && in[n].Date < in[0].Date {
			return im.total, fmt.Errorf("page days out of order: %s after %s", in[n].Date, in[0].Date)
		}
		if err := im.day(in[:n]); err != nil {
			return im.total, err
		}
		in = in[n:]
	}
	if err := b.Put(keyPageCount, encodeUint64(im.made)); err != nil {
		return im.total, err
	}
	// Fold the days before today now, so that the next hit does not.
	if _, err := foldPages(b, im.pages, im.days, dayKey(o.Now), site.MaxPages); err != nil {
		return im.total, err
	}
	return im.total, nil
}

// pageCarry is what the pieces of a history merged so far brought to each
// of the site's pages on the date the last of them ended on. A date's page
// days may come in several pieces, in several transactions, and several of
// them may count for one of the site's pages (those past its room count
// for counter.OtherPages): a page's day is what they all bring, added up,
// merged with what the file had before the first. Merging that sum again
// with what the last piece left gives the same, since the sum only grows.
type pageCarry struct {
	date string
	sums map[string]counter.Page
}

// day merges the page days of one date.
func (im *pageImport) day(in []counter.PageDay) error {
	carry := im.carry
	if carry.date != in[0].Date || carry.sums == nil {
		carry.date, carry.sums = in[0].Date, map[string]counter.Page{}
	}
	// The pages of this piece, each true when an earlier piece brought
	// it too.
	touched := map[string]bool{}
	var order []string
	date := []byte(in[0].Date)
	for _, d := range in {
		page, err := im.page(d)
		if err != nil {
			return err
		}
		sum, before := carry.sums[page]
		if _, ok := touched[page]; !ok {
			touched[page] = before
			order = append(order, page)
		}
		carry.sums[page] = plus(sum, counter.Page{Views: d.Views, Visitors: d.Visitors})
	}
	for _, page := range order {
		if err := im.put(date, page, carry.sums[page], touched[page]); err != nil {
			return err
		}
	}
	return nil
}

// page returns the site's page that a page day of the file counts for,
// making it when the site has room for it, and counts it in the change.
func (im *pageImport) page(d counter.PageDay) (string, error) {
	page := d.Page
	if page != counter.OtherPages {
		var err error
		if page, err = counter.PageKey(d.Page, im.site.KeepQuery); err != nil {
			return "", fmt.Errorf("page %s: %w", counter.Excerpt(d.Page), err)
		}
	}
	_, found, err := getPage(im.pages, page)
	if err != nil {
		return "", err
	}
	if !found && page != counter.OtherPages {
		if im.made < uint64(im.site.MaxPages) {
			im.made++
			im.c.PagesNew++
		} else {
			page = counter.OtherPages
			im.c.PagesOther++
			if _, found, err = getPage(im.pages, page); err != nil {
				return "", err
			}
		}
	}
	if !found {
		first, err := parseDay([]byte(d.Date))
		if err != nil {
			return "", err
		}
		if err := im.pages.Put([]byte(page), encodePage(counter.Page{Page: page, FirstSeen: first})); err != nil {
			return "", err
		}
	}
	return page, nil
}

// put merges what page got on date, in, into the page's day, its record
// and the site's day.
// again says it was put before, for an earlier piece: not a day changed
// more.
func (im *pageImport) put(date []byte, page string, in counter.Page, again bool) error {
	key := pageDayKey(date, page)
	var old counter.Page
	v := im.days.Get(key)
	if v != nil {
		var err error
		if old.Views, old.Visitors, err = decodePageDay(v); err != nil {
			return err
		}
	}
	now := in
	if !im.o.Replace {
		now = counter.Page{Views: max(old.Views, in.Views), Visitors: max(old.Visitors, in.Visitors)}
	}
	if now == old && v != nil {
		return nil
	}
	if !again {
		im.c.PageDays++
	}
	if err := im.days.Put(key, encodePageDay(now.Views, now.Visitors)); err != nil {
		return err
	}
	p, _, err := getPage(im.pages, page)
	if err != nil {
		return err
	}
	day, err := parseDay(date)
	if err != nil {
		return err
	}
	if day.Before(p.FirstSeen) {
		p.FirstSeen = day
	}
	// A day already folded is in the page's record too.
	if im.folded != nil && string(date) <= string(im.folded) {
		p.Views = moveBy(p.Views, old.Views, now.Views)
		p.Visitors = moveBy(p.Visitors, old.Visitors, now.Visitors)
	}
	if err := im.pages.Put([]byte(page), encodePage(p)); err != nil {
		return err
	}
	// Every day a page counts on, its site counts on: the readers
	// find a page's days through the site's.
	siteViews, err := decodeUint64(im.siteDays.Get(date))
	if err != nil {
		return err
	}
	if siteViews < now.Views {
		im.total = moveBy(im.total, siteViews, now.Views)
		if err := im.siteDays.Put(date, encodeUint64(now.Views)); err != nil {
			return err
		}
	}
	return nil
}
