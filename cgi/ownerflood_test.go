package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// loginEnv is the CGI environment of a same-origin login POST to counter
// demo from addr, with a Cookie header if cookies is not empty.
func loginEnv(t *testing.T, db, addr, cookies string, body string) []string {
	t.Helper()
	return loginEnvAt(t, db, "/demo/login", addr, cookies, body)
}

// loginEnvAt is loginEnv's for a login POST to path under the script.
func loginEnvAt(t *testing.T, db, path, addr, cookies string, body string) []string {
	t.Helper()
	env := append(hitEnv(t, db), "REQUEST_METHOD=POST", "PATH_INFO="+path,
		"REQUEST_URI=/cgi-bin/counter.cgi"+path, "QUERY_STRING=",
		"CONTENT_TYPE=application/x-www-form-urlencoded", "CONTENT_LENGTH="+strconv.Itoa(len(body)),
		"HTTP_SEC_FETCH_SITE=same-origin", "REMOTE_ADDR="+addr)
	if cookies != "" {
		env = append(env, "HTTP_COOKIE="+cookies)
	}
	return env
}

// cgiLogin is one login run through the built binary as a CGI child: its
// answer, or the run's error.
type cgiLogin struct {
	pid        int
	start, end time.Time // of the process
	status     int
	cookies    []*http.Cookie
	stderr     string
	took       time.Duration
}

// postLogin runs one login as a web server would.
func postLogin(bin string, env []string, body string) (cgiLogin, error) {
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(body)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return cgiLogin{}, err
	}
	err := cmd.Wait()
	end := time.Now()
	took := end.Sub(start)
	if err != nil {
		return cgiLogin{}, fmt.Errorf("CGI run: %v; stderr %s", err, errOut.String())
	}
	head, _, ok := bytes.Cut(out.Bytes(), []byte("\r\n\r\n"))
	if !ok {
		return cgiLogin{}, fmt.Errorf("no end of headers in %.200q", out.Bytes())
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append([]byte("HTTP/1.1 200 OK\r\n"), append(head, "\r\n\r\n"...)...))), nil)
	if err != nil {
		return cgiLogin{}, fmt.Errorf("headers: %v in %.200q", err, head)
	}
	status, err := strconv.Atoi(strings.Fields(resp.Header.Get("Status") + " x")[0])
	if err != nil {
		return cgiLogin{}, fmt.Errorf("Status header %q", resp.Header.Get("Status"))
	}
	return cgiLogin{pid: cmd.Process.Pid, start: start, end: end, status: status, cookies: resp.Cookies(), stderr: errOut.String(), took: took}, nil
}

// ownerLogin logs the owner in from addr with the form body and returns
// the session and device cookies the answer sets, as NAME=VALUE.
func ownerLogin(t *testing.T, bin, db, addr, body string) (session, device string) {
	t.Helper()
	return loginAt(t, bin, db, counterDoor, addr, body)
}

// loginDoor is where a flood test logs in: a counter's login or the
// owner's, with its cookies' names and the passwd arguments that set its
// password.
type loginDoor struct {
	path            string
	session, device string
	passwd          []string
}

var (
	counterDoor = loginDoor{"/demo/login", "counter_session", "counter_device", []string{"passwd", "demo"}}
	ownerDoor   = loginDoor{"/login", "counter_owner_session", "counter_owner_device", []string{"passwd", "-owner"}}
)

// loginAt logs in at door d from addr with the form body and returns the
// session and device cookies the answer sets, as NAME=VALUE.
func loginAt(t *testing.T, bin, db string, d loginDoor, addr, body string) (session, device string) {
	t.Helper()
	first, err := postLogin(bin, loginEnvAt(t, db, d.path, addr, "", body), body)
	if err != nil || first.status != http.StatusSeeOther {
		t.Fatalf("the first login at %s: %v %v", d.path, first.status, err)
	}
	for _, c := range first.cookies {
		switch c.Name {
		case d.session:
			session = c.Name + "=" + c.Value
		case d.device:
			device = c.Name + "=" + c.Value
		}
	}
	if session == "" || device == "" {
		t.Fatalf("no session or device cookie in %v", first.cookies)
	}
	return session, device
}

// slotWatch follows, from /proc/locks, who holds the bcrypt slots: the
// kernel's own list of flocks, read without taking any, so the watching
// changes nothing for the processes watched. The list is read a page at a
// time, not at once, so one sample may show a record twice, or a slot's
// last holder and its next: a slot counts once however many holders it
// shows.
type slotWatch struct {
	run     string
	files   map[string]string // a slot file as /proc/locks names it, "fe:00:1234": its name
	mu      sync.Mutex
	holders map[int][]time.Time // a process seen holding a slot: when
	peak    int                 // slots held at once, at most
	samples int
	both    int // samples with two slots held
}

