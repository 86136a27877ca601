// Command soak runs the counter as a FastCGI process under a steady mixed
// load for a long time and fails if it leaks: it prints the process's RSS,
// threads and open files and the hits answered a second at every interval,
// and exits 1 if any of the first three drifts upward, any request goes
// unanswered, an answer is a server error, or the file's counts differ
// from the hits answered.
//
// The load, from 16 clients speaking FastCGI as a web server does: image
// hits on three counters (PNG, GIF, SVG), JSON counts, the statistics of a
// public counter and of a protected one with and without a session,
// failed logins from many addresses, the owner's right logins, and login
// bodies sent slowly in pieces.
//
//	go run ./deploy/bench/soak -bin counter.cgi [-duration 10m] [-every 1m]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/testenv"
)

const password = "soak-owner-password"

var counters = []string{"home", "blog", "notes"}

type config struct {
	bin      string
	duration time.Duration
	every    time.Duration
	clients  int
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "", "the counter binary to run as FastCGI (required)")
	flag.DurationVar(&c.duration, "duration", 10*time.Minute, "how long to run the load")
	flag.DurationVar(&c.every, "every", time.Minute, "how often to print the process's figures")
	flag.IntVar(&c.clients, "clients", 16, "clients sending requests at once")
	flag.Parse()
	if c.bin == "" || c.every <= 0 || c.duration < 3*c.every {
		log.Fatal("soak: -bin is required, and -duration must be at least 3 times -every")
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	fmt.Println("soak: PASS")
}

func run(c config) error {
	dir, err := os.MkdirTemp("", "counter-soak")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "counter.db")
	for _, name := range append(counters, "private") {
		// Every hit counts: the soak checks the file against the answers.
		if err := admin(c.bin, db, "", "create", name, "reload=off"); err != nil {
			return err
		}
	}
	if err := admin(c.bin, db, password+"\n", "passwd", "private"); err != nil {
		return err
	}
	srv, err := startFastCGI(c.bin, db, dir)
	if err != nil {
		return err
	}
	defer srv.stop()

	l := &load{sock: srv.sock, statuses: map[string]map[int]int{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range c.clients {
		wg.Add(1)
		go func() { defer wg.Done(); l.client(i, stop) }()
	}
	// Each interval's figures are the least of one sample a second: the
	// requests in hand come and go, a leak raises the floor.
	var samples []sample
	start := time.Now()
	fmt.Printf("%6s %8s %8s %6s %8s %8s %9s\n", "time", "RSS MB", "threads", "files", "sockets", "hits/s", "requests")
	var lastHits int64
	for t := c.every; t <= c.duration; t += c.every {
		floor := sample{rss: math.MaxInt64, threads: math.MaxInt, files: math.MaxInt, sockets: math.MaxInt}
		for time.Since(start) < t {
			time.Sleep(min(time.Second, time.Until(start.Add(t))))
			s, err := sampleProcess(srv.cmd.Process.Pid)
			if err != nil {
				close(stop)
				return fmt.Errorf("the FastCGI process: %w", err)
			}
			floor = sample{rss: min(floor.rss, s.rss), threads: min(floor.threads, s.threads), files: min(floor.files, s.files), sockets: min(floor.sockets, s.sockets)}
		}
		hits := l.hits.Load()
		floor.hitsPerSec = float64(hits-lastHits) / c.every.Seconds()
		lastHits = hits
		samples = append(samples, floor)
		fmt.Printf("%6s %8.1f %8d %6d %8d %8.0f %9d\n", t.Round(time.Second), float64(floor.rss)/(1<<20), floor.threads, floor.files, floor.sockets, floor.hitsPerSec, l.requests.Load())
	}
	close(stop)
	wg.Wait()
	srv.stop()

	var failures []string
	failures = append(failures, drift(samples, c.clients)...)
	l.mu.Lock()
	kinds := make([]string, 0, len(l.statuses))
	for k := range l.statuses {
		kinds = append(kinds, k)
	}
	l.mu.Unlock()
	fmt.Println("answers by kind and status:")
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Printf("  %-22s %v\n", k, l.statuses[k])
	}
	if n := l.unanswered.Load(); n > 0 {
		failures = append(failures, fmt.Sprintf("%d requests unanswered (first: %v)", n, l.firstErr.Load()))
	}
	if n := l.serverErrors.Load(); n > 0 {
		failures = append(failures, fmt.Sprintf("%d answers were server errors", n))
	}
	if l.ownerIn.Load() == 0 {
		failures = append(failures, "the owner never got in")
	}
	total, err := countsInFile(c.bin, db)
	if err != nil {
		return err
	}
	if total != uint64(l.hits.Load()) {
		failures = append(failures, fmt.Sprintf("the file holds %d hits, %d were answered", total, l.hits.Load()))
	}
	fmt.Printf("%d requests in %v, %d hits answered and %d in the file; the owner got in %d times\n",
		l.requests.Load(), c.duration, l.hits.Load(), total, l.ownerIn.Load())
	if len(failures) > 0 {
		return fmt.Errorf("FAIL:\n  %s", strings.Join(failures, "\n  "))
	}
	return nil
}

