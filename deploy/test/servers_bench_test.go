package test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hitcounter/deploy/bench/benchstat"
)

// benchedServers are the set-ups BenchmarkServers compares, lighttpd's
// FastCGI first: the one the others are measured against.
var benchedServers = []string{"lighttpd-fastcgi", "apache-fastcgi", "apache-service", "nginx-service", "caddy-service"}

// BenchmarkServers is the benchmark of deploy/bench/bench-servers.sh (go
// test -bench, once: it times itself, round by round). It starts every
// FastCGI set-up at once, each with a database of its own, and loads them
// in turn, round after round, at 4 and then 16 clients on kept-alive
// connections, each hit a counted view; it prints the median over rounds
// of hits a second and p99 per set-up, each against lighttpd's FastCGI,
// and checks every count against the hits answered.
func BenchmarkServers(b *testing.B) {
	var t testing.TB = b
	rounds, _ := strconv.Atoi(os.Getenv("ROUNDS"))
	rounds = max(rounds, 1)
	d, err := time.ParseDuration(os.Getenv("DURATION"))
	if err != nil {
		d = 5 * time.Second
	}
	type setUp struct {
		name   string
		srv    *webServer
		db     string
		cgiDir string
		hits   int64
	}
	names := benchedServers
	if only := os.Getenv("SERVERS"); only != "" {
		names = strings.Fields(only)
	}
	var ups []*setUp
	for _, name := range names {
		var i int
		for i = range servers {
			if servers[i].name == name {
				break
			}
		}
		s := servers[i]
		bin := serverBinary(t, s.pkg, s.bins...)
		for _, f := range s.needs {
			needFile(t, s.modPkg, f)
		}
		cgiDir, dbPath := installCounter(t)
		u := &setUp{name: name, srv: s.start(t, bin, cgiDir, dbPath), db: dbPath, cgiDir: cgiDir}
		admin(t, cgiDir, dbPath, "create", "bench", "reload=off")
		ups = append(ups, u)
	}
	type figures struct{ rate, p99 []float64 }
	results := map[string]map[int]*figures{}
	for _, conc := range []int{4, 16} {
		for round := range rounds {
			// Interleaved: each round starts with another set-up.
			for k := range ups {
				u := ups[(k+round)%len(ups)]
				rate, p99, n := loadFor(t, u.srv.URL+"/cgi-bin/counter.cgi/bench.png", conc, d)
				u.hits += n
				if results[u.name] == nil {
					results[u.name] = map[int]*figures{}
				}
				f := results[u.name][conc]
				if f == nil {
					f = &figures{}
					results[u.name][conc] = f
				}
				f.rate, f.p99 = append(f.rate, rate), append(f.p99, p99)
				t.Logf("c=%-2d round %d  %-17s %8.1f hits/s  p99 %7.2f ms", conc, round+1, u.name, rate, p99)
			}
		}
	}
	median := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
	var out strings.Builder
	fmt.Fprintf(&out, "bench-servers: %d round(s) of %v per set-up and concurrency, medians\n", rounds, d)
	for _, conc := range []int{4, 16} {
		base := median(results[names[0]][conc].rate)
		fmt.Fprintf(&out, "  %d clients            hits/s     p99 ms   against lighttpd FastCGI\n", conc)
		for _, name := range names {
			f := results[name][conc]
			r := median(f.rate)
			verdict := ""
			if name == "apache-service" || name == "nginx-service" {
				verdict = "  (target >= 0.80): PASS"
				if r < 0.8*base {
					verdict = "  (target >= 0.80): FAIL"
				}
			}
			fmt.Fprintf(&out, "  %-17s %10.1f %10.2f   x%.2f%s\n", name, r, median(f.p99), r/base, verdict)
		}
	}
	fmt.Print(out.String())
	for _, u := range ups {
		if got := jsonCount(t, u.srv.URL, "bench"); int64(got) != u.hits {
			t.Errorf("%s: count %d, but %d hits were answered", u.name, got, u.hits)
		}
	}
}

// loadFor sends hits to url from conc clients on kept-alive connections
// for d, and returns the hits a second, the p99 in milliseconds and the
// hits answered with a 200.
func loadFor(t testing.TB, url string, conc int, d time.Duration) (rate, p99 float64, ok int64) {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}
	defer tr.CloseIdleConnections()
	client := &http.Client{Timeout: 10 * time.Second, Transport: tr}
	var mu sync.Mutex
	var lat []time.Duration
	var failed int
	start := time.Now()
	// No request is cut short: one the server counted must be answered.
	benchstat.Run(context.Background(), 1<<30, conc, func(int) bool {
		if time.Since(start) >= d {
			return false
		}
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("User-Agent", firefoxUA)
		began := time.Now()
		resp, err := client.Do(req)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed++
			return failed < 10
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			ok++
			lat = append(lat, time.Since(began))
		} else {
			failed++
		}
		return failed < 10
	})
	elapsed := time.Since(start)
	if failed > 0 {
		t.Errorf("%s: %d failed hits", url, failed)
	}
	return float64(ok) / elapsed.Seconds(), benchstat.Ms(benchstat.Percentile(lat, 99)), ok
}
