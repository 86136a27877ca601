// Command overviewbench measures the owner's overview (the script's root)
// and counter report on a machine of many counters. deploy/bench/
// bench-overview.sh builds the binary and runs it; see there.
//
//	overviewbench gen -db FILE [-counters 1000] [-pages 10000] [-days 60]
//	overviewbench run -bin counter.cgi -db FILE [-n 30]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"hitcounter/counter"
	"hitcounter/deploy/bench/benchstat"
	"hitcounter/store"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: overviewbench gen|run [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	path := fs.String("db", "", "the database")
	var err error
	switch os.Args[1] {
	case "gen":
		counters := fs.Int("counters", 1000, "plain counters")
		pages := fs.Int("pages", 10000, "pages of the site")
		days := fs.Int("days", 60, "days of history, today included")
		fs.Parse(os.Args[2:])
		err = gen(*path, *counters, *pages, *days)
	case "run":
		bin := fs.String("bin", "", "the full tool")
		n := fs.Int("n", 30, "runs of each")
		fs.Parse(os.Args[2:])
		err = run(*bin, *path, *n)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "overviewbench:", err)
		os.Exit(1)
	}
}

// gen writes counters plain counters (c0000 on) with days days of history
// up to today, each day a new visitor, a second view, a bot and, every
// tenth counter, a view from a search engine's link (a source); and the
// site "site" whose pages are viewed over the same days, so that it holds
// pages pages, a few of them viewed every day. Each day is one
// transaction, as imports and folded days write them.
func gen(path string, counters, pages, days int) error {
	if path == "" {
		return fmt.Errorf("no -db")
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists", path)
	}
	start := time.Now()
	db, err := store.Open(path, store.Options{Create: true, MaxSize: 1 << 30})
	if err != nil {
		return err
	}
	defer db.Close()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, 1-days)
	for i := range counters {
		if err := db.Create(fmt.Sprintf("c%04d", i), 0, first); err != nil {
			return err
		}
	}
	site, err := counter.NewSite("www.example.org")
	if err != nil {
		return err
	}
	site.Site.MaxPages = max(site.Site.MaxPages, pages)
	if err := db.CreateWith("site", 0, first, site); err != nil {
		return err
	}
	perDay := (pages + days - 1) / days
	for d := range days {
		at := first.AddDate(0, 0, d).Add(time.Minute)
		if d == days-1 {
			at = time.Now().UTC().Add(-time.Second) // today's hits go to the today buckets
		}
		var visits []store.Visit
		view := func(v store.Visit) {
			v.Now = at
			visits = append(visits, v)
		}
		for i := range counters {
			name := fmt.Sprintf("c%04d", i)
			view(store.Visit{Name: name, RefHost: "www.example.org", Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}})
			view(store.Visit{Name: name, Outcome: counter.Outcome{Kind: counter.View}})
			view(store.Visit{Name: name, Outcome: counter.Outcome{Kind: counter.Bot}})
			if i%10 == 0 {
				view(store.Visit{Name: name, Source: "Google", Outcome: counter.Outcome{Kind: counter.View}})
			}
		}
		for p := range perDay {
			page := fmt.Sprintf("/posts/%05d.html", (d*perDay+p)%pages)
			view(store.Visit{Name: "site", RefHost: "www.example.org", Target: page, Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true, PageVisitor: true}})
		}
		for p := range 20 {
			page := fmt.Sprintf("/popular/%02d.html", p)
			for range 20 - p {
				view(store.Visit{Name: "site", RefHost: "www.example.org", Target: page, Outcome: counter.Outcome{Kind: counter.View}})
			}
		}
		if _, err := db.VisitAll(visits); err != nil {
			return fmt.Errorf("day %d: %w", d, err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d counters with %d days, a site of %d pages; %.1f MB in %s\n",
		path, counters, days, pages, float64(fi.Size())/1e6, time.Since(start).Round(time.Second))
	return nil
}

// ownerPassword is the bench's owner password.
const ownerPassword = "overviewbench-owner"

// run times the overview as a CGI request of the owner, logged in, and
// the report as cron runs it, n times each, with their peak RSS.
func run(bin, db string, n int) error {
	if bin == "" || db == "" {
		return fmt.Errorf("no -bin or -db")
	}
	env := []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run")}
	var results []string
	cookie, err := ownerLogin(bin, db, env)
	if err != nil {
		results = append(results, fmt.Sprintf("  overview (CGI)    not timed: %v", err))
	} else {
		page := cgiEnv(env, "GET", "/", cookie)
		out, _, err := benchstat.RunCGI(bin, page, nil)
		if err != nil || !bytes.Contains(out, []byte(`<table class="all">`)) {
			return fmt.Errorf("the overview: %v: %.300q", err, out)
		}
		fmt.Printf("overview page: %d bytes, %d rows\n", len(out)-bytes.Index(out, []byte("\r\n\r\n"))-4, bytes.Count(out, []byte(`/stats">c`)))
		s, cpu, err := sample(n, func() (time.Duration, usage, error) {
			_, wall, err := benchstat.RunCGI(bin, page, nil)
			if err != nil {
				return 0, usage{}, err
			}
			u, err := timeOf(bin, page)
			return wall, u, err
		})
		if err != nil {
			return err
		}
		results = append(results, line("overview (CGI)", s, cpu))
	}
	out, err := command(bin, env, "report").Output()
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Printf("report: %d bytes, %d lines\n", len(out), bytes.Count(out, []byte("\n")))
	s, cpu, err := sample(n, func() (time.Duration, usage, error) {
		start := time.Now()
		if err := command(bin, env, "report").Run(); err != nil {
			return 0, usage{}, err
		}
		wall := time.Since(start)
		u, err := timeOf(bin, env, "report")
		return wall, u, err
	})
	if err != nil {
		return err
	}
	results = append(results, line("report", s, cpu))
	fmt.Printf("%d runs each: wall p50, p90, max; CPU (user+sys) p50; peak RSS max (GNU time)\n", n)
	for _, r := range results {
		fmt.Println(r)
	}
	return nil
}

