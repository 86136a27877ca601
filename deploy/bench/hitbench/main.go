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
	flag.Parse()
	if *floor == "" || *counter == "" || *db == "" {
		flag.Usage()
		os.Exit(2)
	}
	var lookNames []string
	if *looks != "" {
		lookNames = strings.Split(*looks, ",")
	}
	if err := direct(*floor, *counter, *db, *n, *before, *beforeDB, *costsOff, lookNames); err != nil {
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

// cgiEnv is a browser's hit on path as a web server passes it, the
// runtime directory (where visitors are told apart) beside the database:
// with a
// User-Agent, a Referer on the owner's site and a cookie that is not the
// owner's mark, so that every rule of a counter that has them all on
// (bench-hit.sh sets them) runs, and the hit still counts.
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
func direct(floor, counter, db string, n int, before, beforeDB string, costsOff bool, looks []string) error {
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
	if before != "" {
		runs = append(runs, cgiRun{"the same, before", before, cgiEnv(beforeDB, "/bench.png"), true})
	}
	res, err := interleave(runs, n)
	if err != nil {
		return err
	}
	fmt.Printf("direct CGI runs, %d each, interleaved\n", n)
	fmt.Printf("  %-18s %9s %9s %9s %10s\n", "", "p50 ms", "p99 ms", "hits/s", "peak RSS")
	for i, r := range runs {
		d := walls(res[i])
		var total time.Duration
		for _, x := range d {
			total += x
		}
		fmt.Printf("  %-18s %9.2f %9.2f %9.1f %8.2f MB\n", r.label, ms(percentile(d, 50)), ms(percentile(d, 99)),
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
	if before != "" {
		old := res[len(res)-1]
		fmt.Printf("  after - before: p50 %+.3f ms, peak RSS %+.2f MB\n",
			ms(percentile(b, 50))-ms(percentile(walls(old), 50)), float64(peakRSS(res[1])-peakRSS(old))/1e6)
		fmt.Printf("  issue 31, wall time p50 and peak RSS of a counted view: against the floor %.2f and %.2f (targets <= 1.30), before %.2f and %.2f; against before %.2f and %.2f\n",
			ms(percentile(b, 50))/ms(percentile(a, 50)), float64(peakRSS(res[1]))/float64(peakRSS(res[0])),
			ms(percentile(walls(old), 50))/ms(percentile(a, 50)), float64(peakRSS(old))/float64(peakRSS(res[0])),
			ms(percentile(b, 50))/ms(percentile(walls(old), 50)), float64(peakRSS(res[1]))/float64(peakRSS(old)))
	}
	return nil
}
