// Command fcgibench loads four counters behind one lighttpd with wrk and
// compares them: counter.cgi as CGI, counter.cgi as FastCGI, and the PHP
// reference (deploy/bench/php/counter.php) under PHP-FPM without and with fsync;
// and, given -fcgi-before-exe, a fifth: the FastCGI binary before a change.
// deploy/bench/bench-fastcgi.sh builds and starts everything and runs it; see
// there for what each figure means.
//
// For each number of connections, rounds of wrk runs are interleaved:
// round r loads each backend in turn, the order rotated by r, so that a
// slow spell of a shared machine falls on every backend alike. Per
// backend it prints the median over rounds of wrk's hits/s, p50 and p99;
// CPU per hit over all rounds; and the peak memory of the backend's
// processes, sampled from /proc during the load.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/deploy/bench/benchstat"
)

type config struct {
	base                 string
	lighttpd             int
	cgiExe, fcgiExe      string
	cgiPath, fcgiPath    string
	fpm, fpmSync         int
	phpPath, phpSyncPath string
	phpCount, phpSync    string
	name                 string
	// The FastCGI binary before a change, on a path and database of its
	// own ("" for none), and the wrk script every request goes through.
	beforeExe, beforePath string
	script                string
	duration, warmup      time.Duration
	rounds, threads       int
	conns                 []int
	sample                time.Duration
}

func main() {
	var c config
	var conns string
	flag.StringVar(&c.base, "url", "", "base URL of lighttpd (http://127.0.0.1:PORT)")
	flag.IntVar(&c.lighttpd, "lighttpd-pid", 0, "lighttpd's pid: the CGI and FastCGI processes are its children")
	flag.StringVar(&c.cgiExe, "cgi-exe", "", "path of the binary lighttpd runs as CGI")
	flag.StringVar(&c.fcgiExe, "fcgi-exe", "", "path of the binary lighttpd runs as FastCGI (a copy of its own)")
	flag.StringVar(&c.cgiPath, "cgi-path", "/cgi-bin/counter.cgi", "URL path of the CGI script")
	flag.StringVar(&c.fcgiPath, "fcgi-path", "/fcgi/counter.cgi", "URL path of the FastCGI script")
	flag.StringVar(&c.name, "name", "bench", "counter name in both databases")
	flag.StringVar(&c.beforeExe, "fcgi-before-exe", "", "path of the FastCGI binary before a change (a copy of its own), to load beside the FastCGI one")
	flag.StringVar(&c.beforePath, "fcgi-before-path", "/fcgi-before/counter.cgi", "URL path of -fcgi-before-exe")
	flag.StringVar(&c.script, "script", "", "wrk Lua script for the requests (-s)")
	flag.IntVar(&c.fpm, "fpm-pid", 0, "pid of the PHP-FPM master without fsync")
	flag.IntVar(&c.fpmSync, "fpm-fsync-pid", 0, "pid of the PHP-FPM master with fsync")
	flag.StringVar(&c.phpPath, "php-path", "/php/counter.php", "URL path of the PHP counter without fsync")
	flag.StringVar(&c.phpSyncPath, "php-fsync-path", "/php-fsync/counter.php", "URL path of the PHP counter with fsync")
	flag.StringVar(&c.phpCount, "php-count", "", "count file of the PHP counter without fsync")
	flag.StringVar(&c.phpSync, "php-fsync-count", "", "count file of the PHP counter with fsync")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "length of one wrk run (whole seconds)")
	flag.DurationVar(&c.warmup, "warmup", 2*time.Second, "wrk run per backend before the rounds, not measured (0: none)")
	flag.IntVar(&c.rounds, "rounds", 5, "interleaved rounds per number of connections")
	flag.IntVar(&c.threads, "threads", 2, "wrk threads")
	flag.StringVar(&conns, "conns", "4,16", "comma-separated numbers of wrk connections")
	flag.DurationVar(&c.sample, "sample", 50*time.Millisecond, "how often memory is sampled during a run")
	flag.Parse()
	for _, s := range strings.Split(conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "fcgibench: bad -conns", conns)
			os.Exit(2)
		}
		c.conns = append(c.conns, n)
	}
	if c.base == "" || c.lighttpd <= 0 || c.cgiExe == "" || c.fcgiExe == "" || c.fpm <= 0 || c.fpmSync <= 0 ||
		c.phpCount == "" || c.phpSync == "" || c.rounds < 1 || c.duration < time.Second || c.threads < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "fcgibench:", err)
		os.Exit(1)
	}
}

