package guard

import (
	"errors"
	"fmt"
	"hitcounter/cgi/rundir"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// clock is a settable fake clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newThrottle(t *testing.T, c *clock) *Throttle {
	t.Helper()
	return &Throttle{Dir: rundir.New(t.TempDir(), "", nil), Name: "throttle", PerMinute: 3, PerHour: 5, MaxClients: 8, Now: c.now}
}

func client(t *testing.T, addr string) Client {
	t.Helper()
	c, err := ClientOf(addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func allowed(t *testing.T, th *Throttle, c Client) (bool, time.Duration) {
	t.Helper()
	ok, wait, err := th.Check(c)
	if err != nil {
		t.Fatal(err)
	}
	return ok, wait
}

func fail(t *testing.T, th *Throttle, c Client, n int) {
	t.Helper()
	for range n {
		if err := th.Failed(c); err != nil {
			t.Fatal(err)
		}
	}
}

func TestClientOf(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"192.0.2.7", "192.0.2.7"},
		{"::ffff:192.0.2.7", "192.0.2.7"},
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"},
	}
	for _, tc := range tests {
		if got := client(t, tc.addr).String(); got != tc.want {
			t.Errorf("ClientOf(%s) = %s, want %s", tc.addr, got, tc.want)
		}
	}
	if _, err := ClientOf("not an address"); err == nil {
		t.Errorf("ClientOf(garbage) succeeded")
	}
}

func TestThrottlePerMinuteAndHour(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c)
	a, b := client(t, "192.0.2.1"), client(t, "192.0.2.2")
	fail(t, th, a, 3)
	if ok, wait := allowed(t, th, a); ok || wait != time.Minute {
		t.Errorf("after 3 failures in a minute: allowed %v, wait %v; want refused for 1m", ok, wait)
	}
	if ok, _ := allowed(t, th, b); !ok {
		t.Errorf("another client is throttled too")
	}
	c.add(61 * time.Second)
	if ok, _ := allowed(t, th, a); !ok {
		t.Errorf("a minute later: still refused")
	}
	fail(t, th, a, 2) // 5 in the hour
	if ok, wait := allowed(t, th, a); ok || wait != 59*time.Minute-time.Second {
		t.Errorf("after 5 failures in an hour: allowed %v, wait %v; want refused for 58m59s", ok, wait)
	}
	c.add(time.Hour)
	if ok, _ := allowed(t, th, a); !ok {
		t.Errorf("an hour later: still refused")
	}
}

// TestThrottleAttemptChecksAndCounts: each allowed attempt counts as a
// failure at once; over the limit an attempt is refused and not counted,
// so the wait does not grow while a client keeps trying.
func TestThrottleAttemptChecksAndCounts(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c)
	a := client(t, "192.0.2.1")
	for i := range th.PerMinute {
		if ok, _, err := th.Attempt(a); !ok || err != nil {
			t.Fatalf("attempt %d: %v %v, want allowed", i+1, ok, err)
		}
	}
	for range 3 {
		c.add(10 * time.Second)
		ok, wait, err := th.Attempt(a)
		if ok || err != nil || wait <= 0 || wait > time.Minute {
			t.Fatalf("over the limit: %v, wait %v, %v", ok, wait, err)
		}
	}
	c.add(31 * time.Second) // the minute since the first attempt is over
	if ok, _ := allowed(t, th, a); !ok {
		t.Errorf("a minute after the first attempt: still refused")
	}
}

func TestThrottleIPv6GroupsBy64(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c)
	fail(t, th, client(t, "2001:db8::1"), 3)
	if ok, _ := allowed(t, th, client(t, "2001:db8::ffff:2")); ok {
		t.Errorf("another address of the same /64 is not throttled")
	}
	if ok, _ := allowed(t, th, client(t, "2001:db8:0:1::1")); !ok {
		t.Errorf("the next /64 is throttled")
	}
}

func TestThrottleClockGoesBack(t *testing.T) {
	c := &clock{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c)
	a := client(t, "192.0.2.1")
	fail(t, th, a, 3)
	c.add(-48 * time.Hour) // NTP, or a Pi booting at 1970-ish
	ok, wait := allowed(t, th, a)
	if ok {
		t.Errorf("a jump back freed a throttled client")
	}
	if wait > time.Minute {
		t.Errorf("a jump back made the wait %v, want at most a minute", wait)
	}
	c.add(61 * time.Second)
	if ok, _ := allowed(t, th, a); !ok {
		t.Errorf("a minute after the jump: still refused")
	}
	fail(t, th, a, 1)
	c.add(2 * time.Hour)
	if ok, _ := allowed(t, th, a); !ok {
		t.Errorf("two hours later: still refused")
	}
}

