// Command floodbench measures what a flood of wrong passwords does to the
// counter image under a real web server, and counts the bcrypt runs the
// flood got against what the cap and the throttle allow.
// deploy/bench/bench-flood.sh builds the binary, starts lighttpd and runs it.
//
// Four phases, each a fixed number of image requests from a few clients:
//
//	A  the image alone
//	B  the image while attackers post wrong passwords as fast as they can,
//	   all from the peer address (one client for the throttle)
//	C  the same, each attacker with its own X-Forwarded-For (which the
//	   server trusts from 127.0.0.1), all in one /24: the network's limit
//	   holds them back
//	D  the same, each attacker in a /24 of its own (198.18.0.0/15, the
//	   range set aside for benchmarks): only each address's own limit and
//	   the bcrypt cap hold them back, the most bcrypt a flood can get
//
// The bound on bcrypt runs in a phase is the least of what the cap allows
// (one check at a time per slot) and what the throttles allow: per network
// the lesser of its own limit and its clients' limits added up.
//
// A bcrypt run is a "login failed" line the counter added to its stderr
// log (lighttpd's server.breakagelog, for CGI children and FastCGI
// processes alike). The log has no timestamps, so with -pid (the web
// server's) and -run-dir the counter's processes are sampled every few
// milliseconds instead: how many bcrypt slots are held at once
// (/proc/locks), and, under CGI, how much CPU each child uses while it
// holds none. A check run outside the slots would show there as a whole
// check's worth.
//
// With -fcgi-script the same three phases run again against the counter
// served by FastCGI (one long-lived process, with a runtime directory and
// database of its own), and a summary shows both side by side.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/counter"
	"hitcounter/deploy/bench/benchstat"
)

// Throttle limits, as cgi/loginguard.go sets them: every try that gets
// past them counts, checked or refused as busy.
const (
	// A client: an IPv4 address.
	failuresPerMinute = 5
	failuresPerHour   = 20
	// A network: an IPv4 /24, counted once the client's limit let the try in.
	networkPerMinute = 15
	networkPerHour   = 50
)

const (
	// requestTimeout bounds one request, so that a hung server ends the
	// run instead of stalling it.
	requestTimeout = 10 * time.Second
	// clockTick is Linux's USER_HZ, the unit of CPU times in /proc.
	clockTick = 10 * time.Millisecond
	// sampleEvery is how often the CGI children are looked at.
	sampleEvery = 5 * time.Millisecond
)

type config struct {
	base, name, log string
	cgi, fcgi       mode
	requests, conc  int
	attackers       int
	maxAttempts     int64
	phaseTimeout    time.Duration
	slots           int
	serverPID       int
	runDir          string
}

func main() {
	var c config
	flag.StringVar(&c.base, "url", "", "base URL of the web server (http://127.0.0.1:PORT)")
	flag.StringVar(&c.name, "name", "", "counter with a password")
	flag.StringVar(&c.log, "log", "", "file the CGI's stderr goes to (lighttpd's server.breakagelog)")
	flag.IntVar(&c.requests, "requests", 600, "image requests per phase")
	flag.IntVar(&c.conc, "conc", 4, "concurrent image clients")
	flag.IntVar(&c.attackers, "attackers", 32, "concurrent clients posting wrong passwords")
	flag.Int64Var(&c.maxAttempts, "max-attempts", 50000, "login attempts per phase at most")
	// Under a minute, so that a phase sees one throttle window per client.
	flag.DurationVar(&c.phaseTimeout, "phase-timeout", 55*time.Second, "time a phase may take at most")
	flag.IntVar(&c.slots, "slots", 1, "COUNTER_BCRYPT_SLOTS the server runs with")
	flag.IntVar(&c.serverPID, "pid", 0, "web server's pid, to sample its CGI children (0: do not)")
	flag.StringVar(&c.runDir, "run-dir", "", "COUNTER_RUN_DIR the server runs with, to find the bcrypt slots")
	flag.StringVar(&c.cgi.script, "script", "/cgi-bin/counter.cgi", "URL path of the counter run as CGI")
	flag.StringVar(&c.cgi.exe, "exe", "", "binary the CGI children run, to tell them from other children (empty: all are)")
	flag.StringVar(&c.fcgi.script, "fcgi-script", "", "URL path of the counter run as FastCGI (empty: CGI only)")
	flag.StringVar(&c.fcgi.exe, "fcgi-exe", "", "binary the FastCGI process runs (a copy of its own)")
	flag.StringVar(&c.fcgi.runDir, "fcgi-run-dir", "", "COUNTER_RUN_DIR of the FastCGI process")
	flag.Parse()
	c.cgi.label, c.cgi.runDir = "CGI", c.runDir
	c.fcgi.label, c.fcgi.fastcgi = "FastCGI", true
	if c.base == "" || c.name == "" || c.log == "" || c.requests < 1 || c.conc < 1 ||
		(c.serverPID > 0) != (c.runDir != "") ||
		(c.fcgi.script != "" && (c.fcgi.exe == "" || c.cgi.exe == "" || (c.serverPID > 0) != (c.fcgi.runDir != ""))) {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "floodbench:", err)
		os.Exit(1)
	}
}

