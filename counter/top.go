package counter

import (
	"errors"
	"strconv"
)

// A site's most viewed pages (NAME.json?top=N&days=D) are a list any page
// may read once the owner turns public-pages on: a "popular posts" box.

// Bounds of a top list. MaxTopDays bounds what one request reads and
// holds, whatever the site: each day past holds at most the rows of its
// most viewed pages (the store's KeptPagesADay), so the pages summed are
// at most that many a day.
const (
	MaxTop         = 50
	DefaultTopDays = 30
	MaxTopDays     = 90
)

// ErrPagesPrivate reports a list of a counter's pages that its owner has
// not made public (Info.PageListPublic).
var ErrPagesPrivate = errors.New("page list not public")

// TopQuery is what a top list asks for: the N most viewed pages over the
// last Days UTC days, today included.
type TopQuery struct {
	N, Days int
}

// ParseTop reads top=N and days=D as given (days "" for the default),
// within their bounds.
func ParseTop(top, days string) (TopQuery, error) {
	q := TopQuery{Days: DefaultTopDays}
	var ok bool
	if q.N, ok = parseBounded(top, 1, MaxTop); !ok {
		return q, &ParamError{"top", "must be a whole number from 1 to " + strconv.Itoa(MaxTop)}
	}
	if days == "" {
		return q, nil
	}
	if q.Days, ok = parseBounded(days, 1, MaxTopDays); !ok {
		return q, &ParamError{"days", "must be a whole number from 1 to " + strconv.Itoa(MaxTopDays)}
	}
	return q, nil
}