// backend is one counter behind lighttpd and how to watch it.
type backend struct {
	label string
	url   string
	count func() (int64, error)
	procs func() []int         // the processes whose memory is summed
	cpu   func() time.Duration // CPU used so far by its processes, ended ones too
}

// result is one wrk run on one backend.
type result struct {
	conns  int
	w      wrkResult
	cpu    time.Duration // the backend's
	webCPU time.Duration // lighttpd's own
	mem    peak
	webMem peak
}

func backends(c config) []*backend {
	cgiKids := func() []int { return childrenRunning(c.lighttpd, c.cgiExe) }
	fcgiTree := func() []int {
		var out []int
		for _, p := range childrenRunning(c.lighttpd, c.fcgiExe) {
			out = append(out, descendants(p)...)
		}
		return out
	}
	fpmTree := func(master int) func() []int { return func() []int { return descendants(master) } }
	bs := []*backend{
		{
			label: "CGI", url: c.base + c.cgiPath + "/" + c.name + ".png",
			count: func() (int64, error) { return jsonCount(c.base + c.cgiPath + "/" + c.name + ".json") },
			procs: cgiKids,
			// The children that ended were reaped by lighttpd: their CPU
			// is in its cutime and cstime. Those still running add theirs.
			cpu: func() time.Duration {
				st, _ := readStat(c.lighttpd)
				sum := st.Reaped
				for _, p := range cgiKids() {
					if s, ok := readStat(p); ok {
						sum += s.Self
					}
				}
				return sum
			},
		},
		{
			label: "FastCGI", url: c.base + c.fcgiPath + "/" + c.name + ".png",
			count: func() (int64, error) { return jsonCount(c.base + c.fcgiPath + "/" + c.name + ".json") },
			procs: fcgiTree,
			cpu: func() time.Duration {
				var sum time.Duration
				for _, p := range childrenRunning(c.lighttpd, c.fcgiExe) {
					sum += treeCPU(p)
				}
				return sum
			},
		},
		{
			label: "PHP-FPM", url: c.base + c.phpPath,
			count: func() (int64, error) { return fileCount(c.phpCount) },
			procs: fpmTree(c.fpm),
			cpu:   func() time.Duration { return treeCPU(c.fpm) },
		},
		{
			label: "PHP-FPM fsync", url: c.base + c.phpSyncPath,
			count: func() (int64, error) { return fileCount(c.phpSync) },
			procs: fpmTree(c.fpmSync),
			cpu:   func() time.Duration { return treeCPU(c.fpmSync) },
		},
	}
	if c.beforeExe != "" {
		bs = append(bs, &backend{
			label: "FastCGI before", url: c.base + c.beforePath + "/" + c.name + ".png",
			count: func() (int64, error) { return jsonCount(c.base + c.beforePath + "/" + c.name + ".json") },
			procs: func() []int {
				var out []int
				for _, p := range childrenRunning(c.lighttpd, c.beforeExe) {
					out = append(out, descendants(p)...)
				}
				return out
			},
			cpu: func() time.Duration {
				var sum time.Duration
				for _, p := range childrenRunning(c.lighttpd, c.beforeExe) {
					sum += treeCPU(p)
				}
				return sum
			},
		})
	}
	return bs
}

