// Command hitbench measures what a counted hit costs as a CGI process,
// beside the floor that any Go CGI program pays. deploy/bench/bench-hit.sh builds
// the binaries, starts lighttpd and runs it; see there.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	floor := flag.String("floor", "", "floor CGI binary")
	counter := flag.String("counter", "", "counter CGI binary")
	db := flag.String("db", "", "database with a counter named bench")
	n := flag.Int("n", 300, "runs of each binary, interleaved")
	base := flag.String("url", "", "base URL of a web server serving both as CGI (empty: direct runs only)")
	requests := flag.Int("requests", 2000, "requests per binary and concurrency under the web server")
	also := flag.String("also", "", "comma-separated names of more counter builds in the server's cgi-bin to load alike")
	before := flag.String("before", "", "the counter binary before a change, to time beside it (direct runs)")
	beforeDB := flag.String("before-db", "", "the database of -before, with a counter named bench (it may be of an older schema)")
	costsOff := flag.Bool("costs-off", true, "also time the counter with COUNTER_COSTS=off, for what measuring costs a hit")
	looks := flag.String("looks", "", "comma-separated built-in looks or digit sets (theme=NAME) to time beside the default digits (direct runs); NAME:gif or NAME:svg times that format beside the default digits in it")
	var cases []viewCase
	flag.Func("case", "`LABEL=NAME:DB[:BEFORE-DB]`: also time a counted view of counter NAME in DB (and with -before, in BEFORE-DB), direct runs; repeatable", func(v string) error {
		c, err := parseCase(v)
		cases = append(cases, c)
		return err
	})
	flag.Parse()
	if *floor == "" || *counter == "" || *db == "" {
		flag.Usage()
		os.Exit(2)
	}
	var lookNames []string
	if *looks != "" {
		lookNames = strings.Split(*looks, ",")
	}
	if err := direct(*floor, *counter, *db, *n, *before, *beforeDB, *costsOff, lookNames, cases); err != nil {
		fmt.Fprintln(os.Stderr, "hitbench:", err)
		os.Exit(1)
	}
	if *base != "" {
		var names []string
		if *also != "" {
			names = strings.Split(*also, ",")
		}
		if err := served(*base, *requests, names); err != nil {
			fmt.Fprintln(os.Stderr, "hitbench:", err)
			os.Exit(1)
		}
	}
}

// viewCase is a counted view of another counter than bench, or in another
// file: a site's page, or a counter in a year-old file.
type viewCase struct {
	label, name, db, beforeDB string
}

// parseCase reads LABEL=NAME:DB[:BEFORE-DB].
func parseCase(v string) (viewCase, error) {
	label, rest, ok := strings.Cut(v, "=")
	f := strings.Split(rest, ":")
	if !ok || label == "" || len(f) < 2 || len(f) > 3 || f[0] == "" || f[1] == "" {
		return viewCase{}, fmt.Errorf("-case %q: want LABEL=NAME:DB[:BEFORE-DB]", v)
	}
	c := viewCase{label: label, name: f[0], db: f[1]}
	if len(f) == 3 {
		c.beforeDB = f[2]
	}
	return c, nil
}

// cgiEnv is a browser's hit on path as a web server passes it, the
// runtime directory (where visitors are told apart) beside the database:
// with a
// User-Agent, a Referer on the owner's site and a cookie that is not the
// owner's mark, so that every rule of a counter that has them all on
// (bench-hit.sh sets them) runs, and the hit still counts. On a site for
// www.example.org the Referer is the page viewed, as a browser's image
// request from that page says.
func cgiEnv(db, path string) []string {
	return []string{
		"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "REQUEST_METHOD=GET",
		"SERVER_NAME=127.0.0.1", "SERVER_PORT=80", "REMOTE_ADDR=127.0.0.1", "HTTP_HOST=127.0.0.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "QUERY_STRING=",
		"REQUEST_URI=/cgi-bin/counter.cgi" + path, "COUNTER_DB=" + db,
		"COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run"),
		"HTTP_USER_AGENT=" + browserUA, "HTTP_REFERER=https://www.example.org/blog/2026/12/a-post.html",
		"HTTP_COOKIE=counter_owner=not-the-mark; theme=dark",
		"HTTP_ACCEPT=image/avif,image/webp,image/png,image/*;q=0.8,*/*;q=0.5",
	}
}

// withQuery is env with its QUERY_STRING set to q.
func withQuery(env []string, q string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		if strings.HasPrefix(kv, "QUERY_STRING=") {
			kv = "QUERY_STRING=" + q
		}
		out[i] = kv
	}
	return out
}

