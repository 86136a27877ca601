// Command pagebench measures what the full tool's pages cost, before and
// after a change, side by side: each page as a fresh CGI process (wall
// time and peak RSS, the two binaries interleaved), and, given -url, the
// FastCGI service's memory after serving many pages. deploy/bench/
// bench-pages.sh builds the binaries and the files, starts lighttpd and
// runs it; see there.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/deploy/bench/benchstat"
)

func main() {
	before := flag.String("before", "", "the full tool before the change")
	after := flag.String("after", "", "the full tool after the change")
	beforeDB := flag.String("before-db", "", "bytesgen's file for -before, its counter c002 with a password")
	afterDB := flag.String("after-db", "", "bytesgen's file for -after, its counter c002 with a password")
	n := flag.Int("n", 200, "runs of each page and binary, interleaved")
	base := flag.String("url", "", "base URL of a lighttpd serving both as FastCGI under /fcgi-before and /fcgi-after (empty: CGI runs only)")
	requests := flag.Int("requests", 1000, "FastCGI pages per binary")
	fcgiBefore := flag.String("fcgi-before", "", "the binary lighttpd runs as FastCGI under /fcgi-before (a copy of -before)")
	fcgiAfter := flag.String("fcgi-after", "", "the binary lighttpd runs as FastCGI under /fcgi-after (a copy of -after)")
	flag.Parse()
	if *before == "" || *after == "" || *beforeDB == "" || *afterDB == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := direct(*before, *after, *beforeDB, *afterDB, *n); err != nil {
		fmt.Fprintln(os.Stderr, "pagebench:", err)
		os.Exit(1)
	}
	if *base != "" {
		if err := served(*base, *requests, *fcgiBefore, *fcgiAfter); err != nil {
			fmt.Fprintln(os.Stderr, "pagebench:", err)
			os.Exit(1)
		}
	}
}

// page is one request a CGI process answers.
type page struct {
	label, method, path, body, want string
}

// pages are the requests timed: a year-old counter's statistics, a site's,
// the login form of a protected counter, a failed login (a bcrypt check
// at cost 10, and the form again), and the JSON count.
var pages = []page{
	{"statistics page", "GET", "/c001/stats", "", "<svg"},
	{"site statistics", "GET", "/site/stats", "", "<table class=\"pages\">"},
	{"login form", "GET", "/c002/stats", "", "type=\"password\""},
	{"login POST (wrong)", "POST", "/c002/login", "password=not-the-password", "Status: 401"},
	{"JSON count", "GET", "/c001.json", "", "\"views\":"},
}

// cgiEnv is a browser's request for p as a web server passes it, from
// client address number i, each in a /24 of its own: the login guard
// throttles a network's failures, and a refusal would skip the bcrypt
// check that a login POST is timed for.
func cgiEnv(db string, p page, i int) []string {
	env := []string{
		"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "REQUEST_METHOD=" + p.method,
		"SERVER_NAME=127.0.0.1", "SERVER_PORT=80", "HTTP_HOST=127.0.0.1",
		fmt.Sprintf("REMOTE_ADDR=10.%d.%d.1", i>>8&255, i&255),
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + p.path, "QUERY_STRING=",
		"REQUEST_URI=/cgi-bin/counter.cgi" + p.path, "COUNTER_DB=" + db,
		"COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run"),
		"HTTP_USER_AGENT=Mozilla/5.0 (X11; Linux x86_64) pagebench", "HTTP_SEC_FETCH_SITE=same-origin",
	}
	if p.body != "" {
		env = append(env, "CONTENT_TYPE=application/x-www-form-urlencoded", "CONTENT_LENGTH="+strconv.Itoa(len(p.body)))
	}
	return env
}

