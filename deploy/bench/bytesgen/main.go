// Command bytesgen writes a year-old counter database for
// deploy/bench/bench-bytes.sh: 200 plain counters (c000 to c199) with a
// year of days up to yesterday (views, new visitors, a referrer, a bot a
// day), and a site, site, for www.example.org, with a year of 40 pages a
// day. It uses the store's own API, so that the file is of the schema of
// the tree it is built in: bench-bytes.sh builds it in the tree of the
// commit it compares against, so that both binaries can read the file.
// The whole year is written in one transaction (as an import would), so
// that the file has no free pages to start with.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

func main() {
	path := flag.String("db", "", "database to write (must not exist)")
	counters := flag.Int("counters", 200, "plain counters")
	days := flag.Int("days", 365, "days of history, up to yesterday")
	pages := flag.Int("pages", 40, "pages of the site viewed each day")
	flag.Parse()
	if *path == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := write(*path, *counters, *days, *pages); err != nil {
		fmt.Fprintln(os.Stderr, "bytesgen:", err)
		os.Exit(1)
	}
}

func write(path string, counters, days, pages int) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists", path)
	}
	db, err := store.Open(path, store.Options{Create: true, MaxSize: 1 << 30})
	if err != nil {
		return err
	}
	defer db.Close()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, -days)
	for i := range counters {
		if err := db.Create(fmt.Sprintf("c%03d", i), 0, first); err != nil {
			return err
		}
	}
	site, err := counter.NewSite("www.example.org")
	if err != nil {
		return err
	}
	if err := db.CreateWith("site", 0, first, site); err != nil {
		return err
	}
	var visits []store.Visit
	view := func(name string, at time.Time, ref, target string, k counter.Kind, visitor bool) {
		visits = append(visits, store.Visit{Name: name, Now: at, RefHost: ref, Target: target,
			Outcome: counter.Outcome{Kind: k, NewVisitor: visitor, PageVisitor: visitor}})
	}
	for d := range days {
		at := first.AddDate(0, 0, d).Add(12 * time.Hour)
		for i := range counters {
			name := fmt.Sprintf("c%03d", i)
			view(name, at, "www.example.org", "", counter.View, true)
			view(name, at.Add(time.Minute), "", "", counter.View, false)
			view(name, at.Add(2*time.Minute), "", "", counter.Bot, false)
		}
		for p := range pages {
			view("site", at.Add(time.Duration(p)*time.Second), "www.example.org", fmt.Sprintf("/posts/%03d.html", (d+p)%(3*pages)), counter.View, true)
		}
	}
	if _, err := db.VisitAll(visits); err != nil {
		return err
	}
	return nil
}