// browserUA is a desktop Chrome's User-Agent.
const browserUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// direct times the binaries run as CGI processes by this program: the
// floor, the counter (and its other builds), and the counter before a
// change, each hit a new visitor's.
//
// Each of cases is timed beside them, for the counter and for the one
// before; its runs start after two views untimed, as the first write of a
// binary on a file of an older schema migrates it and the first of the day
// starts the day, which would otherwise be one of the runs timed.
func direct(floor, counter, db string, n int, before, beforeDB string, costsOff bool, looks []string, cases []viewCase) error {
	runs := []cgiRun{{"floor (1x1 GIF)", floor, cgiEnv(db, "/bench.gif"), false}}
	counters := strings.Split(counter, ",")
	for i, c := range counters {
		label := "counted PNG hit"
		if i > 0 {
			label += " " + strconv.Itoa(i+1)
		}
		runs = append(runs, cgiRun{label, c, cgiEnv(db, "/bench.png"), true})
	}
	off := -1
	if costsOff {
		off = len(runs)
		runs = append(runs, cgiRun{"the same, costs off", counters[0], append(cgiEnv(db, "/bench.png"), "COUNTER_COSTS=off"), true})
	}
	// The default digits in each other format a look is timed in, to
	// compare it with.
	baseline := map[string]int{"png": 1}
	for _, look := range looks {
		if _, ext, ok := strings.Cut(look, ":"); ok && baseline[ext] == 0 {
			baseline[ext] = len(runs)
			runs = append(runs, cgiRun{"counted " + strings.ToUpper(ext) + " hit", counters[0], cgiEnv(db, "/bench."+ext), true})
		}
	}
	firstLook := len(runs)
	for _, look := range looks {
		name, ext, ok := strings.Cut(look, ":")
		if !ok {
			ext = "png"
		}
		runs = append(runs, cgiRun{"theme=" + look, counters[0], withQuery(cgiEnv(db, "/bench."+ext), "theme="+name), true})
	}
	// The cases' runs, and the ones before: the plain counter's first.
	firstCase := len(runs)
	for _, c := range cases {
		runs = append(runs, cgiRun{c.label, counters[0], cgiEnv(c.db, "/"+c.name+".png"), true})
	}
	firstBefore := len(runs)
	if before != "" {
		runs = append(runs, cgiRun{"the same, before", before, cgiEnv(beforeDB, "/bench.png"), true})
		for _, c := range cases {
			if c.beforeDB == "" {
				return fmt.Errorf("-case %s: no BEFORE-DB to time -before on", c.label)
			}
			runs = append(runs, cgiRun{c.label + ", before", before, cgiEnv(c.beforeDB, "/"+c.name+".png"), true})
		}
	}
	for j, r := range runs {
		if j >= firstCase && j != firstBefore {
			// Two views of run n's visitors, which no timed run has.
			if _, err := r.runOnce(n, j); err != nil {
				return fmt.Errorf("before timing: %w", err)
			}
		}
	}
	res, err := interleave(runs, n)
	if err != nil {
		return err
	}
	fmt.Printf("direct CGI runs, %d each, interleaved\n", n)
	fmt.Printf("  %-24s %9s %9s %9s %10s\n", "", "p50 ms", "p99 ms", "hits/s", "peak RSS")
	for i, r := range runs {
		d := walls(res[i])
		var total time.Duration
		for _, x := range d {
			total += x
		}
		fmt.Printf("  %-24s %9.2f %9.2f %9.1f %8.2f MB\n", r.label, ms(percentile(d, 50)), ms(percentile(d, 99)),
			float64(len(d))/total.Seconds(), float64(peakRSS(res[i]))/1e6)
	}
	a, b := walls(res[0]), walls(res[1])
	fmt.Printf("  ratio b/a: p50 %.2f (target <= 1.30), p99 %.2f, peak RSS %.2f (target <= 1.30)\n",
		ms(percentile(b, 50))/ms(percentile(a, 50)), ms(percentile(b, 99))/ms(percentile(a, 99)),
		float64(peakRSS(res[1]))/float64(peakRSS(res[0])))
	if off >= 0 {
		o := walls(res[off])
		fmt.Printf("  measuring the costs: p50 %.3f (target <= 1.02), p99 %.3f, peak RSS %+.2f MB, costs on against off\n",
			ms(percentile(b, 50))/ms(percentile(o, 50)), ms(percentile(b, 99))/ms(percentile(o, 99)),
			float64(peakRSS(res[1])-peakRSS(res[off]))/1e6)
	}
	for k, look := range looks {
		l := res[firstLook+k]
		ext := "png"
		if _, e, ok := strings.Cut(look, ":"); ok {
			ext = e
		}
		base := res[baseline[ext]]
		fmt.Printf("  %s against the default digits: p50 %.3f, p99 %.3f, peak RSS %.3f (target <= 1.10 each)\n",
			runs[firstLook+k].label, ms(percentile(walls(l), 50))/ms(percentile(walls(base), 50)),
			ms(percentile(walls(l), 99))/ms(percentile(walls(base), 99)), float64(peakRSS(l))/float64(peakRSS(base)))
	}
	// against is the ratios of run i's p50 and peak RSS to run k's.
	against := func(i, k int) (float64, float64) {
		return ms(percentile(walls(res[i]), 50)) / ms(percentile(walls(res[k]), 50)),
			float64(peakRSS(res[i])) / float64(peakRSS(res[k]))
	}
	if before == "" {
		for k, c := range cases {
			p, m := against(firstCase+k, 0)
			fmt.Printf("  %s against the floor: p50 %.2f, peak RSS %.2f (targets <= 1.30)\n", c.label, p, m)
		}
		return nil
	}
	old := res[firstBefore]
	fmt.Printf("  after - before: p50 %+.3f ms, peak RSS %+.2f MB\n",
		ms(percentile(b, 50))-ms(percentile(walls(old), 50)), float64(peakRSS(res[1])-peakRSS(old))/1e6)
	fmt.Println("  issue 31, wall time p50 and peak RSS of a counted view against the floor (targets <= 1.30 each), of the binary before, and after against before:")
	after := append([]int{1}, make([]int, len(cases))...)
	labels := []string{"plain counter"}
	for k, c := range cases {
		after[k+1] = firstCase + k
		labels = append(labels, c.label)
	}
	for k, i := range after {
		p, m := against(i, 0)
		bp, bm := against(firstBefore+k, 0)
		ap, am := against(i, firstBefore+k)
		fmt.Printf("    %-20s after %.2f and %.2f, before %.2f and %.2f; after against before %.2f and %.2f\n",
			labels[k], p, m, bp, bm, ap, am)
	}
	return nil
}