func run(c config) error {
	bs := backends(c)
	ctx := context.Background()
	fmt.Printf("fcgibench: %s; wrk -t%d -d%s --latency, connections %v, %d interleaved round(s)\n",
		c.base, c.threads, c.duration, c.conns, c.rounds)
	exes := []string{c.fcgiExe}
	if c.beforeExe != "" {
		exes = append(exes, c.beforeExe)
	}
	pids := make([][]int, len(exes))
	for i, exe := range exes {
		if pids[i] = childrenRunning(c.lighttpd, exe); len(pids[i]) == 0 {
			return fmt.Errorf("no FastCGI process (%s) under lighttpd %d", exe, c.lighttpd)
		}
	}
	if c.warmup >= time.Second {
		for _, b := range bs {
			if _, out, err := runWrk(ctx, b.url, c.script, c.threads, c.conns[0], c.warmup); err != nil {
				return fmt.Errorf("warm-up of %s: %w\n%s", b.label, err, out)
			}
		}
	}
	before := make([]int64, len(bs))
	for i, b := range bs {
		n, err := b.count()
		if err != nil {
			return fmt.Errorf("%s: count: %w", b.label, err)
		}
		before[i] = n
	}
	res := make([][]result, len(bs))
	for _, conns := range c.conns {
		for r := range c.rounds {
			for k := range bs {
				i := (k + r) % len(bs)
				x, err := measure(ctx, c, bs[i], conns)
				if err != nil {
					return err
				}
				res[i] = append(res[i], x)
				fmt.Printf("  c=%-3d round %d  %-14s %8.1f hits/s  p50 %7.2f ms  p99 %7.2f ms  %d non-2xx  %d socket errors\n",
					conns, r+1, bs[i].label, x.w.rate, ms(x.w.p50), ms(x.w.p99), x.w.non2xx, x.w.sockErrs)
			}
		}
	}
	for i, exe := range exes {
		if now := childrenRunning(c.lighttpd, exe); !slices.Equal(now, pids[i]) {
			fmt.Printf("  WARNING: the FastCGI process of %s changed from %v to %v: it was restarted; its CPU figure misses the old one\n", exe, pids[i], now)
		}
	}
	rows := summarize(c, bs, res)
	fmt.Println()
	verify(c, bs, res, before)
	fmt.Println()
	printTable(c, rows)
	fmt.Println()
	printTargets(c, rows)
	return nil
}

// measure runs wrk once on b, sampling memory meanwhile.
func measure(ctx context.Context, c config, b *backend, conns int) (result, error) {
	settle(c)
	cpu0, st0 := b.cpu(), mustStat(c.lighttpd)
	sctx, stop := context.WithCancel(ctx)
	done := make(chan []peak)
	go func() { done <- sampleAll(sctx, c.sample, b.procs, func() []int { return []int{c.lighttpd} }) }()
	w, out, err := runWrk(ctx, b.url, c.script, c.threads, conns, c.duration)
	stop()
	peaks := <-done
	if err != nil {
		return result{}, fmt.Errorf("%s: %w\n%s", b.label, err, out)
	}
	// Let the requests in flight at wrk's end finish and be reaped, so
	// their CPU is not carried into the next run.
	settle(c)
	return result{conns: conns, w: w, cpu: b.cpu() - cpu0, webCPU: mustStat(c.lighttpd).Self - st0.Self,
		mem: peaks[0], webMem: peaks[1]}, nil
}

// settle waits up to 2 s for lighttpd's CGI children to end, then a little.
func settle(c config) {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		if len(childrenRunning(c.lighttpd, c.cgiExe)) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
}

func mustStat(pid int) testenv.CPU {
	st, _ := readStat(pid)
	return st
}

// row is a backend's figures at one number of connections.
type row struct {
	label            string
	conns            int
	rate, p50, p99   float64 // medians over rounds; ms
	cpuPerHit        float64 // ms, over all rounds
	webCPUPerHit     float64
	mem, webMem      peak
	hits, non2xx, se int64
}

func summarize(c config, bs []*backend, res [][]result) []row {
	var rows []row
	for _, conns := range c.conns {
		for i, b := range bs {
			rw := row{label: b.label, conns: conns}
			var rate, p50, p99 []float64
			var cpu, web time.Duration
			for _, x := range res[i] {
				if x.conns != conns {
					continue
				}
				rate, p50, p99 = append(rate, x.w.rate), append(p50, ms(x.w.p50)), append(p99, ms(x.w.p99))
				cpu, web = cpu+x.cpu, web+x.webCPU
				rw.hits, rw.non2xx, rw.se = rw.hits+x.w.done, rw.non2xx+x.w.non2xx, rw.se+x.w.sockErrs
				rw.mem.add(x.mem)
				rw.webMem.add(x.webMem)
			}
			rw.rate, rw.p50, rw.p99 = median(rate), median(p50), median(p99)
			if rw.hits > 0 {
				rw.cpuPerHit = ms(cpu) / float64(rw.hits)
				rw.webCPUPerHit = ms(web) / float64(rw.hits)
			}
			rows = append(rows, rw)
		}
	}
	return rows
}

