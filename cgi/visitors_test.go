package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/counter"
	"hitcounter/store"
)

// browsers are real User-Agents the simulated visitors use.
var browsers = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
}

// visitor is a simulated visitor: an address and a browser.
type visitor struct{ addr, ua string }

func visitorN(i int) visitor {
	addr := fmt.Sprintf("198.51.%d.%d", i/200, i%200+1)
	if i%3 == 0 {
		addr = fmt.Sprintf("2001:db8:%x::%x", i, i+1)
	}
	return visitor{addr, browsers[i%len(browsers)]}
}

// cgiHitEnv is the CGI environment of v's hit on /demo.png.
func cgiHitEnv(db, runDir string, v visitor) []string {
	return []string{
		"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=GET", "SERVER_PROTOCOL=HTTP/1.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=/demo.png", "REQUEST_URI=/cgi-bin/counter.cgi/demo.png",
		"HTTP_HOST=127.0.0.1", "REMOTE_ADDR=" + v.addr, "HTTP_USER_AGENT=" + v.ua,
		"HTTP_REFERER=https://example.org/", "HTTP_COOKIE=theme=dark",
		"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + runDir, "COUNTER_WAIT=10s",
	}
}

// fcgiHit sends v's hit on /demo.png to the FastCGI process at sock.
func fcgiHit(sock string, v visitor) error {
	c, err := fcgitest.Dial(sock)
	if err != nil {
		return err
	}
	defer c.Conn.Close()
	env := fcgitest.Env("GET", "/demo.png", "", "REMOTE_ADDR", v.addr, "HTTP_USER_AGENT", v.ua,
		"HTTP_REFERER", "https://example.org/", "HTTP_COOKIE", "theme=dark")
	out, _, err := c.Request(1, false, env, nil, 0)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(out, []byte("Status: 200")) {
		return fmt.Errorf("answer %.80q", out)
	}
	return nil
}