func TestThrottleIsBounded(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c)
	for i := range 50 {
		fail(t, th, client(t, fmt.Sprintf("198.51.100.%d", i)), 1)
		c.add(time.Second)
	}
	fi, err := os.Stat(filepath.Join(th.Dir.Path(), th.Name))
	if err != nil {
		t.Fatal(err)
	}
	if max := int64(len(magic) + th.MaxClients*recordSize); fi.Size() > max {
		t.Errorf("state file is %d bytes, want at most %d", fi.Size(), max)
	}
	// The most recent clients are the ones kept.
	fail(t, th, client(t, "198.51.100.49"), 2)
	if ok, _ := allowed(t, th, client(t, "198.51.100.49")); ok {
		t.Errorf("the newest client was evicted")
	}
	// Idle clients are pruned after an hour.
	c.add(time.Hour + time.Minute)
	th.Failed(client(t, "203.0.113.1"))
	if fi, _ := os.Stat(filepath.Join(th.Dir.Path(), th.Name)); fi.Size() != int64(len(magic)+recordSize) {
		t.Errorf("after an hour, state is %d bytes, want one record", fi.Size())
	}
}

func TestThrottleForgetsAfterGoodLogin(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c)
	a := client(t, "192.0.2.1")
	fail(t, th, a, 2)
	th.Forget(a)
	fail(t, th, a, 2)
	if ok, _ := allowed(t, th, a); !ok {
		t.Errorf("failures before a good login still count")
	}
}

func TestThrottleSurvivesDamage(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c)
	os.WriteFile(filepath.Join(th.Dir.Path(), th.Name), []byte("garbage, not a throttle file"), 0o600)
	a := client(t, "192.0.2.1")
	fail(t, th, a, 3)
	if ok, _ := allowed(t, th, a); ok {
		t.Errorf("a damaged file stopped the throttle")
	}
}

func TestSlots(t *testing.T) {
	s := Slots{Dir: rundir.New(t.TempDir(), "", nil), N: 2}
	r1, err := s.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Acquire(); !errors.Is(err, ErrBusy) {
		t.Errorf("third Acquire of 2 slots: %v, want ErrBusy", err)
	}
	r1()
	r3, err := s.Acquire()
	if err != nil {
		t.Errorf("Acquire after a release: %v", err)
	}
	r2()
	r3()
	if _, err := (Slots{Dir: rundir.New(t.TempDir(), "", nil), N: 0}).Acquire(); err == nil {
		t.Errorf("0 slots accepted")
	}
}

// TestSlotOfKilledHolderIsFreed holds the only slot in another process,
// kills it with SIGKILL and takes the slot.
func TestSlotOfKilledHolderIsFreed(t *testing.T) {
	if os.Getenv("GUARD_HOLD_SLOT") != "" {
		if _, err := (Slots{Dir: rundir.New(os.Getenv("GUARD_HOLD_SLOT"), "", nil), N: 1}).Acquire(); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSlotOfKilledHolderIsFreed$")
	cmd.Env = append(os.Environ(), "GUARD_HOLD_SLOT="+dir)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "held\n" {
		t.Fatalf("holder did not take the slot: %q %v", buf, err)
	}
	if _, err := (Slots{Dir: rundir.New(dir, "", nil), N: 1}).Acquire(); !errors.Is(err, ErrBusy) {
		t.Fatalf("slot held elsewhere: Acquire = %v, want ErrBusy", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	release, err := (Slots{Dir: rundir.New(dir, "", nil), N: 1}).Acquire()
	if err != nil {
		t.Fatalf("after SIGKILL of the holder: %v", err)
	}
	release()
}

// TestThrottleKeepsBlockedClients: a flood of new clients, each failing
// once, makes the table forget idle clients that are not blocked, never
// the blocked one; when every client in it is blocked, a new one waits.
func TestThrottleKeepsBlockedClients(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c) // 3 a minute, 8 clients
	blocked := client(t, "192.0.2.1")
	fail(t, th, blocked, 3)
	for i := range 50 { // far more new clients than the table holds
		fail(t, th, client(t, fmt.Sprintf("2001:db8:%x::1", i)), 1)
		c.add(100 * time.Millisecond)
	}
	if ok, _ := allowed(t, th, blocked); ok {
		t.Fatalf("a flood of 50 new clients freed a blocked client")
	}
	// Fill the table with blocked clients: a new one cannot make room.
	for i := range th.MaxClients - 1 {
		fail(t, th, client(t, fmt.Sprintf("198.51.100.%d", i)), 3)
	}
	newcomer := client(t, "203.0.113.1")
	ok, wait, err := th.Attempt(newcomer)
	if err != nil || ok || wait <= 0 || wait > time.Minute {
		t.Errorf("a new client with every other blocked: got ok %v, wait %v, err %v; want refused for at most a minute", ok, wait, err)
	}
	if ok, _ := allowed(t, th, blocked); ok {
		t.Errorf("a full table freed a blocked client")
	}
	if err := th.Failed(newcomer); !errors.Is(err, ErrFull) {
		t.Errorf("Failed in a full table: got %v, want ErrFull", err)
	}
	c.add(time.Minute)
	if ok, _, err := th.Attempt(newcomer); !ok || err != nil {
		t.Errorf("a minute later: got ok %v, err %v; want the new client let in", ok, err)
	}
}

func TestClientNetwork(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"192.0.2.7", "192.0.2.0/24"},
		{"::ffff:192.0.2.200", "192.0.2.0/24"},
		{"2001:db8:1:2:aaaa::1", "2001:db8:1::/48"},
		{"2001:db8:1:ffff::9", "2001:db8:1::/48"},
	}
	for _, tc := range tests {
		c := client(t, tc.addr)
		if got := c.NetworkPrefix().String(); got != tc.want {
			t.Errorf("network of %s: got %s, want %s", tc.addr, got, tc.want)
		}
		if got := c.Network().NetworkPrefix().String(); got != tc.want {
			t.Errorf("network of the network of %s: got %s, want %s", tc.addr, got, tc.want)
		}
	}
	if client(t, "192.0.2.7").Network() != client(t, "192.0.2.9").Network() {
		t.Errorf("two addresses of one /24 have different networks")
	}
}

