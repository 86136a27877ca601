package main

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"time"
)

// writeOwnCSV writes this counter's stats.csv export of a site as
// cgi/web/export.go writes it: a header, then by date the site's line
// and a line of each of s.pages pages (by name), each viewed twice by
// one visitor on each of s.days days.
func writeOwnCSV(w io.Writer, s zipShape) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("date,page,views,visitors,github,reloads,bots,prefetches,owner,foreign,ignored\n")
	first := zipFirst(s.days)
	pages := ownPages(s.pages)
	b := make([]byte, 0, 128)
	for d := range s.days {
		date := first.AddDate(0, 0, d).Format(time.DateOnly)
		b = append(b[:0], date...)
		b = append(b, ",,"...)
		b = strconv.AppendInt(b, int64(2*s.pages), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(s.pages), 10)
		b = append(b, ",0,0,0,0,0,0,0\n"...)
		bw.Write(b)
		for _, p := range pages {
			b = append(b[:0], date...)
			b = append(b, ',')
			b = append(b, p...)
			b = append(b, ",2,1,,,,,,,\n"...)
			bw.Write(b)
		}
	}
	return bw.Flush()
}

// writeOwnJSON writes this counter's stats.json export of the site that
// writeOwnCSV writes, named www.
func writeOwnJSON(w io.Writer, s zipShape) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	first := zipFirst(s.days)
	since := first.Format(time.RFC3339)
	bw.WriteString(`{"name":"www","show":"views","total":` + strconv.Itoa(2*s.pages*s.days) + `,"visitors":` + strconv.Itoa(s.pages*s.days) +
		`,"created":"` + since + `","tallied_since":"` + since + `","days":[`)
	for d := range s.days {
		if d > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(`{"date":"` + first.AddDate(0, 0, d).Format(time.DateOnly) + `","views":` + strconv.Itoa(2*s.pages) + `,"visitors":` + strconv.Itoa(s.pages) +
			`,"github":0,"reloads":0,"bots":0,"prefetches":0,"owner":0,"foreign":0,"ignored":0}`)
	}
	bw.WriteString(`],"referrers":[],"page_days":[`)
	pages := ownPages(s.pages)
	for d := range s.days {
		date := first.AddDate(0, 0, d).Format(time.DateOnly)
		for i, p := range pages {
			if d > 0 || i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(`{"date":"` + date + `","page":"` + p + `","views":2,"visitors":1}`)
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// ownPages are the pages of the site, sorted as an export sorts them.
func ownPages(n int) []string {
	pages := make([]string, n)
	for i := range pages {
		pages[i] = "/posts/" + strconv.Itoa(i) + "-a-post/"
	}
	slices.Sort(pages)
	return pages
}
