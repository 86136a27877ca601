package counter

import (
	"errors"
	"strconv"
	"time"
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
	// Referrers are the hosts its views came from, each host once.
	Referrers []Referrer
}

// ErrImport is wrapped by every refusal of a file to import, which says
// where in the file the trouble is.
var ErrImport = errors.New("cannot import")

// ImportError is a refusal of a file to import at one line.
type ImportError struct {
	Line   int // from 1; 0 when the trouble is with the file as a whole
	Reason string
}

func (e *ImportError) Error() string {
	if e.Line == 0 {
		return e.Reason
	}
	return "line " + strconv.Itoa(e.Line) + ": " + e.Reason
}

func (e *ImportError) Unwrap() error { return ErrImport }