// refresh learns the slot files made so far.
func (w *slotWatch) refresh() {
	names, _ := filepath.Glob(filepath.Join(w.run, "bcrypt*.lock"))
	for _, n := range names {
		var st unix.Stat_t
		if unix.Stat(n, &st) == nil {
			id := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
			w.files[id] = filepath.Base(n)
		}
	}
}

// sample reads /proc/locks once and notes the slots held now (not waited
// for) and by whom.
func (w *slotWatch) sample() error {
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return err
	}
	held := map[string]bool{}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, line := range strings.Split(string(b), "\n") {
		// "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF"; a waiter's
		// line has "->" after the number.
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" {
			continue
		}
		name, ok := w.files[f[5]]
		if !ok {
			continue
		}
		held[name] = true
		if pid, err := strconv.Atoi(f[4]); err == nil {
			w.holders[pid] = append(w.holders[pid], now)
		}
	}
	w.samples++
	w.peak = max(w.peak, len(held))
	if len(held) >= 2 {
		w.both++
	}
	return nil
}

// heldBy reports whether l's process was seen holding a slot while it
// ran: pids are soon used again.
func (w *slotWatch) heldBy(l cgiLogin) bool {
	for _, at := range w.holders[l.pid] {
		if !at.Before(l.start) && !at.After(l.end) {
			return true
		}
	}
	return false
}