// drift fails a figure that keeps rising: the most of the second half of
// the run's intervals (the first left out as warm-up) against the most of
// the first half, with a margin for noise. A leak of one thread or file per
// thousand requests, or of memory per request, shows up as a rise. Sockets
// are the clients' connections, as many as are in hand when the process is
// slow: they fail only past one for each of the clients, and the listener.
func drift(samples []sample, clients int) []string {
	s := samples[1:]
	first, second := s[:len(s)/2], s[len(s)/2:]
	most := func(ss []sample) sample {
		var m sample
		for _, x := range ss {
			m.rss, m.threads, m.files = max(m.rss, x.rss), max(m.threads, x.threads), max(m.files, x.files)
			m.sockets = max(m.sockets, x.sockets)
		}
		return m
	}
	a, b := most(first), most(second)
	var out []string
	if b.rss > a.rss+a.rss/5+2<<20 {
		out = append(out, fmt.Sprintf("RSS rose from %.1f to %.1f MB", float64(a.rss)/(1<<20), float64(b.rss)/(1<<20)))
	}
	if b.threads > a.threads+2 {
		out = append(out, fmt.Sprintf("threads rose from %d to %d", a.threads, b.threads))
	}
	if b.files > a.files+8 {
		out = append(out, fmt.Sprintf("open files rose from %d to %d", a.files, b.files))
	}
	if b.sockets > a.sockets+8 && b.sockets > clients+2 {
		out = append(out, fmt.Sprintf("sockets rose from %d to %d, with %d clients", a.sockets, b.sockets, clients))
	}
	return out
}

// load is the clients' shared tally.
type load struct {
	sock                                     string
	requests, hits, unanswered, serverErrors atomic.Int64
	ownerIn                                  atomic.Int64
	firstErr                                 atomic.Value
	mu                                       sync.Mutex
	statuses                                 map[string]map[int]int
}

// client sends one request after another until stop is closed. Three
// clients in four are a site's visitors; the rest try wrong passwords, send
// login bodies slowly, or are the owner, who logs in from a browser that
// has logged in before and reads the protected statistics.
func (l *load) client(id int, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(uint64(id), 1))
	jar := map[string]string{} // the owner's cookies
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		// A visitor's address of the documentation ranges, a few a client.
		addr := fmt.Sprintf("198.51.100.%d", 1+id*8+n%8)
		var kind string
		var a answer
		var err error
		switch role := id % 8; {
		case role < 6:
			kind, a, err = l.visit(rng, addr)
		case role == 6 && id < 8:
			kind = "login, wrong"
			a, err = l.do("POST", "/private/login", addr, "", []byte("password=wrong-"+strconv.Itoa(n)), 0)
		case role == 6:
			kind = "login, slow body"
			a, err = l.do("POST", "/private/login", addr, "", []byte("password=slow-"+strconv.Itoa(n)), 100*time.Millisecond)
		case n%4 == 0:
			kind = "login, owner"
			a, err = l.do("POST", "/private/login", "203.0.113.1", cookies(jar), []byte("password="+password), 0)
			if err == nil && a.status == 303 {
				l.ownerIn.Add(1)
			}
			a.keepCookies(jar)
			time.Sleep(500 * time.Millisecond)
		default:
			kind = "stats, owner"
			a, err = l.do("GET", "/private/stats", "203.0.113.1", cookies(jar), nil, 0)
			time.Sleep(100 * time.Millisecond)
		}
		l.requests.Add(1)
		if err != nil {
			l.unanswered.Add(1)
			l.firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: %v", kind, err))
			continue
		}
		if a.status >= 500 && a.status != 503 {
			l.serverErrors.Add(1)
		}
		l.mu.Lock()
		if l.statuses[kind] == nil {
			l.statuses[kind] = map[int]int{}
		}
		l.statuses[kind][a.status]++
		l.mu.Unlock()
	}
}

