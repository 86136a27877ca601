package imports

import (
	"fmt"
	"io"
	"path"
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
// sizes and languages, which a counter here does not keep.
func GoatCounterZIP(r io.ReaderAt, size int64) (counter.Imported, error) {
	return goatCounterZIP(r, size, time.Now())
}

func goatCounterZIP(r io.ReaderAt, size int64, now time.Time) (counter.Imported, error) {
	var imp counter.Imported
	entries, err := readZIP(r, size)
	if err != nil {
		return imp, &counter.ImportError{Reason: "not a ZIP file GoatCounter wrote: " + err.Error()}
	}
	files := map[string]*zipEntry{}
	for i := range entries {
		f := &entries[i]
		switch name := path.Base(f.name); name {
		case "info.json", "paths.jsonl", "hit_stats.jsonl":
			if files[name] != nil {
				return imp, &counter.ImportError{Reason: "GoatCounter's ZIP export with two files named " + name}
			}
			files[name] = f
		}
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
	paths := map[uint64]goatPath{}
	if err := in("paths.jsonl", func(j *jsonReader) error { return goatPaths(j, paths) }); err != nil {
		return imp, err
	}
	days := map[string]*counter.Tally{}
	pages := newPageDays()
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
			p, ok := paths[id]
			if !hasID || !hasCount || !ok {
				return j.fail("a line without a path_id of paths.jsonl and a count")
			}
			if p.event {
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
			if p.page == "" {
				return nil // a path no page can have: the site's alone
			}
			if err := pages.addCounts(at, p.page, count, count); err != nil {
				return j.fail("%v", err)
			}
			return nil
		})
	})
	if err != nil {
		return imp, err
	}
	var dayBook dayBook
	for date, t := range days {
		dayBook.add(counter.Day{Date: date, Tally: *t}, 0)
	}
	imp.Days, imp.PageDays = dayBook.sorted(), pages.list()
	if events > 0 {
		imp.LeftOut = append(imp.LeftOut, fmt.Sprintf("%d visitors of events (GoatCounter's events name no page: no view counts them)", events))
	}
	return imp, nil
}

// goatPath is what a ZIP export's paths.jsonl says of a path.
type goatPath struct {
	page  string // as counter.PageKey makes it; "" for a path no page can have
	event bool
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

// goatPaths reads paths.jsonl into paths, by id.
func goatPaths(j *jsonReader, paths map[uint64]goatPath) error {
	return eachLine(j, func() error {
		var id uint64
		var p goatPath
		var name string
		err := j.object(func(key string) (err error) {
			switch key {
			case "id":
				id, err = j.count("id")
			case "path":
				name, err = j.str()
			case "event":
				c, _ := j.peek()
				p.event = c == 't'
				err = j.skip()
			default:
				err = j.skip()
			}
			return err
		})
		if err != nil {
			return err
		}
		if len(paths) >= maxGoatPaths {
			return j.fail("more than %d paths", maxGoatPaths)
		}
		if page, err := counter.PageKey(name, nil); err == nil {
			p.page = page
		}
		paths[id] = p
		return nil
	})
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