// mode is one way the web server runs the counter.
type mode struct {
	label   string
	script  string // URL path of the counter
	exe     string // its binary, to find its processes among the server's children
	runDir  string
	fastcgi bool // one long-lived process rather than a process per request
}

// procs lists the server's children that run m's binary.
func (m mode) procs(server int) []string {
	var out []string
	for _, p := range children(server) {
		if m.exe == "" || exe(p) == m.exe {
			out = append(out, p)
		}
	}
	return out
}

func exe(pid string) string {
	s, _ := os.Readlink("/proc/" + pid + "/exe")
	return s
}

// phase is one load and what came of it.
type phase struct {
	label      string
	attack     bool
	forwarded  bool // each attacker sends its own X-Forwarded-For
	spread     bool // and each is in a /24 of its own
	lat        []time.Duration
	imgStatus  map[int]int
	imgErrors  int
	imgCut     int // in flight at the phase limit
	imgWall    time.Duration
	logins     int64
	status     map[int]int
	loginErrs  int
	loginCut   int
	failedAt   map[string][]time.Duration // 401 answers by client, since the phase began
	attackWall time.Duration
	lines      map[string]int // CGI log lines by kind
	seen       sampled
	timedOut   bool
}

func run(c config) error {
	tmin, err := minCompare(5)
	if err != nil {
		return err
	}
	fmt.Printf("floodbench: %s, %d image requests per phase from %d clients, %d attackers, cap K=%d\n",
		c.base, c.requests, c.conc, c.attackers, c.slots)
	fmt.Printf("  bcrypt cost %d check here, idle: min of 5 %.1f ms (the bound on runs uses it)\n", counter.PasswordCost, ms(tmin))
	if c.serverPID > 0 {
		fmt.Printf("  samples: the counter's processes every %s, bcrypt slots held from /proc/locks, CPU from /proc in %s ticks\n",
			sampleEvery, clockTick)
	}
	modes := []mode{c.cgi}
	if c.fcgi.script != "" {
		modes = append(modes, c.fcgi)
	}
	var all [][]*phase
	for _, m := range modes {
		phases := []*phase{
			{label: "A: image only"},
			{label: "B: + wrong passwords, all from 127.0.0.1", attack: true},
			{label: "C: + wrong passwords, X-Forwarded-For 198.51.100.N, one /24", attack: true, forwarded: true},
			{label: "D: + wrong passwords, X-Forwarded-For 198.18.N.1, a /24 each", attack: true, forwarded: true, spread: true},
		}
		fmt.Printf("\n%s: %s\n", m.label, c.base+m.script+"/"+c.name+".png")
		for _, p := range phases {
			settle(c, m)
			if err := p.run(c, m); err != nil {
				return fmt.Errorf("%s phase %s: %w", m.label, p.label, err)
			}
			p.print(c, m, phases[0], tmin)
		}
		all = append(all, phases)
	}
	summary(c, modes, all)
	return nil
}

