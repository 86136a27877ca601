package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/testenv"
	"hitcounter/counter"
)

// floodHits is how many made-up visitors the flood sends: more than the
// 65,536 that the whole visitor table held, for every counter together,
// before it was cut into shares, and so 17 times one counter's share.
const floodHits = 70_000

// hitOn sends v's hit on counter name over c, a FastCGI connection kept
// open, and fails unless it is answered with 200.
func hitOn(c *fcgitest.Client, name string, v visitor) error {
	env := fcgitest.Env("GET", "/"+name+".png", "", "REMOTE_ADDR", v.addr, "HTTP_USER_AGENT", v.ua,
		"HTTP_REFERER", "https://example.org/")
	c.Conn.SetDeadline(time.Now().Add(20 * time.Second))
	out, _, err := c.Request(1, true, env, nil, 0)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(out, []byte("Status: 200")) {
		return fmt.Errorf("answer %.80q", out)
	}
	return nil
}

// cgiHitOn runs v's hit on counter name as a CGI process, which reads
// the visitor table afresh, and fails unless it is answered with 200 and
// says nothing on stderr.
func cgiHitOn(t *testing.T, db, runDir, name string, v visitor) {
	t.Helper()
	c := exec.Command(counterBinary(t))
	env := cgiHitEnv(db, runDir, v)
	for i, kv := range env {
		switch {
		case strings.HasPrefix(kv, "PATH_INFO="):
			env[i] = "PATH_INFO=/" + name + ".png"
		case strings.HasPrefix(kv, "REQUEST_URI="):
			env[i] = "REQUEST_URI=/cgi-bin/counter.cgi/" + name + ".png"
		}
	}
	c.Env = testenv.OwnRunDir(t, env)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) || stderr.Len() > 0 {
		t.Fatalf("CGI hit on %s: %v %.80q; stderr %s", name, err, out, stderr.String())
	}
}

// TestFloodBlindsNoOtherCounter floods one counter through the FastCGI
// service with 70,000 made-up visitors (one address, a User-Agent each,
// 8 connections at once), then sends 10 real visitors to another
// counter, each seen once and reloading twice, over FastCGI and as CGI
// processes: they are 10 views by 10 visitors and 20 reloads, as on a
// quiet day. The flood filled its counter's share, which says so once;
// there too, 5 real visitors who come after it, and the flood's last
// visitors, reload as reloads: a full share forgets the visitors seen
// longest ago instead.
func TestFloodBlindsNoOtherCounter(t *testing.T) {
	waitPastMidnight(t, 3*time.Minute)
	day := time.Now().UTC().Format(time.DateOnly)
	dir := t.TempDir()
	db, runDir := filepath.Join(dir, "counter.db"), filepath.Join(dir, "run")
	for _, name := range []string{"flood", "demo"} {
		if out, err := adminRun(t, db, "create", name); err != nil {
			t.Fatalf("create %s: %v %s", name, err, out)
		}
	}
	sock, cmd, stderr := startFastCGIBinary(t, db, "COUNTER_RUN_DIR="+runDir)

	flooder := func(i int) visitor {
		return visitor{"203.0.113.9", fmt.Sprintf("%s flood/%d", browsers[0], i)}
	}
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c := fcgitest.MustDial(t, sock)
			for {
				i := int(next.Add(1)) - 1
				if i >= floodHits {
					return
				}
				if err := hitOn(c, "flood", flooder(i)); err != nil {
					t.Errorf("flood hit %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	took := time.Since(start)

	// The real visitors: a view over FastCGI, a reload as a CGI process
	// and another over FastCGI, a few seconds apart at most; 10 on the
	// other counter, and 5 on the flooded one, whose share is full.
	c := fcgitest.MustDial(t, sock)
	for i := range 15 {
		name, v := "demo", visitorN(i)
		if i >= 10 {
			name = "flood"
		}
		if err := hitOn(c, name, v); err != nil {
			t.Fatalf("visitor %d: %v", i, err)
		}
		cgiHitOn(t, db, runDir, name, v)
		if err := hitOn(c, name, v); err != nil {
			t.Fatalf("visitor %d, reloading: %v", i, err)
		}
	}
	// The flood's last visitors, in the file for a CGI process to find.
	for i := floodHits - 20; i < floodHits; i++ {
		cgiHitOn(t, db, runDir, "flood", flooder(i))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("FastCGI process: %v; stderr %s", err, stderr)
	}
	if now := time.Now().UTC().Format(time.DateOnly); now != day {
		t.Fatalf("the test ran from %s into %s: the visitor table is a day's; run it again", day, now)
	}

	want := counter.Tally{Views: 10, Visitors: 10}
	want.NotCounted[counter.Reload] = 20
	got := tallyOf(t, db, "demo")
	if got != want {
		t.Errorf("real visitors after the flood on another counter: %+v\nwant %+v", got, want)
	}
	// The flood's visitors each new; the real ones, and the flood's
	// last, reloading as reloads.
	wantFlood := counter.Tally{Views: floodHits + 5, Visitors: floodHits + 5}
	wantFlood.NotCounted[counter.Reload] = 10 + 20
	if got := tallyOf(t, db, "flood"); got != wantFlood {
		t.Errorf("the flooded counter: %+v\nwant %+v", got, wantFlood)
	}
	// One line for the owner, from the process that first forgot a
	// visitor, and no other.
	logged := afterStartLine(stderr.String())
	wantLine := `hit "flood": its share of today's visitor table is full`
	if strings.Count(logged, "\n") != 1 || !strings.Contains(logged, wantLine) {
		t.Errorf("FastCGI stderr after its start line:\n%s\nwant one line with %q", logged, wantLine)
	}
	// What the table takes: the pages written (tmpfs keeps no others),
	// the flood's share and a few of the other's, not the whole file.
	var st syscall.Stat_t
	table := filepath.Join(runDir, "seen-"+day)
	if err := syscall.Stat(table, &st); err != nil {
		t.Fatal(err)
	}
	if used := st.Blocks * 512; used > 1<<20 {
		t.Errorf("%s: %d bytes written of %d, want 1 MiB at most (8 KiB and a share of 64 KiB a counter)", table, used, st.Size)
	}
	t.Logf("%d flood hits on one counter over FastCGI in %v (%.0f/s); then 10 real visitors on another: %d views, %d visitors, %d reloads; the table file: %d KiB written of %d KiB",
		floodHits, took.Round(time.Millisecond), floodHits/took.Seconds(), got.Views, got.Visitors, got.NotCounted[counter.Reload], st.Blocks/2, st.Size>>10)
}

// waitPastMidnight waits, when midnight UTC is less than d away, until it
// has passed: the visitor table is a day's, and a test of it must run
// within one.
func waitPastMidnight(t *testing.T, d time.Duration) {
	t.Helper()
	now := time.Now().UTC()
	midnight := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	if left := midnight.Sub(now); left < d {
		t.Logf("waiting %v for midnight UTC to pass", left.Round(time.Second))
		time.Sleep(left + time.Second)
	}
}
