package main

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"
)

// zipShape is the site whose export is written: pages pages, each viewed
// on days days (the last 2025-12-31), a page-day row each.
type zipShape struct{ pages, days int }

// zipFirst is the first day of a written export, days before 2026.
func zipFirst(days int) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -days)
}

// writeGoatZIP writes GoatCounter's ZIP export as its source writes it
// (arp242/goatcounter c957f51c43eb56dcc462b7e9d7a4550955b71846,
// exportjson.go, RunJSON, lines 144-258: a folder named as the file,
// info.json, and one JSON object a line in each .jsonl file, deflated by
// archive/zip; hit_stats from ref_counts, cron/ref_count.go), as
// counter/imports/goatgen_test.go does for a few visits: paths.jsonl
// names s.pages paths, and hit_stats.jsonl gives each, on each of s.days
// days, an hour of 1 to 4 visitors.
func writeGoatZIP(w io.Writer, s zipShape) error {
	z := zip.NewWriter(w)
	dir := "goatcounter-export-bench-20260101T120000Z/"
	f, err := z.Create(dir + "info.json")
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "{\n  \"created_at\": \"2026-01-01T12:00:00Z\",\n  \"created_by\": \"user_id=1 <owner@example.com>\",\n  \"created_for\": \"bench.goatcounter.com\",\n  \"export_version\": \"1.0\",\n  \"goatcounter_version\": \"v2.7.0\"\n}\n")
	jsonl := func(name string, each func(bw *bufio.Writer) error) error {
		f, err := z.Create(dir + name + ".jsonl")
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 1<<16)
		if each != nil {
			if err := each(bw); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	err = jsonl("paths", func(bw *bufio.Writer) error {
		for i := range s.pages {
			fmt.Fprintf(bw, `{"id":%d,"path":"/posts/%d-a-post/","title":"Post %d"}`+"\n", i+1, i, i)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range []string{"refs", "browsers", "systems", "locations", "languages", "browser_stats", "system_stats", "location_stats", "size_stats", "language_stats"} {
		if err := jsonl(name, nil); err != nil {
			return err
		}
	}
	first := zipFirst(s.days)
	err = jsonl("hit_stats", func(bw *bufio.Writer) error {
		b := make([]byte, 0, 128)
		for d := range s.days {
			day := first.AddDate(0, 0, d)
			for i := range s.pages {
				b = append(b[:0], `{"hour":"`...)
				b = day.Add(time.Duration(i%24)*time.Hour).AppendFormat(b, time.RFC3339)
				b = append(b, `","path_id":`...)
				b = strconv.AppendInt(b, int64(i+1), 10)
				b = append(b, `,"ref_id":0,"count":`...)
				b = strconv.AppendInt(b, int64(1+(i+d)%4), 10)
				b = append(b, "}\n"...)
				if _, err := bw.Write(b); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return z.Close()
}

// writePlausibleZIP writes Plausible's CSV export as its source writes it
// (plausible/analytics 06eb5d3b89243361e85c17d09a2eeeb0760769cc,
// lib/plausible/exports.ex: export_queries' file names, the columns of
// export_visitors_q and export_pages_q, stream_archive's ZIP of
// ClickHouse's CSVWithNames), as counter/imports/plausiblegen_test.go
// does for a few views, but deflated (a ZIP saved again, as an owner's
// tools may): imported_pages has a row for each of s.pages pages on each
// of s.days days.
func writePlausibleZIP(w io.Writer, s zipShape) error {
	first := zipFirst(s.days)
	last := first.AddDate(0, 0, s.days-1)
	suffix := "_" + first.Format("20060102") + "_" + last.Format("20060102") + ".csv"
	z := zip.NewWriter(w)
	file := func(name string, each func(bw *bufio.Writer)) error {
		f, err := z.Create(name + suffix)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 1<<16)
		each(bw)
		return bw.Flush()
	}
	err := file("imported_visitors", func(bw *bufio.Writer) {
		bw.WriteString(`"date","visitors","pageviews","bounces","visits","visit_duration"` + "\n")
		for d := range s.days {
			fmt.Fprintf(bw, "\"%s\",%d,%d,0,%d,60\n", first.AddDate(0, 0, d).Format(time.DateOnly), s.pages, 2*s.pages, s.pages)
		}
	})
	if err != nil {
		return err
	}
	err = file("imported_pages", func(bw *bufio.Writer) {
		bw.WriteString(`"date","hostname","page","visits","visitors","pageviews","total_scroll_depth","total_scroll_depth_visits"` + "\n")
		b := make([]byte, 0, 128)
		for d := range s.days {
			date := first.AddDate(0, 0, d).Format(time.DateOnly)
			for i := range s.pages {
				b = append(b[:0], '"')
				b = append(b, date...)
				b = append(b, `","blog.example","/posts/`...)
				b = strconv.AppendInt(b, int64(i), 10)
				b = append(b, `-a-post/",1,1,2,0,0`+"\n"...)
				bw.Write(b)
			}
		}
	})
	if err != nil {
		return err
	}
	if err := file("imported_sources", func(bw *bufio.Writer) {
		bw.WriteString(`"date","source","referrer","utm_source","utm_medium","utm_campaign","utm_content","utm_term","pageviews","visitors","visits","visit_duration","bounces"` + "\n")
	}); err != nil {
		return err
	}
	return z.Close()
}
