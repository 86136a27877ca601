package admin

import (
	"errors"
	"flag"
	"fmt"

	"hitcounter/counter"
	"hitcounter/counter/feed"
	"hitcounter/store"
)

// titlesCommand stores the titles of a site's pages, read from the
// site's own feed, for its lists of popular pages.
func titlesCommand() command {
	return command{"[-replace] NAME FILE", 2, 2, func(fs *flag.FlagSet, e *cmdEnv) {
		fs.BoolVar(&e.replaceTitles, "replace", false, "drop the titles stored before (default: the file's are added, a page's new title in place of its old)")
	}, runTitles}
}

// runTitles reads FILE, the site's RSS or Atom feed (or its sitemap,
// which has titles only as a Google News sitemap), and stores the titles
// of the pages on the site's hosts.
func runTitles(e *cmdEnv, args []string) error {
	name, file := args[0], args[1]
	if err := checkedName(name); err != nil {
		return err
	}
	var site *counter.Site
	err := e.view(func(db *store.DB) error {
		info, err := db.Counter(name)
		site = info.Settings.Site
		return err
	})
	if err != nil {
		return err
	}
	if site == nil {
		return fmt.Errorf("titles: %s is %w: only a site's pages have titles (make one with create NAME -site -hosts HOST)", name, counter.ErrNotSite)
	}
	in, _, closeIn, err := e.openInput(file)
	if err != nil {
		return fmt.Errorf("titles: %w", errors.Unwrap(err))
	}
	defer closeIn()
	read, err := feed.Titles(in, site)
	switch {
	case errors.Is(err, feed.ErrNoTitles) && read.Format == feed.Sitemap:
		return fmt.Errorf("titles: %s: a sitemap of %d pages and no title (a sitemap has none, but in a Google News sitemap): give the site's feed, which has them (Hugo: index.xml, Jekyll: feed.xml, Hexo: atom.xml, Eleventy: the feed of its RSS plugin)", file, read.Entries)
	case errors.Is(err, feed.ErrNoTitles):
		return fmt.Errorf("titles: %s: %d entries, and no title of a page on %s's hosts%s", file, read.Entries, name, skipped(read))
	case err != nil:
		return fmt.Errorf("titles: %s: %w", file, err)
	}
	var set, total int
	err = e.update(false, func(db *store.DB) (err error) {
		set, total, err = db.SetTitles(name, read.Titles, e.replaceTitles)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %d titles from the %s file %s; the site has %d%s\n", name, set, read.Format, file, total, skipped(read))
	return nil
}

// skipped says what of the file was left out, "" for nothing.
func skipped(r feed.Read) string {
	s := ""
	for _, n := range []struct {
		n    int
		what string
	}{{r.Untitled, "without a title"}, {r.Elsewhere, "on other hosts"}, {r.BadLinks, "whose link is no page"}, {r.Again, "of a page given before"}} {
		if n.n > 0 {
			s += fmt.Sprintf("; left out %d %s", n.n, n.what)
		}
	}
	return s
}
