package store

import (
	"fmt"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// SetTitles stores the titles of site name's pages, as the owner's
// command reads them from the site's own feed: each cleaned by
// counter.CleanTitle (one left empty is not kept), a page's new title in
// place of its old one; with replace, the titles stored before go. A
// site keeps at most counter.MaxTitles: titles that would take it past
// them fail, and nothing is stored. It returns how many pages it gave a
// title and how many the site has.
func (db *DB) SetTitles(name string, titles []counter.Title, replace bool) (set, total int, err error) {
	if len(titles) > counter.MaxTitles {
		return 0, 0, fmt.Errorf("store: titles of %q: %d titles, more than %d", name, len(titles), counter.MaxTitles)
	}
	err = db.write(func(tx kv.Tx) error {
		set = 0 // an engine may run it again (kv.DB.Update)
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		if b.Get(keyHosts) == nil {
			return counter.ErrNotSite
		}
		if replace && b.Bucket(bucketTitles) != nil {
			if err := b.DeleteBucket(bucketTitles); err != nil {
				return err
			}
		}
		tb, err := b.CreateBucketIfNotExists(bucketTitles)
		if err != nil {
			return err
		}
		total = tb.KeyN()
		for _, t := range titles {
			title := counter.CleanTitle(t.Title)
			if title == "" || t.Page == "" || len(t.Page) > counter.MaxPageLen {
				continue
			}
			if tb.Get([]byte(t.Page)) == nil {
				if total++; total > counter.MaxTitles {
					return fmt.Errorf("more than %d titles (titles -replace drops the ones stored)", counter.MaxTitles)
				}
			}
			set++
			if err := tb.Put([]byte(t.Page), []byte(title)); err != nil {
				return err
			}
		}
		if total == 0 {
			return b.DeleteBucket(bucketTitles)
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store: titles of %q: %w", name, err)
	}
	return set, total, nil
}

// Titles returns the titles of those of pages that site name has one
// for, by page; a plain counter has none.
func (db *DB) Titles(name string, pages []string) (map[string]string, error) {
	var out map[string]string
	err := db.view(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		out = readTitles(b, pages)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: titles of %q: %w", name, err)
	}
	return out, nil
}

// readTitles reads the titles of pages from counter bucket b, within the
// caller's transaction (a top list reads them with its pages): a map of
// the pages that have one, nil when none.
func readTitles(b kv.Bucket, pages []string) map[string]string {
	tb := b.Bucket(bucketTitles)
	if tb == nil {
		return nil
	}
	var out map[string]string
	for _, p := range pages {
		if v := tb.Get([]byte(p)); v != nil {
			if out == nil {
				out = make(map[string]string)
			}
			out[p] = string(v)
		}
	}
	return out
}

// checkTitles checks a counter's titles: a site's alone, within the
// bounds, each a clean title.
func checkTitles(b kv.Bucket) error {
	tb := b.Bucket(bucketTitles)
	if tb == nil {
		return nil
	}
	if b.Get(keyHosts) == nil {
		return fmt.Errorf("%w: titles on a counter that is no site", ErrCorrupt)
	}
	n := 0
	return tb.ForEach(func(k, v []byte) error {
		if n++; n > counter.MaxTitles {
			return fmt.Errorf("%w: more than %d titles", ErrCorrupt, counter.MaxTitles)
		}
		if v == nil || len(k) == 0 || counter.CleanTitle(string(v)) != string(v) || string(v) == "" {
			return fmt.Errorf("%w: title of page %q", ErrCorrupt, k)
		}
		return nil
	})
}
