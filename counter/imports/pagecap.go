package imports

import "hitcounter/counter"

// PageCap folds the pages of a history that the site it goes into has no
// room for under counter.OtherPages, as the site's live hits do: the pages
// it has keep their own days, and of the others the first met take the
// room it has left. An export read with one keeps at most the site's pages
// and its room in memory, whatever number of pages it names: the store
// would fold the rest the same way, after holding them all.
type PageCap struct {
	known  map[string]bool // the site's pages, and the new ones given room
	room   int             // the new pages it may still make
	folded int
}

// NewPageCap returns the cap of a site that has the pages known and may
// make room more.
func NewPageCap(known []string, room int) *PageCap {
	c := &PageCap{known: make(map[string]bool, len(known)), room: max(room, 0)}
	for _, p := range known {
		c.known[p] = true
	}
	return c
}

// defaultCap is the cap of a new site, for a reader given none.
func defaultCap(c *PageCap) *PageCap {
	if c == nil {
		return NewPageCap(nil, counter.DefaultMaxPages)
	}
	return c
}

// page returns the page that page's views count for: itself, or
// counter.OtherPages once the room is taken.
func (c *PageCap) page(page string) string {
	if c.known[page] {
		return page
	}
	if page == counter.OtherPages {
		return page
	}
	if c.room == 0 {
		c.folded++
		return counter.OtherPages
	}
	c.room--
	c.known[page] = true
	return page
}

// Folded is how many times a page was folded under counter.OtherPages: a
// row of the file each, or a path of GoatCounter's ZIP.
func (c *PageCap) Folded() int { return c.folded }