func (p *phase) run(c config, m mode) error {
	off, err := logSize(c.log)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.phaseTimeout)
	defer cancel()
	sampleCtx, stopSampling := context.WithCancel(ctx)
	var sampled sync.WaitGroup
	if c.serverPID > 0 {
		sampled.Go(func() { p.seen = sample(sampleCtx, c.serverPID, m) })
	}
	var stop atomic.Bool
	var attacked sync.WaitGroup
	if p.attack {
		attacked.Go(func() { p.flood(ctx, &stop, c, m) })
	}
	p.images(ctx, c, m)
	stop.Store(true)
	attacked.Wait()
	stopSampling()
	sampled.Wait()
	p.timedOut = ctx.Err() != nil
	// Every attempt has its answer, and the counter logs before it
	// answers; only an attempt cut off by the phase limit may still be
	// running.
	settle(c, m)
	p.lines, err = countLines(c.log, off)
	return err
}

// images sends c.requests GETs for the counter image, c.conc at a time.
func (p *phase) images(ctx context.Context, c config, m mode) {
	client := newClient(c.conc)
	defer client.CloseIdleConnections()
	u := c.base + m.script + "/" + url.PathEscape(c.name) + ".png"
	lat := make([]time.Duration, c.requests)
	status := make([]int, c.requests) // 0: transport error
	start := time.Now()
	benchstat.Run(ctx, c.requests, c.conc, func(i int) bool {
		t := time.Now()
		status[i] = get(ctx, client, u)
		lat[i] = time.Since(t)
		return true
	})
	p.imgWall = time.Since(start)
	p.imgStatus = map[int]int{}
	for i, s := range status {
		switch {
		case s == 0 && lat[i] == 0: // never sent
		case s == 0 && ctx.Err() != nil:
			p.imgCut++
		case s == 0:
			p.imgErrors++
		default:
			p.imgStatus[s]++
			p.lat = append(p.lat, lat[i])
		}
	}
}

// get fetches an image and returns its status, or 0 on a transport error
// or when a 200 is not an image.
func get(ctx context.Context, client *http.Client, u string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0
	}
	if resp.StatusCode == http.StatusOK && !strings.HasPrefix(resp.Header.Get("Content-Type"), "image/") {
		return 0
	}
	return resp.StatusCode
}

