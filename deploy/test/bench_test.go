package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/counter/crawler"
	"hitcounter/deploy/bench/benchstat"
)

// TestBenchPrograms builds every program under deploy/bench and runs each
// once with tiny settings, so that a benchmark cannot rot between the runs
// someone makes by hand: floor answers one hit as CGI, hitbench times three
// direct CGI runs of floor and counter.cgi (and of a site's page), floodbench runs its four phases
// against the CGI under the real lighttpd, and fcgibench, which needs
// PHP-FPM and wrk, parses its flags. soak runs a minute in TestSoak.
func TestBenchPrograms(t *testing.T) {
	bins := buildBench(t)

	t.Run("floor", func(t *testing.T) {
		out := runBench(t, cgiEnviron("/x/bench.gif"), bins["floor"])
		if !strings.Contains(out, "Content-Type: image/gif") || !strings.HasSuffix(out, ";") {
			t.Errorf("floor as CGI: got %q, want a CGI answer with a GIF", out)
		}
	})

	t.Run("hitbench", func(t *testing.T) {
		if _, err := os.Stat("/usr/bin/time"); err != nil {
			skipOutsideCI(t, "hitbench measures peak memory with /usr/bin/time (Debian package time)")
		}
		cgiDir, db := installCounter(t)
		admin(t, cgiDir, db, "create", "bench")
		siteDB := filepath.Join(t.TempDir(), "counter.db")
		if err := os.Mkdir(testenv.RunDirOf(siteDB), 0o700); err != nil {
			t.Fatal(err)
		}
		admin(t, cgiDir, siteDB, "create", "site", "-site", "-hosts", "www.example.org")
		out := runBench(t, nil, bins["hitbench"], "-floor", bins["floor"], "-counter", filepath.Join(cgiDir, "counter.cgi"), "-db", db, "-n", "3",
			"-case", "site page=site:"+siteDB)
		for _, want := range []string{"direct CGI runs, 3 each", "floor (1x1 GIF)", "counted PNG hit", "ratio b/a", "measuring the costs: p50 ", "site page against the floor: p50 "} {
			if !strings.Contains(out, want) {
				t.Errorf("hitbench: no %q in its output:\n%s", want, out)
			}
		}
		// Each run is timed, then run again under GNU time for its memory,
		// with costs on and off.
		if got := admin(t, cgiDir, db, "list"); !regexp.MustCompile(`(?m)^bench\s+12\s`).MatchString(got) {
			t.Errorf("after hitbench's 3 timed runs and 3 under GNU time, costs on and off, list says:\n%s\nwant bench at 12", got)
		}
		// The site's page, the Referer's, got two views untimed, then 3
		// timed and 3 under GNU time, each a new visitor's.
		if got := admin(t, cgiDir, siteDB, "pages", "site"); !regexp.MustCompile(`(?m)^8\s+8\s+\S+\s+/blog/2026/12/a-post\.html$`).MatchString(got) {
			t.Errorf("after hitbench's site page case, pages says:\n%s\nwant /blog/2026/12/a-post.html at 8 views by 8 visitors", got)
		}
	})

	t.Run("floodbench", func(t *testing.T) {
		lighttpd := serverBinary(t, "lighttpd", lighttpdBins...)
		cgiDir, dbPath := installCounter(t)
		srv := startLighttpdWith(t, lighttpd, cgiDir, dbPath, false, map[string]string{
			`"COUNTER_RUN_DIR" => "/run/counter",`: `"COUNTER_RUN_DIR" => "` + testenv.RunDirOf(dbPath) + `", "COUNTER_TRUSTED_PROXIES" => "127.0.0.1",`,
		})
		admin(t, cgiDir, dbPath, "create", "flood")
		adminStdin(t, cgiDir, dbPath, strings.NewReader(statsPassword+"\n"), "passwd", "flood")
		out := runBench(t, nil, bins["floodbench"], "-url", srv.URL, "-name", "flood", "-log", srv.CGILog,
			"-requests", "8", "-conc", "2", "-attackers", "2", "-max-attempts", "12", "-phase-timeout", "10s")
		for _, want := range []string{"phase A", "phase B", "phase C", "phase D", "summary:", "bcrypt runs"} {
			if !strings.Contains(out, want) {
				t.Errorf("floodbench: no %q in its output:\n%s", want, out)
			}
		}
		// The bounds are the throttles' and the cap's: a FAIL here is the
		// counter letting more through than it promises, or the benchmark
		// misreading the limits.
		for line := range strings.Lines(out) {
			if strings.Contains(line, "bcrypt runs") && strings.Contains(line, "FAIL") ||
				strings.Contains(line, "401s within 60 s") && strings.Contains(line, "FAIL") {
				t.Errorf("floodbench: %s", strings.TrimSpace(line))
			}
		}
	})

	t.Run("fcgibench", func(t *testing.T) {
		// It drives wrk against PHP-FPM and the counter, neither of which the
		// tests install: what runs here is its flag parsing.
		out := runBench(t, nil, bins["fcgibench"], "-h")
		for _, want := range []string{"-fpm-pid", "-conns", "-duration"} {
			if !strings.Contains(out, want) {
				t.Errorf("fcgibench -h: no %s in:\n%s", want, out)
			}
		}
		cmd := exec.Command(bins["fcgibench"], "-url", "http://127.0.0.1:1", "-conns", "4,x")
		if out, err := cmd.CombinedOutput(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "bad -conns") {
			t.Errorf("fcgibench -conns 4,x: %v, %q; want exit 2 and bad -conns", err, out)
		}
	})

	t.Run("benchstat", func(t *testing.T) {
		var d []time.Duration
		for i := 100; i >= 1; i-- {
			d = append(d, time.Duration(i)*time.Millisecond)
		}
		for _, tc := range []struct {
			p    float64
			want time.Duration
		}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0, time.Millisecond}} {
			if got := benchstat.Percentile(d, tc.p); got != tc.want {
				t.Errorf("Percentile(1..100 ms, %v): got %v, want %v", tc.p, got, tc.want)
			}
		}
		ran := make([]bool, 10)
		if n := benchstat.Run(context.Background(), 10, 3, func(i int) bool { ran[i] = true; return i != 4 }); n < 5 || n > 10 || !ran[4] {
			t.Errorf("Run stopping at job 4: started %d jobs (ran 4: %v), want 5 to 10", n, ran[4])
		}
	})
}