// run answers p once with bin, then again for its peak RSS
// (benchstat.PeakRSS).
func run(bin, db string, p page, i int) (benchstat.Sample, error) {
	out, wall, err := benchstat.RunCGI(bin, cgiEnv(db, p, 2*i), strings.NewReader(p.body))
	if err != nil {
		return benchstat.Sample{}, fmt.Errorf("%s %s: %w", bin, p.label, err)
	}
	if !bytes.Contains(out, []byte(p.want)) {
		return benchstat.Sample{}, fmt.Errorf("%s %s: no %q in %.200q", bin, p.label, p.want, out)
	}
	rss, err := benchstat.PeakRSS(bin, cgiEnv(db, p, 2*i+1), strings.NewReader(p.body))
	if err != nil {
		return benchstat.Sample{}, fmt.Errorf("%s %s: %w", bin, p.label, err)
	}
	return benchstat.Sample{Wall: wall, PeakRSS: rss}, nil
}

// direct times every page with both binaries, taking turns run by run.
func direct(before, after, beforeDB, afterDB string, n int) error {
	bins := [2][2]string{{before, beforeDB}, {after, afterDB}}
	res := make([][2][]benchstat.Sample, len(pages))
	for i := range n {
		for k, p := range pages {
			for j := range 2 {
				b := bins[(i+j)%2]
				s, err := run(b[0], b[1], p, i)
				if err != nil {
					return err
				}
				res[k][(i+j)%2] = append(res[k][(i+j)%2], s)
			}
		}
	}
	fmt.Printf("direct CGI runs, %d each, interleaved\n", n)
	fmt.Printf("  %-20s %10s %10s %7s %14s %14s %7s\n", "", "p50 before", "p50 after", "ratio", "peak before", "peak after", "ratio")
	for k, p := range pages {
		b, a := benchstat.Walls(res[k][0]), benchstat.Walls(res[k][1])
		rb, ra := benchstat.MaxRSS(res[k][0]), benchstat.MaxRSS(res[k][1])
		fmt.Printf("  %-20s %7.2f ms %7.2f ms %7.2f %8.2f MB %11.2f MB %7.2f\n", p.label,
			benchstat.Ms(benchstat.Percentile(b, 50)), benchstat.Ms(benchstat.Percentile(a, 50)),
			float64(benchstat.Percentile(a, 50))/float64(benchstat.Percentile(b, 50)),
			float64(rb)/1e6, float64(ra)/1e6, float64(ra)/float64(rb))
	}
	return nil
}

// served asks both FastCGI processes for requests pages each, taking
// turns, the GET pages of pages in rotation, then reads their memory.
func served(base string, requests int, before, after string) error {
	client := &http.Client{Timeout: 30 * time.Second}
	prefixes := [2]string{"/fcgi-before/counter.cgi", "/fcgi-after/counter.cgi"}
	for i := range requests {
		p := pages[i%len(pages)]
		if p.method != "GET" {
			p = pages[0]
		}
		for j := range 2 {
			resp, err := client.Get(base + prefixes[(i+j)%2] + p.path)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s: %s, %v", p.path, resp.Status, err)
			}
		}
	}
	fmt.Printf("FastCGI, one process each (lighttpd's bin-path), after %d pages each (statistics, site, login form, JSON in turn)\n", requests)
	fmt.Printf("  %-10s %10s %10s\n", "", "VmRSS", "VmHWM")
	for i, bin := range [2]string{before, after} {
		pid, err := pidOf(bin)
		if err != nil {
			return err
		}
		rss, hwm, err := memory(pid)
		if err != nil {
			return err
		}
		fmt.Printf("  %-10s %7.2f MB %7.2f MB\n", [2]string{"before", "after"}[i], float64(rss)/1e6, float64(hwm)/1e6)
	}
	return nil
}

// pidOf finds the one process running bin.
func pidOf(bin string) (int, error) {
	if pids := testenv.ProcessesOf(bin); len(pids) > 0 {
		return pids[0], nil
	}
	return 0, fmt.Errorf("no process runs %s", bin)
}

// memory reads a process's resident and peak resident memory, in bytes.
func memory(pid int) (rss, hwm int64, err error) {
	p, err := testenv.ReadProcess(pid)
	return p.RSS, p.PeakRSS, err
}