// usage is what GNU time reports of a run.
type usage struct {
	peakRSS int64         // bytes
	cpu     time.Duration // user and system
}

// sample runs one n times.
func sample(n int, one func() (time.Duration, usage, error)) ([]benchstat.Sample, []time.Duration, error) {
	var s []benchstat.Sample
	var cpu []time.Duration
	for range n {
		wall, u, err := one()
		if err != nil {
			return nil, nil, err
		}
		s = append(s, benchstat.Sample{Wall: wall, PeakRSS: u.peakRSS})
		cpu = append(cpu, u.cpu)
	}
	return s, cpu, nil
}

func line(label string, s []benchstat.Sample, cpu []time.Duration) string {
	w := benchstat.Walls(s)
	return fmt.Sprintf("  %-18s %7.1f ms %7.1f ms %7.1f ms   CPU %6.1f ms %8.1f MB", label,
		benchstat.Ms(benchstat.Percentile(w, 50)), benchstat.Ms(benchstat.Percentile(w, 90)),
		benchstat.Ms(benchstat.Percentile(w, 100)), benchstat.Ms(benchstat.Percentile(cpu, 50)), float64(benchstat.MaxRSS(s))/1e6)
}

// command is bin run from a shell (no CGI environment) with args.
func command(bin string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	return cmd
}

// timeOf runs bin with env and args once under GNU time, which forks it
// from a small process of its own (see benchstat.PeakRSS), and returns
// its peak RSS and CPU time: on a machine shared with other work, the
// wall time waits for a core too, the CPU time does not.
func timeOf(bin string, env []string, args ...string) (usage, error) {
	f, err := os.CreateTemp("", "bench-rss")
	if err != nil {
		return usage{}, err
	}
	defer os.Remove(f.Name())
	f.Close()
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M %U %S", "-o", f.Name(), bin}, args...)...)
	cmd.Env = env
	if err := cmd.Run(); err != nil {
		return usage{}, fmt.Errorf("under /usr/bin/time: %w", err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return usage{}, err
	}
	var kb int64
	var user, sys float64
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d %f %f", &kb, &user, &sys); err != nil {
		return usage{}, fmt.Errorf("GNU time's %q: %w", b, err)
	}
	return usage{kb << 10, time.Duration((user + sys) * float64(time.Second))}, nil
}

// cgiEnv is a browser's request as a web server passes it.
func cgiEnv(env []string, method, path, cookie string) []string {
	e := append([]string{
		"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "REQUEST_METHOD=" + method,
		"SERVER_NAME=127.0.0.1", "SERVER_PORT=80", "HTTP_HOST=127.0.0.1", "REMOTE_ADDR=10.0.0.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "QUERY_STRING=",
		"REQUEST_URI=/cgi-bin/counter.cgi" + path,
		"HTTP_USER_AGENT=Mozilla/5.0 (X11; Linux x86_64) overviewbench", "HTTP_SEC_FETCH_SITE=same-origin",
	}, env...)
	if cookie != "" {
		e = append(e, "HTTP_COOKIE="+cookie)
	}
	return e
}

// ownerLogin sets the owner's password (passwd -owner) and logs in as the
// owner (POST /login), and returns the session cookie, as name=value.
func ownerLogin(bin, db string, env []string) (string, error) {
	cmd := command(bin, env, "passwd", "-owner")
	cmd.Stdin = strings.NewReader(ownerPassword + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("passwd -owner (the owner's login, issue 40 item 1): %v: %s", err, bytes.TrimSpace(out))
	}
	body := "password=" + ownerPassword
	post := append(cgiEnv(env, "POST", "/login", ""), "CONTENT_TYPE=application/x-www-form-urlencoded", "CONTENT_LENGTH="+strconv.Itoa(len(body)))
	out, _, err := benchstat.RunCGI(bin, post, strings.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("POST /login: %w", err)
	}
	head, _, _ := bytes.Cut(out, []byte("\r\n\r\n"))
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(head, "\r\n\r\n"...)))).ReadMIMEHeader()
	if err != nil {
		return "", fmt.Errorf("POST /login: %w", err)
	}
	var cookies []string
	for _, c := range (&http.Response{Header: http.Header(h)}).Cookies() {
		if c.Value != "" {
			cookies = append(cookies, c.Name+"="+c.Value)
		}
	}
	if len(cookies) == 0 {
		return "", fmt.Errorf("POST /login set no cookie: %.300q", out)
	}
	return strings.Join(cookies, "; "), nil
}
