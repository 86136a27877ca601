package imports

import (
	"fmt"
	"time"

	"hitcounter/counter"
)

// FirstDay is the earliest day an import takes: no web counter counted
// before it, and a file that says otherwise is damaged or made up (a
// zero time written as 0001-01-01, say). The latest is tomorrow, UTC,
// as the store takes days: a day ahead for a clock a little fast.
const FirstDay = "1990-01-01"

// checkDay refuses a day, written as 2006-01-02, outside FirstDay to
// tomorrow as of now, quoting it.
func checkDay(date string, now time.Time) *counter.ImportError {
	last := now.UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	if date >= FirstDay && date <= last {
		return nil
	}
	return &counter.ImportError{Reason: fmt.Sprintf("the day is not one a counter can have seen: not between %s and tomorrow, %s", FirstDay, last), Quote: counter.Excerpt(date)}
}

// checkTime is checkDay for a time, as its UTC day.
func checkTime(t time.Time, now time.Time) *counter.ImportError {
	return checkDay(t.UTC().Format(time.DateOnly), now)
}
