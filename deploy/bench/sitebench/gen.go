package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// The generated history: a site of sitePages pages on siteHost, viewed
// for historyDays days, most of each day's views on a few pages (Zipf).
const (
	siteHost    = "www.example.org"
	sitePages   = 10_000
	historyDays = 1_095
	// zipfS is the skew of the pages' popularity: with it a day's few
	// thousand views fall on about a thousand pages.
	zipfS = 1.07
	// daysPerCommit is how many days of hits one transaction writes.
	daysPerCommit = 30
	// popularRank and rareRank are the pages the hits land on: the most
	// viewed, and one viewed a few dozen times in the three years.
	popularRank = 0
	rareRank    = 9_990
)

// pagePath is the address of the page of a rank, as the Referer names it.
func pagePath(rank int) string { return fmt.Sprintf("/posts/%05d/", rank) }

// pageKey is the row the counter makes of pagePath(rank).
func pageKey(rank int) string { return fmt.Sprintf("/posts/%05d", rank) }

// generate writes big (the site "site" and the counter "single") and
// small ("single" alone) with historyDays days of views ending today,
// about perDay a day, and returns what it made.
func generate(big, small string, perDay int, seed uint64) error {
	start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1-historyDays).Add(9 * time.Hour)
	t0 := time.Now()
	bdb, err := store.Open(big, store.Options{Create: true})
	if err != nil {
		return err
	}
	defer bdb.Close()
	sdb, err := store.Open(small, store.Options{Create: true})
	if err != nil {
		return err
	}
	defer sdb.Close()
	site, err := counter.NewSite(siteHost)
	if err != nil {
		return err
	}
	if err := bdb.CreateWith("site", 0, start, site); err != nil {
		return err
	}
	for _, db := range []*store.DB{bdb, sdb} {
		if err := db.Create("single", 0, start); err != nil {
			return err
		}
	}
	r := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(r, zipfS, 1, sitePages-1)
	var views, distinct int
	for first := 0; first < historyDays; first += daysPerCommit {
		var siteHits, singleHits []store.Visit
		for d := first; d < min(first+daysPerCommit, historyDays); d++ {
			now := start.AddDate(0, 0, d)
			n := perDay*7/10 + r.IntN(perDay*6/10+1)
			seen := map[int]bool{}
			for i := range n {
				rank := int(zipf.Uint64())
				seen[rank] = true
				siteHits = append(siteHits, visit("site", now, rank, i))
				singleHits = append(singleHits, visit("single", now, rank, i))
			}
			// A sweep that views every page once in the three years, so
			// that the site has all its pages.
			for k := range sitePages/historyDays + 1 {
				siteHits = append(siteHits, visit("site", now, (d*(sitePages/historyDays+1)+k)%sitePages, 0))
			}
			views, distinct = views+n, distinct+len(seen)
		}
		if _, err := bdb.VisitAll(append(siteHits, singleHits...)); err != nil {
			return err
		}
		if _, err := sdb.VisitAll(singleHits); err != nil {
			return err
		}
	}
	pages, err := bdb.Pages("site", time.Time{})
	if err != nil {
		return err
	}
	rows := map[string]uint64{}
	for _, p := range pages {
		rows[p.Page] = p.Views
	}
	fmt.Printf("generated in %.1fs: %d days from %s, %d views of single, the same on site (%d a day on average, on %d pages a day) plus %d a day that sweep all its %d pages\n",
		time.Since(t0).Seconds(), historyDays, start.Format(time.DateOnly), views, views/historyDays, distinct/historyDays, sitePages/historyDays+1, len(pages))
	fmt.Printf("  popular page %s: %d views, rare page %s: %d views\n",
		pageKey(popularRank), rows[pageKey(popularRank)], pageKey(rareRank), rows[pageKey(rareRank)])
	for _, p := range []string{big, small} {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		fmt.Printf("  %s: %.1f MB\n", p, float64(fi.Size())/1e6)
	}
	return nil
}

// visit is the i-th hit of a day on the page of a rank, from a page of
// the site; every third is a new visitor's.
func visit(name string, now time.Time, rank, i int) store.Visit {
	o := counter.Outcome{Kind: counter.View, NewVisitor: i%3 == 0, PageVisitor: i%3 == 0}
	return store.Visit{Name: name, Now: now, RefHost: siteHost, Target: pagePath(rank),
		Outcome: o}
}