// buildBench builds every program under deploy/bench into a temporary
// folder, in one go build, and returns their paths by name.
func buildBench(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+"/", "./deploy/bench/...")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./deploy/bench/...: %v\n%s", err, out)
	}
	bins := map[string]string{}
	for _, name := range []string{"fcgibench", "floodbench", "floor", "hitbench", "soak"} {
		bins[name] = filepath.Join(dir, name)
		if _, err := os.Stat(bins[name]); err != nil {
			t.Fatalf("go build ./deploy/bench/... made no %s: %v", name, err)
		}
	}
	return bins
}

// runBench runs a program for at most a minute, with env as its whole
// environment (nil: this one's), and returns its output; it fails the test
// if the program fails (-h exits 0 with the flag package).
func runBench(t *testing.T, env []string, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s (%v):\n%s", filepath.Base(bin), strings.Join(args, " "), time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(bin), err)
	}
	return string(out)
}

// cgiEnviron is the environment of a CGI GET of path under /x.
func cgiEnviron(path string) []string {
	return []string{"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "REQUEST_METHOD=GET",
		"SERVER_NAME=127.0.0.1", "SERVER_PORT=80", "REMOTE_ADDR=127.0.0.1", "HTTP_HOST=127.0.0.1",
		"SCRIPT_NAME=/x", "PATH_INFO=" + path[len("/x"):], "REQUEST_URI=" + path}
}

// TestBrowserVisitors checks the requests deploy/bench/browser-visitors.lua
// makes for bench-fastcgi.sh: each of its User-Agents is a browser's to
// counter/crawler, so that every hit is judged a view and the counts can
// be checked against wrk's answers; and there are at most half of the
// 4,096 a counter's share of the visitor table holds a day (in 64
// buckets of 64), so that no bucket of it fills whatever the run's
// length.
func TestBrowserVisitors(t *testing.T) {
	lua, err := os.ReadFile(filepath.Join(kitDir, "bench", "browser-visitors.lua"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\["User-Agent"\] = "([^"]+)" \.\. \(n % (\d+)\)`).FindSubmatch(lua)
	if m == nil {
		t.Fatalf("browser-visitors.lua: no User-Agent of the form \"...\" .. (n %% N) in:\n%s", lua)
	}
	prefix := string(m[1])
	n, err := strconv.Atoi(string(m[2]))
	if err != nil || n < 2 || n > 2048 {
		t.Fatalf("browser-visitors.lua: %s visitors, want 2 to 2,048 (half a counter's share of the table)", m[2])
	}
	for i := range n {
		if ua := prefix + strconv.Itoa(i); crawler.IsCrawler(ua) {
			t.Fatalf("browser-visitors.lua: IsCrawler(%q) = true, want a browser's", ua)
		}
	}
}