func TestSlotsOfAnotherName(t *testing.T) {
	dir := t.TempDir()
	release, err := Slots{Dir: rundir.New(dir, "", nil), N: 1}.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	other, err := Slots{Dir: rundir.New(dir, "", nil), N: 1, Name: "bcrypt-device"}.Acquire()
	if err != nil {
		t.Fatalf("a slot of another name with the shared one held: got %v, want it free", err)
	}
	other()
}

func TestThrottleTakeBack(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	th := newThrottle(t, c) // 3 a minute
	n := client(t, "192.0.2.1").Network()
	fail(t, th, n, 3)
	if err := th.TakeBack(n); err != nil {
		t.Fatal(err)
	}
	if ok, _ := allowed(t, th, n); !ok {
		t.Errorf("3 tries, one taken back: got refused, want let in")
	}
	fail(t, th, n, 1)
	if ok, _ := allowed(t, th, n); ok {
		t.Errorf("3 tries again: got let in, want refused")
	}
}

// TestFirstFreeWaitsBounded: FirstFree takes a free slot of any of its
// Slots at once, waits for one that is freed within its wait, and gives up
// with ErrBusy when none is, after the wait and not much later.
func TestFirstFreeWaitsBounded(t *testing.T) {
	dir := rundir.New(t.TempDir(), "", nil)
	own := Slots{Dir: dir, N: 1, Name: "bcrypt-device"}
	shared := Slots{Dir: dir, N: 1}
	hold := func(s Slots) func() {
		t.Helper()
		release, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		return release
	}
	// The first is held: the second is taken at once.
	releaseOwn := hold(own)
	start := time.Now()
	r, err := FirstFree(time.Second, own, shared)
	if err != nil || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("one of two held: got %v after %v, want a slot at once", err, time.Since(start))
	}
	// Both held; the first is freed after 300 ms.
	go func() { time.Sleep(300 * time.Millisecond); releaseOwn() }()
	start = time.Now()
	r2, err := FirstFree(2*time.Second, own, shared)
	took := time.Since(start)
	if err != nil || took < 250*time.Millisecond {
		t.Fatalf("both held, one freed after 300ms: got %v after %v, want the freed slot after about 300ms", err, took)
	}
	// Both held for good: refused after the wait.
	start = time.Now()
	_, err = FirstFree(400*time.Millisecond, own, shared)
	took = time.Since(start)
	if !errors.Is(err, ErrBusy) || took < 400*time.Millisecond || took > 2*time.Second {
		t.Errorf("both held: got %v after %v, want ErrBusy after 400ms", err, took)
	}
	r()
	r2()
	if _, err := FirstFree(0, Slots{Dir: dir, N: 0}); err == nil || errors.Is(err, ErrBusy) {
		t.Errorf("0 slots: got %v, want the configuration error", err)
	}
}