// flood posts wrong passwords from c.attackers clients, each waiting for
// its answer and sending the next at once, until stop is set, ctx ends or
// c.maxAttempts are sent. An attempt in flight at stop gets its answer.
func (p *phase) flood(ctx context.Context, stop *atomic.Bool, c config, m mode) {
	hc := newClient(c.attackers)
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	defer hc.CloseIdleConnections()
	u := c.base + m.script + "/" + url.PathEscape(c.name) + "/login"
	var sent atomic.Int64
	var mu sync.Mutex
	p.status, p.failedAt = map[int]int{}, map[string][]time.Duration{}
	var wg sync.WaitGroup
	start := time.Now()
	for a := range c.attackers {
		wg.Go(func() {
			client := "127.0.0.1"
			if p.forwarded {
				client = forwardedFor(a, p.spread)
			}
			local := map[int]int{}
			var failed []time.Duration
			errs, cut := 0, 0
			for !stop.Load() && ctx.Err() == nil && sent.Add(1) <= c.maxAttempts {
				s, err := post(ctx, hc, u, a, client, p.forwarded)
				switch {
				case err == nil:
					local[s]++
					if s == http.StatusUnauthorized {
						failed = append(failed, time.Since(start))
					}
				case ctx.Err() != nil:
					cut++
				default:
					errs++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for s, n := range local {
				p.status[s] += n
			}
			p.failedAt[client] = append(p.failedAt[client], failed...)
			p.loginErrs += errs
			p.loginCut += cut
		})
	}
	wg.Wait()
	p.attackWall = time.Since(start)
	p.logins = min(sent.Load(), c.maxAttempts)
}

func post(ctx context.Context, client *http.Client, u string, attacker int, addr string, forwarded bool) (int, error) {
	body := "password=" + url.QueryEscape("wrong-"+strconv.Itoa(attacker))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if forwarded {
		req.Header.Set("X-Forwarded-For", addr)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// forwardedFor is attacker's own address: in one /24 of a documentation
// range, or spread, in a /24 of its own in the benchmarking range.
func forwardedFor(attacker int, spread bool) string {
	if spread {
		return fmt.Sprintf("198.%d.%d.1", 18+attacker/256, attacker%256)
	}
	return "198.51.100." + strconv.Itoa(attacker+1)
}

// network is the /24 of an IPv4 address, as the throttle groups clients.
func network(addr string) string {
	if i := strings.LastIndexByte(addr, '.'); i >= 0 {
		return addr[:i] + ".0/24"
	}
	return addr
}

// throttleBound is how many tries the throttles let through in a phase
// that spans windows minutes, from the clients in failedAt: per network,
// the lesser of its own limit and its clients' added up.
func throttleBound(failedAt map[string][]time.Duration, windows int) (bound, clients, networks int) {
	perClient := min(failuresPerMinute*windows, failuresPerHour)
	perNet := min(networkPerMinute*windows, networkPerHour)
	inNet := map[string]int{}
	for c := range failedAt {
		inNet[network(c)]++
	}
	for _, n := range inNet {
		bound += min(n*perClient, perNet)
	}
	return bound, len(failedAt), len(inNet)
}

// newClient keeps one connection per worker, so the load is on the CGI
// processes, not on TCP set-up.
func newClient(conns int) *http.Client {
	return &http.Client{
		Timeout:   requestTimeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns},
	}
}

func (p *phase) print(c config, m mode, a *phase, tmin time.Duration) {
	fmt.Printf("\nphase %s\n", p.label)
	if p.timedOut {
		fmt.Printf("  STOPPED at the phase limit of %s: figures cover what was answered\n", c.phaseTimeout)
	}
	p50, p99 := percentile(p.lat, 50), percentile(p.lat, 99)
	fmt.Printf("  image: %d answered in %.1f s (%s), %d errors, %d cut off; p50 %.1f ms, p99 %.1f ms\n",
		len(p.lat), p.imgWall.Seconds(), statuses(p.imgStatus), p.imgErrors, p.imgCut, ms(p50), ms(p99))
	if p != a {
		r50, r99 := ratio(p50, percentile(a.lat, 50)), ratio(p99, percentile(a.lat, 99))
		fmt.Printf("  image against A: p50 x%.2f, p99 x%.2f (target p99 <= x2.00: %s)\n", r50, r99, verdict(r99 <= 2))
	}
	runs := p.lines["login failed"]
	if !p.attack {
		fmt.Printf("  logins: none sent; bcrypt runs (login failed lines): %d\n", runs)
		p.seen.print(c, m, false, tmin)
		return
	}
	d := p.attackWall
	fmt.Printf("  logins: %d sent in %.1f s (%.0f/s): %s, %d errors, %d cut off\n",
		p.logins, d.Seconds(), float64(p.logins)/d.Seconds(), statuses(p.status), p.loginErrs, p.loginCut)
	fmt.Printf("  log lines: login failed %d, login throttled %d (client) + %d (network), login busy %d, other %d\n",
		runs, p.lines["login throttled"], p.lines["login throttled network"], p.lines["login busy"], p.lines["other"])
	capBound := int((d+tmin-1)/tmin) * c.slots
	windows := int((d+time.Second)/time.Minute) + 1 // whole seconds in the CGI's clock
	thBound, clients, networks := throttleBound(p.failedAt, windows)
	fmt.Printf("  bcrypt runs %d; cap allows <= %.1f s / %.1f ms x K=%d = %d; throttles allow <= %d (%d client(s) in %d /24(s), %d min window(s)): %s\n",
		runs, d.Seconds(), ms(tmin), c.slots, capBound, thBound, clients, networks, windows,
		verdict(runs <= capBound && runs <= thBound))
	most, first, last := perMinute(p.failedAt, func(c string) string { return c })
	mostNet, _, _ := perMinute(p.failedAt, network)
	fmt.Printf("  401s within 60 s of the first: per client max %d (limit %d), per /24 max %d (limit %d): %s; 401s from %.1f s to %.1f s\n",
		most, failuresPerMinute, mostNet, networkPerMinute,
		verdict(most <= failuresPerMinute && mostNet <= networkPerMinute), first.Seconds(), last.Seconds())
	p.seen.print(c, m, true, tmin)
}

// summary prints every mode's phases side by side: the image's p50 and
// p99, p99 against phase A of the same mode (the target is at most x2),
// login attempts sent per second, and bcrypt runs.
func summary(c config, modes []mode, all [][]*phase) {
	names := []string{"A image only", "B flood, 1 address", fmt.Sprintf("C flood, %d addresses, one /24", c.attackers),
		fmt.Sprintf("D flood, %d addresses, a /24 each", c.attackers)}
	fmt.Printf("\nsummary: image p50 and p99 in ms, p99 against A (target <= x2), login attempts/s, bcrypt runs\n")
	fmt.Print("| phase |")
	for _, m := range modes {
		fmt.Printf(" %[1]s p50 | %[1]s p99 | %[1]s p99/A | %[1]s logins/s | %[1]s bcrypt |", m.label)
	}
	fmt.Print("\n| --- |")
	for range modes {
		fmt.Print(" --: | --: | --: | --: | --: |")
	}
	fmt.Println()
	for i, name := range names {
		fmt.Printf("| %s |", name)
		for k := range modes {
			p, a := all[k][i], all[k][0]
			p99 := percentile(p.lat, 99)
			rate := "-"
			if p.attack && p.attackWall > 0 {
				rate = fmt.Sprintf("%.0f", float64(p.logins)/p.attackWall.Seconds())
			}
			fmt.Printf(" %.1f | %.1f | x%.2f | %s | %d |", ms(percentile(p.lat, 50)), ms(p99),
				ratio(p99, percentile(a.lat, 99)), rate, p.lines["login failed"])
		}
		fmt.Println()
	}
}

// perMinute returns the most 401s any group of clients (by key) got within
// a minute of its first, and when the first and last 401 of all came.
func perMinute(at map[string][]time.Duration, key func(client string) string) (most int, first, last time.Duration) {
	groups := map[string][]time.Duration{}
	for c, t := range at {
		groups[key(c)] = append(groups[key(c)], t...)
	}
	first = time.Duration(1 << 62)
	for _, t := range groups {
		if len(t) == 0 {
			continue
		}
		slices.Sort(t)
		n, _ := slices.BinarySearch(t, t[0]+time.Minute)
		most, first, last = max(most, n), min(first, t[0]), max(last, t[len(t)-1])
	}
	if most == 0 {
		first = 0
	}
	return most, first, last
}

// minCompare times a check at the counter's pinned cost on this machine,
// idle, and returns the fastest of n: the shortest a bcrypt run can be,
// for the bound on runs.
func minCompare(n int) (time.Duration, error) {
	times, err := counter.TimeHash(counter.PasswordCost, n)
	if err != nil {
		return 0, err
	}
	return slices.Min(times), nil
}

// sampled is what the samples of the counter's processes showed.
type sampled struct {
	on      bool
	fastcgi bool
	holders int           // most bcrypt slots held at once
	procs   int           // processes seen
	outside time.Duration // CGI: CPU they used while not holding a slot
	maxOut  time.Duration // CGI: the most one of them used so
	cpu     time.Duration // FastCGI: CPU its process used in the phase
}

func (s sampled) print(c config, m mode, attack bool, tmin time.Duration) {
	if !s.on {
		return
	}
	if s.fastcgi {
		// One process serves the images and the logins alike, so its CPU
		// outside a slot says nothing; the slots held at once still do.
		fmt.Printf("  samples: %d FastCGI process(es), CPU %.0f ms in the phase; slots held at once max %d",
			s.procs, ms(s.cpu), s.holders)
		if attack {
			fmt.Printf(" (cap K=%d): %s", c.slots, verdict(s.holders <= c.slots && s.procs == 1))
		}
		fmt.Println()
		return
	}
	mean := time.Duration(0)
	if s.procs > 0 {
		mean = s.outside / time.Duration(s.procs)
	}
	fmt.Printf("  samples: %d CGI processes, CPU outside a slot mean %.1f ms, max %.0f ms; slots held at once max %d",
		s.procs, ms(mean), ms(s.maxOut), s.holders)
	if attack {
		fmt.Printf(" (cap K=%d): %s", c.slots, verdict(s.holders <= c.slots && s.maxOut < tmin))
	}
	fmt.Println()
}

// sample looks at the web server's children that run m's binary every
// sampleEvery until ctx ends. Under CGI it adds up the CPU each uses while
// it holds no bcrypt slot. A check takes longer than many samples, so a
// holder is always seen holding; a process that ran one without a slot
// would use a whole check's CPU outside.
func sample(ctx context.Context, pid int, m mode) sampled {
	s := sampled{on: true, fastcgi: m.fastcgi}
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	slots := map[string]bool{} // "dev:inode" of the slot files, as /proc/locks names them
	last := map[string]time.Duration{}
	out := map[string]time.Duration{}
	for {
		findSlots(m.runDir, slots)
		holding, held := slotHolders(slots)
		for _, c := range m.procs(pid) {
			cpu, ok := cpuTime(c)
			if !ok {
				continue
			}
			prev, seen := last[c]
			last[c] = cpu
			if !seen {
				s.procs++
				if m.fastcgi {
					continue // its CPU before the phase is not the phase's
				}
			}
			if m.fastcgi {
				s.cpu += cpu - prev
			} else if !holding[c] {
				out[c] += cpu - prev
				s.outside += cpu - prev
				s.maxOut = max(s.maxOut, out[c])
			}
		}
		s.holders = max(s.holders, held)
		select {
		case <-ctx.Done():
			return s
		case <-tick.C:
		}
	}
}

// findSlots adds the slot files that exist to slots; CGI processes make
// them on first use.
func findSlots(dir string, slots map[string]bool) {
	names, _ := filepath.Glob(filepath.Join(dir, "bcrypt-*.lock"))
	for _, name := range names {
		fi, err := os.Stat(name)
		if err != nil {
			continue
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		dev := uint64(st.Dev)
		// /proc/locks writes MAJOR:MINOR:INODE, in hex for the device.
		key := fmt.Sprintf("%02x:%02x:%d", (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff, st.Ino)
		slots[key] = true
	}
}

// slotHolders returns the pids holding a flock on one of slots, and how
// many of the slots are held (a FastCGI process may hold several).
func slotHolders(slots map[string]bool) (map[string]bool, int) {
	held := map[string]bool{}
	b, err := os.ReadFile("/proc/locks")
	if err != nil || len(slots) == 0 {
		return held, 0
	}
	taken := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		// "1: FLOCK  ADVISORY  WRITE 8042 fe:00:9977990 0 EOF"; a waiter
		// has "->" after the number, but slots are never waited on.
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "FLOCK" && slots[f[5]] {
			held[f[4]] = true
			taken[f[5]] = true
		}
	}
	return held, len(taken)
}

// children lists a process's children (lighttpd's), as the pids that
// the rest of this file keeps.
func children(pid int) []string {
	var out []string
	for _, c := range testenv.Children(pid) {
		out = append(out, strconv.Itoa(c))
	}
	return out
}

// cpuTime is the user plus system time a process has used.
func cpuTime(pid string) (time.Duration, bool) {
	n, err := strconv.Atoi(pid)
	if err != nil {
		return 0, false
	}
	c, err := testenv.ReadCPU(n)
	return c.Self, err == nil
}

// settle waits, up to 10 s, until the web server has no CGI children left
// from the last phase, so that a phase starts on a quiet machine. A
// FastCGI process has no children to wait for: a login cut off by the
// phase limit ends within a check's time.
func settle(c config, m mode) {
	if c.serverPID <= 0 {
		time.Sleep(time.Second)
		return
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if len(c.cgi.procs(c.serverPID)) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if m.fastcgi {
		time.Sleep(300 * time.Millisecond)
	}
}

func logSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// countLines counts the log's lines from off on, by kind.
func countLines(path string, off int64) (map[string]int, error) {
	n := map[string]int{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return n, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "counter: login failed: "):
			n["login failed"]++
		case strings.HasPrefix(line, "counter: login throttled: ") && strings.Contains(line, " network="):
			n["login throttled network"]++
		case strings.HasPrefix(line, "counter: login throttled: "):
			n["login throttled"]++
		case strings.HasPrefix(line, "counter: login busy: "):
			n["login busy"]++
		default:
			n["other"]++
			if n["other"] <= 3 {
				fmt.Printf("  log: %.200s\n", line)
			}
		}
	}
	return n, sc.Err()
}

func statuses(m map[int]int) string {
	if len(m) == 0 {
		return "no answers"
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d x%d", s, m[s]))
	}
	return strings.Join(parts, ", ")
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

var (
	percentile = benchstat.Percentile
	ms         = benchstat.Ms
)
