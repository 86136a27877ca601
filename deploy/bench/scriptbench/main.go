// Command scriptbench measures what the script's requests (issue 39) cost
// beside an image hit, side by side in one run: as CGI processes of the
// hit binary, a counted view by the script's count (NAME.count) against a
// counted image, and a read of 100 pages (the script's count from an
// index page listing 100 posts, and NAME.json with 100 page=, which the
// hit binary passes to the full tool) against the image; then the FastCGI
// service's hits per second with script counts against image hits.
// deploy/bench/bench-script.sh builds the binaries and runs it; see there.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/deploy/bench/benchstat"
)

const browserUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// post is the page every counted view is of, on the site www.example.org.
const post = "/blog/2026/12/a-post/"

func main() {
	hit := flag.String("hit", "", "the hit binary, counter.cgi (it execs the full tool beside it as installed)")
	tool := flag.String("tool", "", "the full tool, for admin commands and the FastCGI service")
	dir := flag.String("dir", "", "a scratch directory")
	n := flag.Int("n", 200, "runs of each CGI request, interleaved")
	dur := flag.Duration("fcgi-duration", 3*time.Second, "length of one FastCGI load, of each kind, each round")
	rounds := flag.Int("fcgi-rounds", 3, "FastCGI rounds, image and script in turn")
	conns := flag.Int("fcgi-conns", 8, "FastCGI clients at once")
	flag.Parse()
	if *hit == "" || *tool == "" || *dir == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*hit, *tool, *dir, *n, *dur, *rounds, *conns); err != nil {
		fmt.Fprintln(os.Stderr, "scriptbench:", err)
		os.Exit(1)
	}
}

func run(hit, tool, dir string, n int, dur time.Duration, rounds, conns int) error {
	db := filepath.Join(dir, "cgi", "counter.db")
	if err := makeSite(tool, db); err != nil {
		return err
	}
	hundred := pages(100)
	var p, list strings.Builder
	for _, pg := range hundred {
		fmt.Fprintf(&p, "&p=%s", pg)
		fmt.Fprintf(&list, "&page=%s", pg)
	}
	// The 100 posts, each viewed once, untimed, so the reads find them.
	for i, pg := range hundred {
		env := cgiEnv(db, "/bench.png", "", "https://www.example.org"+pg, fmt.Sprintf("198.18.0.%d", i+1))
		if _, err := answered(hit, env, "image/"); err != nil {
			return fmt.Errorf("a post's first view: %w", err)
		}
	}
	referer := "https://www.example.org" + post
	runs := []cgiRun{
		{"image hit (PNG)", hit, "/bench.png", "", "image/", true},
		{"script count", hit, "/bench.count", "page=" + post, "application/json", true},
		{"count, 100 pages", hit, "/bench.count", "page=/" + p.String(), "application/json", true},
		{"NAME.json, 100 pages", hit, "/bench.json", list.String()[1:], "application/json", false},
	}
	res := make([][]benchstat.Sample, len(runs))
	for i := range n {
		for k := range runs {
			j := (i + k) % len(runs)
			s, err := runs[j].once(db, referer, i, j)
			if err != nil {
				return err
			}
			res[j] = append(res[j], s)
		}
	}
	fmt.Printf("direct CGI runs of the hit binary, %d each, interleaved\n", n)
	fmt.Printf("  %-22s %9s %9s %10s\n", "", "p50 ms", "p99 ms", "peak RSS")
	for i, r := range runs {
		d := benchstat.Walls(res[i])
		fmt.Printf("  %-22s %9.2f %9.2f %7.2f MB\n", r.label, benchstat.Ms(benchstat.Percentile(d, 50)),
			benchstat.Ms(benchstat.Percentile(d, 99)), float64(benchstat.MaxRSS(res[i]))/1e6)
	}
	against := func(i int) (float64, float64) {
		return benchstat.Ms(benchstat.Percentile(benchstat.Walls(res[i]), 50)) / benchstat.Ms(benchstat.Percentile(benchstat.Walls(res[0]), 50)),
			float64(benchstat.MaxRSS(res[i])) / float64(benchstat.MaxRSS(res[0]))
	}
	w, m := against(1)
	fmt.Printf("  script count against image hit: p50 %.2f, peak RSS %.2f (targets <= 1.10)\n", w, m)
	for _, i := range []int{2, 3} {
		w, m := against(i)
		fmt.Printf("  %s against image hit: p50 %.2f, peak RSS %.2f (targets <= 2.00)\n", runs[i].label, w, m)
	}
	return fastCGI(tool, filepath.Join(dir, "fcgi"), dur, rounds, conns)
}

// makeSite makes db with the site bench for www.example.org, with every
// counting rule on: a reload window, an ignore list, a referrer list.
func makeSite(tool, db string) error {
	if err := os.MkdirAll(filepath.Join(filepath.Dir(db), "run"), 0o700); err != nil {
		return err
	}
	cmd := exec.Command(tool, "create", "bench", "-site", "-hosts", "www.example.org", "-db", db,
		"reload=30m", "ignore=192.0.2.0/24")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("create: %v %s", err, out)
	}
	return nil
}

// pages are n posts' paths.
func pages(n int) []string {
	p := make([]string, n)
	for i := range p {
		p[i] = fmt.Sprintf("/blog/2026/%02d/post-number-%03d/", i%12+1, i)
	}
	return p
}

