package web

import (
	"cmp"
	"errors"
	"net/url"
	"slices"
	"strings"

	"hitcounter/counter"
	"hitcounter/store"
)

// overviewColumn is a column of the overview's table, by which it sorts.
type overviewColumn struct {
	key, label string
	// desc is the order of a first click: figures largest first, names
	// from A.
	desc bool
	// value is the row's figure in the column; nil for the name.
	value func(c *store.CounterOverview) float64
}

// overviewColumns are the table's columns, in order. The chart is no
// column to sort by.
var overviewColumns = [...]overviewColumn{
	{"name", "counter", false, nil},
	{"today", "today", true, func(c *store.CounterOverview) float64 { return float64(c.Today.Views) }},
	{"yesterday", "yesterday", true, func(c *store.CounterOverview) float64 { return float64(c.Yesterday.Views) }},
	{"7d", "7 days", true, func(c *store.CounterOverview) float64 { return float64(c.Last7.Views) }},
	{"7change", "vs 7 before", true, func(c *store.CounterOverview) float64 { return counter.ChangeRatio(c.Last7.Views, c.Before7.Views) }},
	{"30d", "30 days", true, func(c *store.CounterOverview) float64 { return float64(c.Last30.Views) }},
	{"30change", "vs 30 before", true, func(c *store.CounterOverview) float64 { return counter.ChangeRatio(c.Last30.Views, c.Before30.Views) }},
	{"visitors", "visitors 30 days", true, func(c *store.CounterOverview) float64 { return float64(c.Last30.Visitors) }},
	{"notcounted", "not counted 30 days", true, func(c *store.CounterOverview) float64 { return float64(c.Last30.AllNotCounted()) }},
}

// overviewSort is the order the table is shown in: a column, and whether
// largest (or Z) first.
type overviewSort struct {
	col  int
	desc bool
}

// errBadSort is a sort or order the overview does not know.
var errBadSort = errors.New("bad sort")

// parseOverviewSort reads sort=COLUMN and order=asc|desc; by name, A
// first, when not given.
func parseOverviewSort(q url.Values) (overviewSort, error) {
	s := overviewSort{}
	if key := q.Get("sort"); key != "" {
		i := slices.IndexFunc(overviewColumns[:], func(c overviewColumn) bool { return c.key == key })
		if i < 0 {
			return s, errBadSort
		}
		s.col, s.desc = i, overviewColumns[i].desc
	}
	switch q.Get("order") {
	case "":
	case "asc":
		s.desc = false
	case "desc":
		s.desc = true
	default:
		return s, errBadSort
	}
	return s, nil
}

// sortRows orders rows as s says, ties by name.
func (s overviewSort) sortRows(rows []store.CounterOverview) {
	value := overviewColumns[s.col].value
	slices.SortStableFunc(rows, func(a, b store.CounterOverview) int {
		c := 0
		if value != nil {
			c = cmp.Compare(value(&a), value(&b))
		}
		if c == 0 {
			c = strings.Compare(a.Name, b.Name)
			if value != nil {
				return c // ties always A first
			}
		}
		if s.desc {
			return -c
		}
		return c
	})
}