// watch samples until stop is closed, every millisecond or so.
func (w *slotWatch) watch(t *testing.T, stop, done chan struct{}) {
	defer close(done)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		if i%50 == 0 {
			w.refresh()
		}
		if err := w.sample(); err != nil {
			t.Errorf("/proc/locks: %v", err)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// The owner's cookies in a flood run: what his browser sends beside the
// device cookie its first login gave it.
const (
	deviceOnly     = iota // the device cookie alone: the password is checked
	sessionBeside         // and the session the same login gave: no check at all
	garbageSession        // and a session cookie that is no session
)

// TestOwnerGetsInDuringRotatingFloodCGI: 8 processes at a time of wrong
// passwords from rotating IPv4 and IPv6 addresses, each try a new client
// of a new network, run through the built binary as CGI children, while
// the owner's browser, known by the device cookie its first login gave
// it, tries 4 times 2 s apart, each try started whether or not the one
// before has been answered, as an owner who clicks again does. Every
// owner try gets in (303), whatever else the browser sends: the device
// cookie alone (10 runs), every cookie the login gave it (3 runs), or the
// device cookie beside a session cookie that is no session (3 runs). The
// bcrypt slots held at once, as the kernel lists their flocks in
// /proc/locks, never number more than the cap (1 shared,
// COUNTER_BCRYPT_SLOTS, and the known devices' one); every process that
// checked a password (401 or 303) was seen holding one, and no owner's
// try with a session was.
func TestOwnerGetsInDuringRotatingFloodCGI(t *testing.T) {
	if testing.Short() {
		t.Skip("16 floods of 8 s each")
	}
	bin := counterBinary(t)
	for _, tc := range []struct {
		name    string
		runs    int
		cookies int
	}{
		{"device cookie", 10, deviceOnly},
		{"session and device cookies", 3, sessionBeside},
		{"garbage session and device cookie", 3, garbageSession},
	} {
		t.Run(tc.name, func(t *testing.T) { ownerFlood(t, bin, counterDoor, tc.runs, tc.cookies) })
	}
}

// TestOwnerLoginGetsInDuringRotatingFloodCGI: the same flood at the
// owner's login (passwd -owner, /login), which shares the counters'
// guard: the owner's browser, known by the device cookie its first login
// gave it, gets in on each of its 8 tries (2 runs of 4), the slots held
// at once never more than the cap.
func TestOwnerLoginGetsInDuringRotatingFloodCGI(t *testing.T) {
	if testing.Short() {
		t.Skip("2 floods of 8 s each")
	}
	ownerFlood(t, counterBinary(t), ownerDoor, 2, deviceOnly)
}

// ownerFlood runs TestOwnerGetsInDuringRotatingFloodCGI's flood runs
// times at door d, with the owner's browser sending cookies.
func ownerFlood(t *testing.T, bin string, d loginDoor, runs, cookies int) {
	const (
		flooders  = 8
		ownerTry  = 4
		tryEvery  = 2 * time.Second
		password  = "the owner's good password"
		ownerAddr = "192.0.2.50"
		slotCap   = 1 + 1
	)
	body := "password=" + strings.ReplaceAll(password, " ", "+")
	var next atomic.Int64 // the flood's next address
	owner := map[int]int{}
	var (
		slowest            time.Duration
		seen, checks, peak int
	)
	for run := range runs {
		dir := t.TempDir()
		db, _ := grownDB(t, dir)
		if out, code := adminStdin(t, db, password+"\n", d.passwd...); code != 0 {
			t.Fatalf("passwd: %s", out)
		}
		session, device := loginAt(t, bin, db, d, ownerAddr, body)
		sent := device
		switch cookies {
		case sessionBeside:
			sent = session + "; " + device
		case garbageSession:
			sent = d.session + "=garbage.1.x; " + device
		}
		w := &slotWatch{run: filepath.Join(dir, "run"), files: map[string]string{}, holders: map[int][]time.Time{}}
		stopWatch, watched := make(chan struct{}), make(chan struct{})
		go w.watch(t, stopWatch, watched)

		var (
			mu        sync.Mutex
			strangers = map[int]int{}
			checked   []cgiLogin // the logins that ran bcrypt
			lines     []string
			sessioned []cgiLogin // the owner's tries with a session: no check
		)
		note := func(l cgiLogin, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("run %d: %v", run+1, err)
				return
			}
			if l.status == http.StatusUnauthorized || l.status == http.StatusSeeOther {
				checked = append(checked, l)
			}
		}
		stop := make(chan struct{})
		var flood sync.WaitGroup
		for range flooders {
			flood.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					i := next.Add(1)
					addr := fmt.Sprintf("10.%d.%d.%d", i>>8&255, i&255, 1+i%250)
					if i%2 == 1 {
						addr = fmt.Sprintf("2001:db8:%x:%x::%x", i&0xffff, i>>16&0xffff, i)
					}
					l, err := postLogin(bin, loginEnvAt(t, db, d.path, addr, "", "password=wrong"), "password=wrong")
					note(l, err)
					mu.Lock()
					strangers[l.status]++
					mu.Unlock()
				}
			})
		}
		time.Sleep(tryEvery) // the flood under way
		var tries sync.WaitGroup
		for i := range ownerTry {
			if i > 0 {
				time.Sleep(tryEvery)
			}
			tries.Go(func() {
				l, err := postLogin(bin, loginEnvAt(t, db, d.path, ownerAddr, sent, body), body)
				if cookies != sessionBeside {
					note(l, err)
				} else if err != nil {
					t.Errorf("run %d: %v", run+1, err)
				}
				mu.Lock()
				defer mu.Unlock()
				if cookies == sessionBeside {
					sessioned = append(sessioned, l)
				}
				owner[l.status]++
				slowest = max(slowest, l.took)
				line := fmt.Sprintf("try %d: %d after %v", i+1, l.status, l.took.Round(time.Millisecond))
				if l.stderr != "" {
					line += " (" + strings.TrimSpace(l.stderr) + ")"
				}
				lines = append(lines, line)
			})
		}
		tries.Wait()
		close(stop)
		flood.Wait()
		close(stopWatch)
		<-watched

		// Sampled every millisecond or so, when the scheduler lets the
		// watcher run: a short hold can slip between two samples, so the
		// checks seen in a slot are counted, not required.
		var unseen []string
		for _, l := range checked {
			if !w.heldBy(l) {
				unseen = append(unseen, fmt.Sprintf("%d after %v", l.status, l.took.Round(time.Millisecond)))
			}
		}
		t.Logf("run %d: strangers %v; %d passwords checked, seen in a slot but %v; slots held at once at most %d of %d, both held in %d of %d samples; the owner: %s",
			run+1, strangers, len(checked), unseen, w.peak, len(w.files), w.both, w.samples, strings.Join(lines, "; "))
		if w.peak > slotCap || len(w.files) > slotCap {
			t.Errorf("run %d: %d slots held at once, of %d; want at most %d", run+1, w.peak, len(w.files), slotCap)
		}
		// A slot seen held by a try with a session is a check made for
		// nothing; one missed is no proof of none
		// (TestSessionLoginChecksNoPasswordCGI is).
		for _, l := range sessioned {
			if w.heldBy(l) {
				t.Errorf("run %d: the owner's try with a session (%d after %v) held a bcrypt slot", run+1, l.status, l.took.Round(time.Millisecond))
			}
		}
		seen += len(checked) - len(unseen)
		checks += len(checked)
		peak = max(peak, w.peak)
	}
	t.Logf("the owner's tries: %v, the slowest answered after %v; bcrypt slots held at once at most %d; %d of %d password checks seen holding one",
		owner, slowest.Round(time.Millisecond), peak, seen, checks)
	if owner[http.StatusSeeOther] != runs*ownerTry {
		t.Errorf("got the owner's tries %v, want %d × 303", owner, runs*ownerTry)
	}
}
