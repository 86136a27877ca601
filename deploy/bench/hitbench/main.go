// Command hitbench measures what a counted hit costs as a CGI process,
// beside the floor that any Go CGI program pays. deploy/bench/bench-hit.sh builds
// the binaries, starts lighttpd and runs it; see there.
package main

import (
	"flag"
	"fmt"
	"os"
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
	flag.Parse()
	if *floor == "" || *counter == "" || *db == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := direct(*floor, *counter, *db, *n); err != nil {
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

func cgiEnv(db, path string) []string {
	return []string{
		"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "REQUEST_METHOD=GET",
		"SERVER_NAME=127.0.0.1", "SERVER_PORT=80", "REMOTE_ADDR=127.0.0.1", "HTTP_HOST=127.0.0.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "QUERY_STRING=",
		"REQUEST_URI=/cgi-bin/counter.cgi" + path, "COUNTER_DB=" + db,
	}
}

// direct times both binaries run as CGI processes by this program.
func direct(floor, counter, db string, n int) error {
	runs := []cgiRun{{"floor (1x1 GIF)", floor, cgiEnv(db, "/bench.gif")}}
	for i, c := range strings.Split(counter, ",") {
		label := "counted PNG hit"
		if i > 0 {
			label += " " + strconv.Itoa(i+1)
		}
		runs = append(runs, cgiRun{label, c, cgiEnv(db, "/bench.png")})
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
	fmt.Printf("  ratio b/a: p50 %.2f (target <= 1.30), p99 %.2f, peak RSS %.2f (target <= 1.40)\n",
		ms(percentile(b, 50))/ms(percentile(a, 50)), ms(percentile(b, 99))/ms(percentile(a, 99)),
		float64(peakRSS(res[1]))/float64(peakRSS(res[0])))
	return nil
}