// verify checks each counter's count against the hits wrk saw answered:
// the count may exceed them by the requests in flight when a run ended
// (at most its connections), never fall short.
func verify(c config, bs []*backend, res [][]result, before []int64) {
	fmt.Println("counts after the rounds (a hit answered but not 2xx is not counted; wrk does not count up to c requests in flight at its end):")
	for i, b := range bs {
		after, err := b.count()
		if err != nil {
			fmt.Printf("  %-14s cannot read the count: %v: FAIL\n", b.label, err)
			continue
		}
		var ok, slack, se int64
		for _, x := range res[i] {
			ok += x.w.done - x.w.non2xx
			slack += int64(x.conns)
			se += x.w.sockErrs
		}
		got := after - before[i]
		fmt.Printf("  %-14s count +%d, wrk 2xx answers %d, slack %d, socket errors %d: %s\n",
			b.label, got, ok, slack, se, verdict(got >= ok && got <= ok+slack+se))
	}
}

func printTable(c config, rows []row) {
	fmt.Printf("median of %d round(s) of wrk -t%d -d%s; CPU per hit over all rounds; memory the peak sampled every %s\n",
		c.rounds, c.threads, c.duration, c.sample)
	fmt.Println("| backend | c | hits/s | p50 ms | p99 ms | CPU ms/hit | lighttpd CPU ms/hit | peak RSS MB | peak PSS MB | largest process RSS MB | processes |")
	fmt.Println("| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |")
	for _, r := range rows {
		fmt.Printf("| %s | %d | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %d |\n",
			r.label, r.conns, r.rate, r.p50, r.p99, r.cpuPerHit, r.webCPUPerHit,
			mb(r.mem.rss), mb(r.mem.pss), mb(r.mem.one), r.mem.procs)
	}
	var web peak
	for _, r := range rows {
		web.add(r.webMem)
	}
	fmt.Printf("lighttpd itself (shared by all %d): peak RSS %s MB, PSS %s MB\n", len(rows)/len(c.conns), mb(web.rss), mb(web.pss))
}

func printTargets(c config, rows []row) {
	get := func(label string, conns int) row {
		for _, r := range rows {
			if r.label == label && r.conns == conns {
				return r
			}
		}
		return row{}
	}
	for _, conns := range c.conns {
		cgi, f, php, sync := get("CGI", conns), get("FastCGI", conns), get("PHP-FPM", conns), get("PHP-FPM fsync", conns)
		fmt.Printf("c=%d:\n", conns)
		fmt.Printf("  issue 5: FastCGI/CGI hits/s x%.1f (target >= x10): %s\n", div(f.rate, cgi.rate), verdict(f.rate >= 10*cgi.rate))
		fmt.Printf("  issue 7: FastCGI/PHP-FPM hits/s x%.2f (target >= 1): %s; FastCGI/PHP-FPM fsync x%.2f (target > 1): %s\n",
			div(f.rate, php.rate), verdict(f.rate >= php.rate), div(f.rate, sync.rate), verdict(f.rate > sync.rate))
		fmt.Printf("  issue 7: p99 FastCGI %.2f ms, PHP-FPM %.2f ms, PHP-FPM fsync %.2f ms (target <= both): %s\n",
			f.p99, php.p99, sync.p99, verdict(f.p99 <= php.p99 && f.p99 <= sync.p99))
		fmt.Printf("  issue 7: peak RSS FastCGI %s MB, PHP-FPM pool %s MB, PHP-FPM fsync pool %s MB (target below both): %s\n",
			mb(f.mem.rss), mb(php.mem.rss), mb(sync.mem.rss), verdict(f.mem.rss < php.mem.rss && f.mem.rss < sync.mem.rss))
		if c.beforeExe != "" {
			old := get("FastCGI before", conns)
			fmt.Printf("  issue 13: FastCGI after/before hits/s x%.2f (target >= 0.90): %s; p50 %.2f/%.2f ms, p99 %.2f/%.2f ms, CPU %.3f/%.3f ms a hit, peak RSS %s/%s MB\n",
				div(f.rate, old.rate), verdict(f.rate >= 0.9*old.rate), f.p50, old.p50, f.p99, old.p99,
				f.cpuPerHit, old.cpuPerHit, mb(f.mem.rss), mb(old.mem.rss))
		}
	}
}

// jsonCount reads a count from counter.cgi's /NAME.json, which counts
// nothing.
func jsonCount(url string) (int64, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %s: %s", url, resp.Status, b)
	}
	var v struct{ Count int64 }
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, fmt.Errorf("%s: %w", url, err)
	}
	return v.Count, nil
}

// fileCount reads the PHP counter's file (no file yet: 0).
func fileCount(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

var ms = benchstat.Ms
