// Command importbench writes the files that deploy/bench/bench-import.sh
// imports to measure what an import costs in memory: a busy site's access
// log, a stats.csv with one huge field, and GoatCounter's and Plausible's
// ZIP exports and this counter's own of a site of many pages.
//
//	importbench log -size BYTES [-days N] [-pages N] [-sweep] FILE
//	importbench csv -field BYTES FILE
//	importbench goatzip|plausiblezip|owncsv|ownjson -pages N -days N FILE
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "importbench:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: importbench log|csv|goatzip|plausiblezip|owncsv|ownjson [flags] FILE")
	}
	fs := flag.NewFlagSet("importbench "+args[0], flag.ContinueOnError)
	size := fs.Int64("size", 200<<20, "log: bytes of log to write, about")
	days := fs.Int("days", 365, "log and the exports: days the file spans")
	pages := fs.Int("pages", 2000, "log and the exports: pages of the site")
	sweep := fs.Bool("sweep", false, "log: view every page once every day too (a line each), so that the log holds days x pages page days")
	field := fs.Int64("field", 200<<20, "csv: bytes of the huge field")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("one FILE is needed")
	}
	f, err := os.Create(fs.Arg(0))
	if err != nil {
		return err
	}
	switch args[0] {
	case "log":
		var s logStats
		s, err = writeSiteLog(f, logShape{size: *size, days: *days, pages: *pages, sweep: *sweep})
		if err == nil {
			fmt.Printf("%s: %d lines, %d page views over %d days of %d pages\n", fs.Arg(0), s.lines, s.pageViews, *days, *pages)
		}
	case "csv":
		err = writeHugeFieldCSV(f, *field)
	case "goatzip":
		err = writeGoatZIP(f, zipShape{pages: *pages, days: *days})
	case "plausiblezip":
		err = writePlausibleZIP(f, zipShape{pages: *pages, days: *days})
	case "owncsv":
		err = writeOwnCSV(f, zipShape{pages: *pages, days: *days})
	case "ownjson":
		err = writeOwnJSON(f, zipShape{pages: *pages, days: *days})
	default:
		err = fmt.Errorf("unknown command %q", args[0])
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// logShape is the site whose log is written.
type logShape struct {
	size        int64 // bytes, about
	days, pages int
	sweep       bool // every page viewed every day
}

type logStats struct{ lines, pageViews int64 }

// writeSiteLog writes an Apache combined log of a busy site on one host:
// its pages' views fall by Zipf (s = 1.1) on the pages; each is followed
// by the page's style sheet, script and an image or two; one request in
// eight is a crawler's; a few are 404s and 304s; a day's visitors are a
// few thousand addresses of a dozen browsers. The days are spread evenly
// over the size, oldest first, as logrotate leaves them once joined.
func writeSiteLog(w io.Writer, s logShape) (logStats, error) {
	agents := []string{
		"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
		"Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
	}
	bots := []string{
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
		"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
	}
	assets := []string{"/css/site.css", "/js/site.js", "/img/header.jpg", "/favicon.ico", "/feed.xml"}
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.1, 1, uint64(s.pages-1))
	bw := bufio.NewWriterSize(w, 1<<20)
	// The last day is 2025-12-31, however many: no day after tomorrow.
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -s.days)
	perDay := s.size / int64(s.days)
	var st logStats
	var written int64
	b := make([]byte, 0, 512)
	line := func(at time.Time, visitor int, agent, method, path, status, referer string) error {
		b = b[:0]
		b = append(b, "203.0."...)
		b = strconv.AppendInt(b, int64(visitor/250%250), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(visitor%250+1), 10)
		b = append(b, " - - ["...)
		b = at.AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
		b = append(b, "] \""...)
		b = append(b, method...)
		b = append(b, ' ')
		b = append(b, path...)
		b = append(b, " HTTP/1.1\" "...)
		b = append(b, status...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, 300+r.Int64N(40000), 10)
		b = append(b, " \""...)
		b = append(b, referer...)
		b = append(b, "\" \""...)
		b = append(b, agent...)
		b = append(b, "\"\n"...)
		n, err := bw.Write(b)
		written += int64(n)
		st.lines++
		return err
	}
	for day := range s.days {
		start := first.AddDate(0, 0, day)
		var sweep []int
		if s.sweep {
			sweep = r.Perm(s.pages)
		}
		dayEnd := perDay * int64(day+1)
		// Each request of the day a little later than the one before.
		for i := 0; written < dayEnd || len(sweep) > 0; i++ {
			secs := min((written-perDay*int64(day))*86400/max(perDay, 1), 86399)
			if perDay == 0 {
				secs = int64(i) * 86400 / int64(s.pages)
			}
			at := start.Add(time.Duration(secs) * time.Second)
			rank := int(zipf.Uint64())
			swept := len(sweep) > 0
			if swept {
				rank, sweep = sweep[0], sweep[1:]
			}
			page := "/posts/" + strconv.Itoa(rank) + "-a-post-with-a-title/"
			visitor := day*7919 + r.IntN(4000)
			if swept {
				// A reader who came for this page alone, from a feed.
				st.pageViews++
				if err := line(at, visitor, agents[visitor%len(agents)], "GET", page, "200", "-"); err != nil {
					return st, err
				}
				continue
			}
			if r.IntN(8) == 0 {
				if err := line(at, visitor, bots[r.IntN(len(bots))], "GET", page, "200", "-"); err != nil {
					return st, err
				}
				continue
			}
			agent := agents[visitor%len(agents)]
			status := "200"
			switch r.IntN(40) {
			case 0:
				status = "404"
			case 1, 2:
				status = "304"
			}
			st.pageViews++
			if err := line(at, visitor, agent, "GET", page, status, "https://www.search.example/?q="+strconv.Itoa(rank)); err != nil {
				return st, err
			}
			for k := range 2 + r.IntN(3) {
				if err := line(at, visitor, agent, "GET", assets[(rank+k)%len(assets)], "200", "https://blog.example"+page); err != nil {
					return st, err
				}
			}
		}
	}
	return st, bw.Flush()
}

// writeHugeFieldCSV writes a stats.csv whose second line's views field is
// size bytes of "x", then an ordinary line.
func writeHugeFieldCSV(w io.Writer, size int64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString("date,views,visitors\n2026-01-02,")
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for n := int64(0); n < size; n += int64(len(chunk)) {
		if _, err := bw.Write(chunk[:min(int64(len(chunk)), size-n)]); err != nil {
			return err
		}
	}
	bw.WriteString(",3\n2026-01-03,7,4\n")
	return bw.Flush()
}
