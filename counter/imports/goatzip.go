package imports

import (
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"time"

	"hitcounter/counter"
)

// GoatCounter's ZIP export, as its source writes it (arp242/goatcounter,
// exportjson.go, RunJSON, at c957f51c43eb): a folder of JSON files,
// info.json with its export_version ("1.0") and one JSON object a line in
// each .jsonl file. This reads two of them:
//
//	paths.jsonl      {"id":9,"path":"/a","title":"A","event":true}  (event left out when false)
//	hit_stats.jsonl  {"hour":"2002-09-05T19:00:00Z","path_id":9,"ref_id":1,"count":2}
//
// hit_stats are GoatCounter's ref_counts, whose count is a path's
// visitors in an hour from one referrer (cron/ref_count.go: rows marked
// FirstVisit, no bots). GoatCounter keeps no other count of views.

// maxGoatPaths bounds the paths a ZIP export's paths.jsonl may name.
const maxGoatPaths = 1 << 20

// GoatCounterZIP reads GoatCounter's ZIP export. A path's visitors in an
// hour are its visitors and, since GoatCounter keeps no count of views
// apart from them, its views too; a day's are its pages' added up, as
// GoatCounter's dashboard adds them. Events are left out, and LeftOut
// says how many; so are the referrers, browsers, systems, locations,
// sizes and languages, which a counter here does not keep. The pages that
// pages has no room for count under counter.OtherPages, taking the room
// in the order of paths.jsonl: GoatCounter makes a path on its first view,
// as a site here makes a page. A nil pages is a new site's.
func GoatCounterZIP(r io.ReaderAt, size int64, pages *PageCap) (counter.Imported, error) {
	return goatCounterZIP(r, size, defaultCap(pages), time.Now())
}