// TestVisitorsAcrossCGIAndFastCGI sends 2,000 hits from 200 visitors, 10
// each in a random order, half as CGI processes and half to a FastCGI
// process, at once, on one file and one runtime directory: they agree on
// who was seen, so each visitor's first hit is a view by a new visitor
// and the other 9 are reloads, whichever process served which.
func TestVisitorsAcrossCGIAndFastCGI(t *testing.T) {
	const visitors, each, workers = 200, 10, 8
	dir := t.TempDir()
	db, runDir := filepath.Join(dir, "counter.db"), filepath.Join(dir, "run")
	if out, err := adminRun(t, db, "create", "demo"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	sock, cmd, stderr := startFastCGIBinary(t, db, "COUNTER_RUN_DIR="+runDir)

	var hits []int
	for v := range visitors {
		for range each {
			hits = append(hits, v)
		}
	}
	r := rand.New(rand.NewPCG(7, 7))
	r.Shuffle(len(hits), func(i, j int) { hits[i], hits[j] = hits[j], hits[i] })
	var next, viaCGI atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(hits) {
					return
				}
				v := visitorN(hits[i])
				if i%2 == 0 {
					viaCGI.Add(1)
					c := exec.Command(counterBinary(t))
					c.Env = cgiHitEnv(db, runDir, v)
					out, err := c.Output()
					if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
						t.Errorf("CGI hit %d: %v %.80q", i, err, out)
						return
					}
				} else if err := fcgiHit(sock, v); err != nil {
					t.Errorf("FastCGI hit %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil || afterStartLine(stderr.String()) != "" {
		t.Errorf("FastCGI process: %v; stderr %s", err, stderr)
	}
	got := tallyOf(t, db, "demo")
	want := counter.Tally{Views: visitors, Visitors: visitors}
	want.NotCounted[counter.Reload] = visitors * (each - 1)
	if got != want {
		t.Errorf("after %d hits (%d as CGI) from %d visitors: %+v\nwant %+v", len(hits), viaCGI.Load(), visitors, got, want)
	}
	t.Logf("%d hits from %d visitors, %d as CGI processes and %d over FastCGI: %d views, %d visitors, %d reloads",
		len(hits), visitors, viaCGI.Load(), int64(len(hits))-viaCGI.Load(), got.Views, got.Visitors, got.NotCounted[counter.Reload])
}

// tallyOf adds up every day of counter name.
func tallyOf(t *testing.T, db, name string) counter.Tally {
	t.Helper()
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h, err := s.History(name, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var sum counter.Tally
	for _, d := range h.Days {
		sum = sum.Plus(d.Tally)
	}
	return sum
}

// TestNoVisitorInTheFile makes hits from known addresses and browsers, as
// CGI and over FastCGI, with every rule of the counter on, and then looks
// for them in the database's bytes and in a backup's: the addresses as
// text and in their 4- and 16-byte forms, the User-Agents, the day's salt
// and every visitor key the runtime directory holds. None may be there.
func TestNoVisitorInTheFile(t *testing.T) {
	dir := t.TempDir()
	db, runDir := filepath.Join(dir, "counter.db"), filepath.Join(dir, "run")
	if out, err := adminRun(t, db, "create", "demo", "show=visitors", "ignore=203.0.113.0/24", "referrers=example.org"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	sock, cmd, stderr := startFastCGIBinary(t, db, "COUNTER_RUN_DIR="+runDir)
	var vs []visitor
	for i := range 12 {
		v := visitorN(i)
		v.ua += fmt.Sprintf(" PrivacyProbe/%d", 1000+i) // a User-Agent no other file holds
		vs = append(vs, v)
	}
	vs = append(vs, visitor{"203.0.113.45", browsers[0] + " PrivacyProbe/ignored"})
	for i, v := range vs {
		if i%2 == 0 {
			c := exec.Command(counterBinary(t))
			c.Env = cgiHitEnv(db, runDir, v)
			if out, err := c.Output(); err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
				t.Fatalf("CGI hit: %v %.80q", err, out)
			}
		} else if err := fcgiHit(sock, v); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil || afterStartLine(stderr.String()) != "" {
		t.Errorf("FastCGI process: %v; stderr %s", err, stderr)
	}
	if got := tallyOf(t, db, "demo"); got.Visitors != 12 || got.NotCounted[counter.Ignored] != 1 {
		t.Fatalf("tally %+v; want 12 visitors and 1 ignored hit", got)
	}
	backup := filepath.Join(dir, "backup.db")
	if out, err := adminRun(t, db, "backup", backup); err != nil {
		t.Fatalf("backup: %v %s", err, out)
	}

	needles := map[string][]byte{}
	for _, v := range vs {
		a := netip.MustParseAddr(v.addr)
		needles["address "+v.addr] = []byte(v.addr)
		b16 := a.As16()
		needles["address "+v.addr+" in 16 bytes"] = b16[:]
		if a.Is4() {
			b4 := a.As4()
			needles["address "+v.addr+" in 4 bytes"] = b4[:]
		}
		needles["User-Agent "+v.ua] = []byte(v.ua)
	}
	needles["the probe's mark"] = []byte("PrivacyProbe")
	secrets := runDirSecrets(t, runDir)
	if len(secrets) == 0 {
		t.Fatalf("no salt or visitor key found in %s", runDir)
	}
	for name, b := range secrets {
		needles[name] = b
	}
	for _, file := range []string{db, backup} {
		content, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for name, needle := range needles {
			if bytes.Contains(content, needle) {
				t.Errorf("%s holds %s", filepath.Base(file), name)
			}
		}
	}
	t.Logf("searched the database and its backup for %d addresses, User-Agents, salts and visitor keys: none found", len(needles))
}

// runDirSecrets reads the visitor tables of runDir (cgi/seen's layout, in
// its doc.go: a 64-byte header whose last 32 bytes are the day's salt,
// and from byte 8192 on 16-byte slots of an 11-byte visitor key, a byte
// of what asked for the view and a 4-byte time, zero when free) and
// returns each salt and each visitor key in use.
func runDirSecrets(t *testing.T, runDir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(runDir, "seen-*"))
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 8192 || string(b[:16]) != "counter-seen\x00\x00\x00\x03" {
			t.Fatalf("%s: not a visitor table", f)
		}
		secrets["the salt of "+filepath.Base(f)] = b[32:64]
		for off := 8192; off+16 <= len(b); off += 16 {
			if slot := b[off : off+16]; !bytes.Equal(slot[12:], []byte{0, 0, 0, 0}) {
				secrets[fmt.Sprintf("visitor key at %d of %s", off, filepath.Base(f))] = slot[:11]
			}
		}
	}
	return secrets
}

// afterStartLine is a FastCGI process's stderr without its one line at
// start, which names its build, and fails unless that line is there.
func afterStartLine(stderr string) string {
	first, rest, _ := strings.Cut(stderr, "\n")
	if !strings.HasPrefix(first, "counter: fastcgi: counter.cgi ") || !strings.HasSuffix(first, ", serving") {
		return stderr
	}
	return rest
}
