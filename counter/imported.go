package counter

import (
	"errors"
	"strconv"
	"time"
	"unicode/utf8"
)

// Imported is one counter's history as a file brought it from another
// counter: this one's exports on another machine, another product's
// export, a count kept in a text file, or a web server's access log.
// Figures a file does not give are zero, and a Has flag says which totals
// it gives.
type Imported struct {
	// Name is the counter the file names, "" when it names none: the
	// import command's -name then says which.
	Name string
	// Total is the counter's views in all, when HasTotal. It may be more
	// than its days add up to: a counter made with a start, or a count
	// kept without days at all.
	Total    uint64
	HasTotal bool
	// Visitors is its unique visitors in all, when HasVisitors.
	Visitors    uint64
	HasVisitors bool
	// Show is what the image showed, when HasShow.
	Show    Show
	HasShow bool
	// Created and TalliedSince are zero when the file does not say.
	Created      time.Time
	TalliedSince time.Time
	// Days are its days, oldest first, each date once.
	Days []Day
	// PageDays are a site's pages' days, by date then page, each pair
	// once; pages as PageKey makes them.
	PageDays []PageDay
	// PageRows, when not nil, gives the page days in place of PageDays,
	// in the same order, a piece at a time: a reader hands a million of
	// them over this way in a few bytes each, where PageDays would hold
	// each as a PageDay.
	PageRows PageRows
	// Referrers are the hosts its views came from, each host once.
	Referrers []Referrer
	// Sources are the hosts (or groups, SourceKey) its readers came
	// from, each once.
	Sources []Referrer
	// LeftOut says what the file held that the import leaves out, each
	// in a few words for the owner ("3 events: ..."); nil when nothing.
	LeftOut []string
}

// PageRows are a history's page days, by date then page, read a piece at
// a time.
type PageRows interface {
	// Len is how many page days there are.
	Len() int
	// Open starts a reading from the first: each call of next gives the
	// page days that follow, n at the most, and none at the end.
	Open() (next func(n int) []PageDay)
}

// AllPageDays returns the history's page days, from PageRows when it has
// them.
func (imp Imported) AllPageDays() []PageDay {
	if imp.PageRows == nil {
		return imp.PageDays
	}
	var all []PageDay
	for next := imp.PageRows.Open(); ; {
		some := next(4096)
		if len(some) == 0 {
			return all
		}
		all = append(all, some...)
	}
}

// HasPageDays reports whether the history gives any page day.
func (imp Imported) HasPageDays() bool {
	return len(imp.PageDays) > 0 || imp.PageRows != nil && imp.PageRows.Len() > 0
}

// ErrImport is wrapped by every refusal of a file to import, which says
// where in the file the trouble is.
var ErrImport = errors.New("cannot import")

// ImportError is a refusal of a file to import at one line.
//
// Its Reason says what is wrong in words of its own; what the file holds
// there goes in Quote alone, so that a refusal of a file whose reader may
// not see it can leave it out (the import command is run with sudo).
type ImportError struct {
	Line   int // from 1; 0 when the trouble is with the file as a whole
	Reason string
	// Quote is what the file holds where the trouble is, as Excerpt
	// writes it (several excerpts, or one with words around it), shown
	// after the reason; "" for none.
	Quote string
}

func (e *ImportError) Error() string {
	msg := e.Reason
	if e.Quote != "" {
		msg += ": " + e.Quote
	}
	if e.Line == 0 {
		return msg
	}
	return "line " + strconv.Itoa(e.Line) + ": " + msg
}

// MaxExcerpt bounds the bytes of a file that an excerpt quotes.
const MaxExcerpt = 40

// Excerpt is s as a refusal quotes it: its first MaxExcerpt bytes at
// most, cut before a character rather than inside one, quoted and escaped
// as %q does, so that no control character of the file reaches the
// terminal, and followed by "..." when cut.
func Excerpt(s string) string {
	if len(s) <= MaxExcerpt {
		return strconv.Quote(s)
	}
	cut := MaxExcerpt
	j := cut - 1 // where the character that the cut may split starts
	for j > cut-utf8.UTFMax && !utf8.RuneStart(s[j]) {
		j--
	}
	if r, size := utf8.DecodeRuneInString(s[j:]); (r != utf8.RuneError || size > 1) && j+size > cut {
		cut = j
	}
	return strconv.Quote(s[:cut]) + "..."
}

func (e *ImportError) Unwrap() error { return ErrImport }