func goatCounterZIP(r io.ReaderAt, size int64, pc *PageCap, now time.Time) (counter.Imported, error) {
	var imp counter.Imported
	wanted := func(name string) bool {
		switch path.Base(name) {
		case "info.json", "paths.jsonl", "hit_stats.jsonl":
			return true
		}
		return false
	}
	entries, err := readZIP(r, size, wanted)
	if err != nil {
		return imp, &counter.ImportError{Reason: "not a ZIP file GoatCounter wrote: " + err.Error()}
	}
	files := map[string]*zipEntry{}
	for i := range entries {
		f := &entries[i]
		name := path.Base(f.name)
		if files[name] != nil {
			return imp, &counter.ImportError{Reason: "GoatCounter's ZIP export with two files named " + name}
		}
		files[name] = f
	}
	for _, name := range []string{"info.json", "paths.jsonl", "hit_stats.jsonl"} {
		if files[name] == nil {
			return imp, &counter.ImportError{Reason: "not GoatCounter's ZIP export: it has no " + name}
		}
	}
	in := func(name string, fn func(j *jsonReader) error) error {
		f, err := files[name].open(r, size)
		if err != nil {
			return &counter.ImportError{Reason: fmt.Sprintf("%s: %v", name, err)}
		}
		defer f.Close()
		if err := fn(newJSONReader(f)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	if err := in("info.json", goatInfo); err != nil {
		return imp, err
	}
	pages := newPageDays()
	var paths goatPaths
	if err := in("paths.jsonl", func(j *jsonReader) error { return paths.read(j, pages, pc) }); err != nil {
		return imp, err
	}
	days := map[string]*counter.Tally{}
	var events uint64
	err = in("hit_stats.jsonl", func(j *jsonReader) error {
		return eachLine(j, func() error {
			var hour string
			var id, count uint64
			var hasID, hasCount bool
			err := j.object(func(key string) (err error) {
				switch key {
				case "hour":
					hour, err = j.str()
				case "path_id":
					id, err = j.count("path_id")
					hasID = true
				case "count":
					count, err = j.count("count")
					hasCount = true
				default:
					err = j.skip()
				}
				return err
			})
			if err != nil {
				return err
			}
			at, err := time.Parse(time.RFC3339, hour)
			if err != nil {
				at, err = time.Parse(time.DateTime, hour)
			}
			if err != nil {
				return j.failQuoting(hour, "hour is not a time like 2026-01-02T15:00:00Z")
			}
			if ie := checkTime(at, now); ie != nil {
				return j.failQuoting(hour, "hour: %s", ie.Reason)
			}
			page, ok := paths.page(id)
			if !hasID || !hasCount || !ok {
				return j.fail("a line without a path_id of paths.jsonl and a count")
			}
			if page == goatEvent {
				events += count
				return nil
			}
			date := at.UTC().Format(time.DateOnly)
			t := days[date]
			if t == nil {
				if len(days) >= MaxDays {
					return j.fail("more than %d days", MaxDays)
				}
				t = &counter.Tally{}
				days[date] = t
			}
			if t.Views+count < t.Views {
				return j.fail("a day of more views than a count holds")
			}
			t.Views += count
			t.Visitors += count
			if page == goatNoPage {
				return nil // a path no page can have: the site's alone
			}
			if err := pages.addNumbered(at, uint32(page), count, count); err != nil {
				return j.fail("%v", err)
			}
			return nil
		})
	})
	if err != nil {
		return imp, err
	}
	return goatDone(imp, days, pages, events, "visitors of events")
}

// goatPaths is what paths.jsonl says of each path id: the number of its
// page in a pageDays, goatNoPage or goatEvent. It keeps 12 bytes a path,
// sorted by id, not a map of ids and page names, which takes several
// times that.
type goatPaths struct {
	ids   []uint64
	pages []int32
}

// What a path is when it is no page's.
const (
	goatNoPage = -1 // a path no page can have
	goatEvent  = -2
)

func (g *goatPaths) Len() int           { return len(g.ids) }
func (g *goatPaths) Less(i, j int) bool { return g.ids[i] < g.ids[j] }
func (g *goatPaths) Swap(i, j int) {
	g.ids[i], g.ids[j] = g.ids[j], g.ids[i]
	g.pages[i], g.pages[j] = g.pages[j], g.pages[i]
}

// page returns what path id is, and false when paths.jsonl has no such id.
func (g *goatPaths) page(id uint64) (int32, bool) {
	i, ok := slices.BinarySearch(g.ids, id)
	if !ok {
		return 0, false
	}
	return g.pages[i], true
}

// read reads paths.jsonl, numbering each path's page in pages as pc
// caps them.
func (g *goatPaths) read(j *jsonReader, pages *pageDays, pc *PageCap) error {
	err := eachLine(j, func() error {
		var id uint64
		var event bool
		var name string
		err := j.object(func(key string) (err error) {
			switch key {
			case "id":
				id, err = j.count("id")
			case "path":
				name, err = j.str()
			case "event":
				c, _ := j.peek()
				event = c == 't'
				err = j.skip()
			default:
				err = j.skip()
			}
			return err
		})
		if err != nil {
			return err
		}
		if len(g.ids) >= maxGoatPaths {
			return j.fail("more than %d paths", maxGoatPaths)
		}
		n := int32(goatNoPage)
		if page, err := counter.PageKey(name, nil); event {
			n = goatEvent
		} else if err == nil {
			n = int32(pages.numberOf(pc.page(page)))
		}
		g.ids = append(g.ids, id)
		g.pages = append(g.pages, n)
		return nil
	})
	if err != nil {
		return err
	}
	if !sort.IsSorted(g) {
		sort.Sort(g)
	}
	for i := 1; i < len(g.ids); i++ {
		if g.ids[i] == g.ids[i-1] {
			return j.fail("path id %d given twice", g.ids[i])
		}
	}
	return nil
}

// goatInfo checks the export's version.
func goatInfo(j *jsonReader) error {
	var version string
	err := j.object(func(key string) (err error) {
		if key == "export_version" {
			version, err = j.str()
			return err
		}
		return j.skip()
	})
	if err != nil {
		return err
	}
	if version != "1.0" {
		return j.failQuoting(version, "GoatCounter's ZIP export of a version this does not read (it reads 1.0)")
	}
	return nil
}

// eachLine calls fn for each value of a file of one JSON value a line.
func eachLine(j *jsonReader, fn func() error) error {
	for {
		c, err := j.peek()
		if err != nil {
			return err
		}
		if c == 0 {
			return nil
		}
		if err := fn(); err != nil {
			return err
		}
	}
}