// visit sends what a visitor's browser sends: mostly images, some JSON
// counts and statistics pages.
func (l *load) visit(rng *rand.Rand, addr string) (kind string, a answer, err error) {
	name := counters[rng.IntN(len(counters))]
	switch r := rng.IntN(100); {
	case r < 75:
		ext := [...]string{"png", "png", "png", "gif", "svg"}[rng.IntN(5)]
		a, err = l.do("GET", "/"+name+"."+ext, addr, "", nil, 0)
		if err == nil && a.status == 200 {
			l.hits.Add(1)
		}
		return "hit ." + ext, a, err
	case r < 90:
		a, err = l.do("GET", "/"+name+".json", addr, "", nil, 0)
		return "json", a, err
	case r < 96:
		a, err = l.do("GET", "/"+name+"/stats", addr, "", nil, 0)
		return "stats, public", a, err
	default:
		a, err = l.do("GET", "/private/stats", addr, "", nil, 0)
		return "stats, no session", a, err
	}
}

// answer is what the FastCGI process sent back.
type answer struct {
	status int
	header string
}

// keepCookies puts the cookies a sets into jar, and takes out those it
// clears.
func (a answer) keepCookies(jar map[string]string) {
	for line := range strings.SplitSeq(a.header, "\r\n") {
		v, ok := strings.CutPrefix(line, "Set-Cookie: ")
		if !ok {
			continue
		}
		pair, attrs, _ := strings.Cut(v, ";")
		name, value, _ := strings.Cut(pair, "=")
		if value == "" || strings.Contains(attrs, "Max-Age=0") {
			delete(jar, name)
		} else {
			jar[name] = value
		}
	}
}

// cookies is the Cookie header for jar.
func cookies(jar map[string]string) string {
	var pairs []string
	for k, v := range jar {
		pairs = append(pairs, k+"="+v)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, "; ")
}

// do sends one request over a connection of its own, as lighttpd does,
// the body in records of 8 bytes with pause between them if pause is set.
func (l *load) do(method, path, addr, cookie string, body []byte, pause time.Duration) (answer, error) {
	c, err := fcgitest.Dial(l.sock)
	if err != nil {
		return answer{}, err
	}
	defer c.Conn.Close()
	c.Conn.SetDeadline(time.Now().Add(30 * time.Second))
	env := fcgitest.Env(method, path, "", "SERVER_SOFTWARE", "soak", "REMOTE_ADDR", addr, "HTTP_USER_AGENT", "Mozilla/5.0 (soak)")
	if cookie != "" {
		env["HTTP_COOKIE"] = cookie
	}
	if body != nil {
		env["CONTENT_TYPE"] = "application/x-www-form-urlencoded"
		env["CONTENT_LENGTH"] = strconv.Itoa(len(body))
	}
	chunk := max(len(body), 1)
	if pause > 0 {
		chunk, c.Pause = 8, pause
	}
	out, _, err := c.Request(1, false, env, body, chunk)
	if err != nil {
		return answer{}, fmt.Errorf("after %d bytes: %w", len(out), err)
	}
	a, err := fcgitest.ParseAnswer(out)
	if err != nil {
		return answer{}, err
	}
	header, _, _ := strings.Cut(string(out), "\r\n\r\n")
	return answer{a.Status, header}, nil
}

// server is the FastCGI process, started as lighttpd's bin-path starts
// it: a listening socket as its stdin.
type server struct {
	cmd  *exec.Cmd
	sock string
	once sync.Once
	err  error
}

func startFastCGI(bin, db, dir string) (*server, error) {
	sock := filepath.Join(dir, "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	f, err := ln.(*net.UnixListener).File()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(bin)
	cmd.Env = []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}
	cmd.Stdin, cmd.Stderr = f, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &server{cmd: cmd, sock: sock}, nil
}

// stop ends the process as a web server does, with SIGTERM, once.
func (s *server) stop() {
	s.once.Do(func() {
		s.cmd.Process.Signal(os.Interrupt)
		s.err = s.cmd.Wait()
	})
}

func admin(bin, db, stdin string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "COUNTER_DB="+db)
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", filepath.Base(bin), args[0], err, bytes.TrimSpace(out))
	}
	return nil
}

// countsInFile adds up the totals that `list` prints for the soaked
// counters.
func countsInFile(bin, db string) (uint64, error) {
	cmd := exec.Command(bin, "list")
	cmd.Env = append(os.Environ(), "COUNTER_DB="+db)
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("list: %w", err)
	}
	var total uint64
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] != "private" {
			for _, name := range counters {
				if f[0] == name {
					n, err := strconv.ParseUint(strings.ReplaceAll(f[1], ",", ""), 10, 64)
					if err != nil {
						return 0, fmt.Errorf("list: %q: %w", line, err)
					}
					total += n
				}
			}
		}
	}
	return total, nil
}

// sample is the process's figures at one moment.
type sample struct {
	rss            int64
	threads, files int // files: what is open but sockets
	sockets        int
	hitsPerSec     float64
}

func sampleProcess(pid int) (sample, error) {
	p, err := testenv.ReadProcess(pid)
	return sample{rss: p.RSS, threads: p.Threads, files: p.Files, sockets: p.Sockets}, err
}
