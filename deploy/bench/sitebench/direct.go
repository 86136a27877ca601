package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"time"

	"hitcounter/deploy/bench/benchstat"
)

// browserUA is a desktop Chrome's User-Agent: the hits are a browser's.
const browserUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// rssEvery is how often, in rounds, a run is repeated under GNU time for
// its peak RSS.
const rssEvery = 5

// cgiRun is one request answered by a fresh CGI process.
type cgiRun struct {
	label  string
	bin    string
	env    []string
	want   string // what the answer's Content-Type starts with
	counts bool   // a hit: each run from a new client address
}

// cgiEnv is a browser's GET of path?query as a web server passes it to
// the CGI, with the database db and a runtime directory of its own.
func cgiEnv(db, run, path, query, referer string) []string {
	env := []string{
		"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "REQUEST_METHOD=GET",
		"SERVER_NAME=127.0.0.1", "SERVER_PORT=80", "HTTP_HOST=127.0.0.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "QUERY_STRING=" + query,
		"REQUEST_URI=/cgi-bin/counter.cgi" + path, "COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + run,
		"HTTP_USER_AGENT=" + browserUA, "HTTP_ACCEPT=image/avif,image/webp,image/png,image/*;q=0.8,*/*;q=0.5",
	}
	if referer != "" {
		env = append(env, "HTTP_REFERER="+referer)
	}
	// Last, for withAddr to replace.
	return append(env, "REMOTE_ADDR=127.0.0.1")
}

// run starts the binary for round i and waits for its whole answer; a
// hit comes from visitor number v. Every rssEvery rounds it runs again,
// as visitor v of another network, for its peak RSS (benchstat.PeakRSS).
func (c cgiRun) run(i, v int) (benchstat.Sample, error) {
	env := c.env
	if c.counts {
		env = withAddr(env, "10", v)
	}
	out, wall, err := benchstat.RunCGI(c.bin, env, nil)
	s := benchstat.Sample{Wall: wall}
	if err != nil {
		return s, fmt.Errorf("%s: %w", c.label, err)
	}
	if !bytes.Contains(out, []byte("Content-Type: "+c.want)) || !bytes.HasPrefix(out, []byte("Status: 200 ")) {
		return s, fmt.Errorf("%s: not a 200 %s: %.160q", c.label, c.want, out)
	}
	if i%rssEvery == 0 {
		env := c.env
		if c.counts {
			env = withAddr(c.env, "11", v)
		}
		if s.PeakRSS, err = benchstat.PeakRSS(c.bin, env, nil); err != nil {
			return s, fmt.Errorf("%s: %w", c.label, err)
		}
	}
	return s, nil
}

// withAddr is env with REMOTE_ADDR NET.x.y.z for round i, a new visitor.
func withAddr(env []string, net string, i int) []string {
	return append(env[:len(env)-1:len(env)-1], fmt.Sprintf("REMOTE_ADDR=%s.%d.%d.%d", net, i>>16&255, i>>8&255, i&255))
}

// timed is what the runs of one cgiRun cost, over every round.
type timed struct {
	p50, p90, p99 float64 // ms
	peakRSS       int64
}

// interleave runs each of runs n times, taking turns, so that a change in
// the machine's load hits all of them alike. The visitors are numbered
// from a random start, so that a second run on the same files within a
// reload window still counts.
func interleave(runs []cgiRun, n int) ([]timed, error) {
	walls := make([][]time.Duration, len(runs))
	out := make([]timed, len(runs))
	first := rand.IntN(1 << 23)
	for i := range n {
		for j, r := range runs {
			s, err := r.run(i, first+i)
			if err != nil {
				return nil, err
			}
			walls[j] = append(walls[j], s.Wall)
			out[j].peakRSS = max(out[j].peakRSS, s.PeakRSS)
		}
	}
	for j, w := range walls {
		out[j].p50 = benchstat.Ms(benchstat.Percentile(w, 50))
		out[j].p90 = benchstat.Ms(benchstat.Percentile(w, 90))
		out[j].p99 = benchstat.Ms(benchstat.Percentile(w, 99))
	}
	return out, nil
}

// printTimed prints a table of runs and their costs.
func printTimed(runs []cgiRun, res []timed) {
	fmt.Printf("  %-38s %8s %8s %8s %10s\n", "", "p50 ms", "p90 ms", "p99 ms", "peak RSS")
	for i, r := range runs {
		fmt.Printf("  %-38s %8.2f %8.2f %8.2f %7.1f MB\n", r.label, res[i].p50, res[i].p90, res[i].p99, float64(res[i].peakRSS)/1e6)
	}
}