// cgiEnv is a browser's request as a web server passes it to a CGI
// program.
func cgiEnv(db, path, query, referer, addr string) []string {
	return []string{
		"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "REQUEST_METHOD=GET",
		"SERVER_NAME=127.0.0.1", "SERVER_PORT=80", "HTTP_HOST=127.0.0.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "QUERY_STRING=" + query,
		"REQUEST_URI=/cgi-bin/counter.cgi" + path, "COUNTER_DB=" + db,
		"COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run"),
		"HTTP_USER_AGENT=" + browserUA, "HTTP_REFERER=" + referer, "REMOTE_ADDR=" + addr,
		"HTTP_COOKIE=theme=dark", "HTTP_ACCEPT=*/*",
	}
}

// cgiRun is one kind of request run as a CGI process.
type cgiRun struct {
	label, bin, path, query, want string
	// visitors gives each run a new client address, so that each is a
	// counted view.
	visitors bool
}

// once runs r as round i's process, of run j, timed, then again for its
// peak RSS (benchstat.PeakRSS says why apart).
func (r cgiRun) once(db, referer string, i, j int) (benchstat.Sample, error) {
	addr := func(k int) string { return fmt.Sprintf("%d.%d.%d.%d", 10+2*j+k, i>>16&255, i>>8&255, i&255) }
	wall, err := answered(r.bin, cgiEnv(db, r.path, r.query, referer, addr(0)), r.want)
	if err != nil {
		return benchstat.Sample{}, fmt.Errorf("%s: %w", r.label, err)
	}
	a := addr(1)
	if !r.visitors {
		a = addr(0)
	}
	rss, err := benchstat.PeakRSS(r.bin, cgiEnv(db, r.path, r.query, referer, a), nil)
	if err != nil {
		return benchstat.Sample{}, fmt.Errorf("%s: %w", r.label, err)
	}
	return benchstat.Sample{Wall: wall, PeakRSS: rss}, nil
}

// answered runs bin with env, checks that it answered 200 with a body of
// type want, and returns its wall time.
func answered(bin string, env []string, want string) (time.Duration, error) {
	out, wall, err := benchstat.RunCGI(bin, env, nil)
	if err == nil && (refused(out) || !bytes.Contains(out, []byte("Content-Type: "+want))) {
		err = fmt.Errorf("not a %s of status 200: %.160q", want, out)
	}
	return wall, err
}

// refused reports a CGI answer whose status is not 200.
func refused(out []byte) bool {
	head, _, _ := bytes.Cut(out, []byte("\r\n\r\n"))
	i := bytes.Index(head, []byte("Status: "))
	return i >= 0 && !bytes.HasPrefix(head[i:], []byte("Status: 200"))
}

// fastCGI starts the full tool as a FastCGI process on a socket of its
// own, with a site that counts every hit (reload=off: the costlier path,
// each a counted view), and loads it with image hits and script counts in
// turn, round after round; it prints each kind's median hits/s.
func fastCGI(tool, dir string, dur time.Duration, rounds, conns int) error {
	db := filepath.Join(dir, "counter.db")
	if err := makeSite(tool, db); err != nil {
		return err
	}
	if out, err := exec.Command(tool, "config", "bench", "reload=off", "-db", db).CombinedOutput(); err != nil {
		return fmt.Errorf("config: %v %s", err, out)
	}
	sock := filepath.Join(dir, "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	lf, err := ln.(*net.UnixListener).File()
	if err != nil {
		return err
	}
	cmd := exec.Command(tool)
	cmd.Env = []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}
	cmd.Stdin = lf
	if err := cmd.Start(); err != nil {
		return err
	}
	lf.Close()
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()

	kinds := []struct{ label, path, query string }{
		{"image hits", "/bench.png", ""},
		{"script counts", "/bench.count", "page=" + post},
	}
	rates := make([][]float64, len(kinds))
	for r := range rounds {
		for k := range kinds {
			kind := kinds[(r+k)%len(kinds)]
			rate, err := load(sock, kind.path, kind.query, dur, conns)
			if err != nil {
				return fmt.Errorf("%s: %w", kind.label, err)
			}
			rates[(r+k)%len(kinds)] = append(rates[(r+k)%len(kinds)], rate)
		}
	}
	fmt.Printf("FastCGI, one process, %d clients, %d rounds of %s each, median hits/s\n", conns, rounds, dur)
	med := make([]float64, len(kinds))
	for k, kind := range kinds {
		slices.Sort(rates[k])
		med[k] = rates[k][len(rates[k])/2]
		fmt.Printf("  %-22s %9.0f\n", kind.label, med[k])
	}
	fmt.Printf("  script counts against image hits: %.2f (target >= 0.90)\n", med[1]/med[0])
	return nil
}

// load sends requests of path?query from conns clients for dur, each a
// browser of its own among 2,048 (a User-Agent apiece), and returns the
// answered requests per second.
func load(sock, path, query string, dur time.Duration, conns int) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var done, failed atomic.Int64
	var next atomic.Int64
	errc := make(chan error, conns)
	start := time.Now()
	for range conns {
		go func() {
			c, err := fcgitest.Dial(sock)
			if err != nil {
				errc <- err
				return
			}
			defer c.Conn.Close()
			for ctx.Err() == nil {
				i := next.Add(1)
				env := fcgitest.Env("GET", path, query, "HTTP_USER_AGENT", fmt.Sprintf("%s v/%d", browserUA, i%2048),
					"HTTP_REFERER", "https://www.example.org"+post)
				out, _, err := c.Request(1, true, env, nil, 0)
				if err != nil {
					errc <- err
					return
				}
				if refused(out) {
					failed.Add(1)
				}
				done.Add(1)
			}
			errc <- nil
		}()
	}
	for range conns {
		if err := <-errc; err != nil {
			return 0, err
		}
	}
	if f := failed.Load(); f > 0 {
		return 0, fmt.Errorf("%d answers not 200", f)
	}
	return float64(done.Load()) / time.Since(start).Seconds(), nil
}
