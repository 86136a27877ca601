package web

import (
	"testing"
	"time"

	"hitcounter/cgi/guard"
)

// pacerForTest returns a pacer that records what it holds back instead of
// sleeping, and the function that tells how long the last refusal was
// held back and forgets it.
func pacerForTest() (*refusalPacer, func() time.Duration) {
	p := newRefusalPacer()
	var held time.Duration
	p.sleep = func(d time.Duration) { held += d }
	return p, func() time.Duration { d := held; held = 0; return d }
}

func TestRefusalPacer(t *testing.T) {
	p, heldBack := pacerForTest()
	p.shared.Store(true)
	a, _ := guard.ClientOf("192.0.2.1")
	b, _ := guard.ClientOf("2001:db8::1")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		client guard.Client
		at     time.Duration
		held   bool
	}{
		{"first refusal", a, 0, false},
		{"another client's first", b, time.Second, false},
		{"refused again soon", a, 2 * time.Second, true},
		{"after the window", a, 2*time.Second + refusalWindow, false},
		{"clock went back", a, 0, false},
	} {
		p.refused(tc.client, now.Add(tc.at))
		if held := heldBack() > 0; held != tc.held {
			t.Errorf("%s: held back %v, want %v", tc.name, held, tc.held)
		}
	}
	var none *refusalPacer // CGI: never waits
	none.refused(a, now)
}

// TestRefusalPacerBoundsHeldAnswers: past maxHeldBack answers held back
// at once, the rest go out at once, so connections stay free for hits.
func TestRefusalPacerBoundsHeldAnswers(t *testing.T) {
	p, heldBack := pacerForTest()
	p.shared.Store(true)
	c, _ := guard.ClientOf("192.0.2.1")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.refused(c, now)
	for range maxHeldBack {
		p.held <- struct{}{} // as if that many were being held
	}
	p.refused(c, now.Add(time.Millisecond))
	if d := heldBack(); d != 0 {
		t.Errorf("held back %v with %d already held, want at once", d, maxHeldBack)
	}
}

// TestRefusalPacerWaitsForConcurrency: a process that answers one login
// at a time (Apache's mod_fcgid) never holds an answer back, since that
// would hold the whole process; one that has answered two at once does.
func TestRefusalPacerWaitsForConcurrency(t *testing.T) {
	p, heldBack := pacerForTest()
	c, _ := guard.ClientOf("192.0.2.1")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		leave, _ := p.enter(false)
		p.refused(c, now.Add(time.Duration(i)*time.Second))
		leave()
		if d := heldBack(); d != 0 {
			t.Fatalf("one login at a time: held back %v", d)
		}
	}
	leave1, _ := p.enter(false)
	leave2, _ := p.enter(false)
	leave1()
	p.refused(c, now.Add(4*time.Second))
	leave2()
	if d := heldBack(); d != refusalDelay {
		t.Errorf("after two logins at once: held back %v, want %v", d, refusalDelay)
	}
}

// TestRefusalPacerBoundsLogins: past maxLogins in hand, a login may not
// go on; once one leaves, the next may.
func TestRefusalPacerBoundsLogins(t *testing.T) {
	p := newRefusalPacer()
	var leaves []func()
	for i := range maxLogins {
		leave, ok := p.enter(false)
		if !ok {
			t.Fatalf("login %d refused under the bound", i+1)
		}
		leaves = append(leaves, leave)
	}
	leave, ok := p.enter(false)
	leave()
	if ok {
		t.Errorf("login %d let in, over the bound", maxLogins+1)
	}
	leaves[0]()
	if leave, ok := p.enter(false); !ok {
		t.Errorf("a login after one left was refused")
	} else {
		leave()
	}
}

// TestRefusalPacerKeepsRoomForKnownDevices: with every stranger's login in
// hand taken, a browser known by its device token is still let in, up to
// its own bound.
func TestRefusalPacerKeepsRoomForKnownDevices(t *testing.T) {
	p := newRefusalPacer()
	for range maxLogins + 10 {
		p.enter(false)
	}
	if _, ok := p.enter(false); ok {
		t.Fatalf("a stranger let in past %d in hand", maxLogins)
	}
	for i := range maxKnownLogins {
		if _, ok := p.enter(true); !ok {
			t.Fatalf("known login %d refused while strangers fill their bound", i+1)
		}
	}
	if _, ok := p.enter(true); ok {
		t.Errorf("known login %d let in, over its bound", maxKnownLogins+1)
	}
}
