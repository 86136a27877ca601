package admin

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// runPages lists the pages of a site, the most viewed first.
func runPages(e *cmdEnv, args []string) error {
	name := args[0]
	if err := checkedName(name); err != nil {
		return err
	}
	var since time.Time
	if e.since != "" {
		n, err := strconv.Atoi(e.since)
		if err != nil || n < 1 || n > 100_000 {
			return usagef("pages: -days %q is not a number of days", e.since)
		}
		since = e.cfg.Now().UTC().AddDate(0, 0, 1-n)
	}
	var pages []counter.Page
	err := e.view(func(db *store.DB) (err error) {
		pages, err = db.Pages(name, since)
		return err
	})
	if err != nil {
		return err
	}
	sortPages(pages)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VIEWS\tVISITORS\tFIRST SEEN\tPAGE")
	for _, p := range pages {
		first := ""
		if !p.FirstSeen.IsZero() {
			first = p.FirstSeen.Format(time.DateOnly)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\n", p.Views, p.Visitors, first, p.Page)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(pages) == 0 {
		fmt.Fprintf(e.stderr, "%s has no pages yet: they are made by the first hit from a page on one of its hosts\n", name)
	}
	return nil
}

// sortPages puts the most viewed pages first, then by page.
func sortPages(pages []counter.Page) {
	slices.SortFunc(pages, func(a, b counter.Page) int {
		if c := cmp.Compare(b.Views, a.Views); c != 0 {
			return c
		}
		return cmp.Compare(a.Page, b.Page)
	})
}

// runMerge folds one page of a site into another.
func runMerge(e *cmdEnv, args []string) error {
	name, from, to := args[0], args[1], args[2]
	if err := checkedName(name); err != nil {
		return err
	}
	var merged counter.Page
	err := e.update(false, func(db *store.DB) (err error) {
		merged, err = db.MergePage(name, from, to)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "merged %s into %s of %s: %d views, %d visitors\n", from, merged.Page, name, merged.Views, merged.Visitors)
	return nil
}
