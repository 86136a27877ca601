package web

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"time"

	"hitcounter/cgi/guard"
	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/rundir"
)

// Limits of login tries, and how many keys each throttle remembers. Every
// try counts from the moment it is let in, right or wrong, and a good login
// forgets its client's (or device's) tries: so these are the limits on
// wrong passwords, and a try refused as busy counts too. The known
// devices' limit of a door is the one that counts good logins too.
const (
	// A client: an IPv4 address or an IPv6 /64.
	failuresPerMinute = 5
	failuresPerHour   = 20
	// A network: an IPv4 /24 or an IPv6 /48, for unknown clients only.
	// Above what one client may try (3 clients at least must hit it), so
	// that one address can never get its neighbours throttled or banned.
	networkPerMinute = 15
	networkPerHour   = 50
	// All the known devices of one counter together: an owner's two or
	// three browsers never reach it, and whoever has devices of a counter
	// whose password he knows, however many, cannot keep the known
	// devices' slot busy, nor a core at normal priority (login.go), with
	// wrong passwords or right ones (forget).
	knownPerMinute   = 10
	knownPerHour     = 40
	throttledClients = 4096
)

// The known devices' bcrypt slot: one, on top of the shared ones
// (COUNTER_BCRYPT_SLOTS), so that at most that many and one checks run at
// once. A known device's login waits up to deviceSlotWait for it, or for a
// shared one: longer than another known device's check can take, at
// normal priority (login.go) but sharing one core with a flood's
// processes, as on a Pi Zero (deploy/bench/RESULTS.md has the times). Few
// ever wait: the known devices of a counter get knownPerMinute tries
// together, and a long-lived process has at most maxKnownLogins in hand.
const (
	deviceSlots    = "bcrypt-device"
	deviceSlotWait = 10 * time.Second
)

// loginTry is who is trying to log in: the client, by its address, and
// the device, when the browser carries a valid device token, or a browser
// logged in already.
type loginTry struct {
	client   guard.Client
	device   guard.Client
	known    bool // device is a known device
	loggedIn bool // the browser holds a valid session
	lock     lock // read to check the cookies
}

// admitTry decides whether this try may go on to bcrypt: it counts it
// against the throttles and takes a bcrypt slot. A known device counts
// against its own limits and its counter's devices', and waits a while for
// the known devices' slot or a shared one; an unknown client counts
// against its address's limits and its network's, and takes a shared slot
// if one is free. If the try may go on it returns the function that frees
// the slot; if not, it has answered r.
func (a *App) admitTry(w http.ResponseWriter, r *http.Request, d door, who *loginTry) (func(), bool) {
	client, err := guard.ClientOf(a.loginAddr(r))
	if err != nil {
		a.log.Printf("login %q: %v", d.label(), err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return nil, false
	}
	who.client = client
	if err := a.proc.Run.Check(true); err != nil {
		a.loginUnavailable(w, r, d, err)
		return nil, false
	}
	if who.known {
		ok, wait, err := a.deviceThrottle().Attempt(who.device)
		if !a.throttled(w, r, d, ok, wait, err, "client="+a.loginAddr(r)+" device=known") {
			return nil, false
		}
		ok, wait, err = a.knownThrottle().Attempt(countersDevices(d.name))
		if !a.throttled(w, r, d, ok, wait, err, "client="+a.clientAddr(r)+" devices=all") {
			return nil, false
		}
		// The known devices' own slot, which no unknown client takes, or
		// a shared one, whichever is free first, waiting for one as long
		// as another known device's check may hold it: the owner's
		// previous try, or his phone. A flood of strangers holds the shared
		// slots, never this one.
		release, err := guard.FirstFree(deviceSlotWait,
			guard.Slots{Dir: a.proc.Run, N: 1, Name: deviceSlots},
			guard.Slots{Dir: a.proc.Run, N: a.cfg.BcryptSlots})
		return a.slotTaken(w, r, d, release, err)
	}
	// A network over its limit refuses before its client is counted: a
	// flood from one network cannot fill the client table with keys it
	// blocks, which would turn away every new client. The line names the
	// client's /24, or its /56 for IPv6, never a wider prefix that one
	// household could reach alone: fail2ban bans there, where the flood
	// rotates.
	networkLine := "network=" + client.BanPrefix().String()
	ok, wait, err := a.networkThrottle().Check(client.Network())
	if !a.throttled(w, r, d, ok, wait, err, networkLine) {
		return nil, false
	}
	ok, wait, err = a.clientThrottle().Attempt(client)
	if !a.throttled(w, r, d, ok, wait, err, "client="+a.loginAddr(r)) {
		return nil, false
	}
	// Counted only once the client's own limit let the try in, so one
	// address alone can never block its network.
	ok, wait, err = a.networkThrottle().Attempt(client.Network())
	if !a.throttled(w, r, d, ok, wait, err, networkLine) {
		return nil, false
	}
	return a.takeSlot(w, r, d)
}

// forget drops the tries of who after a good login at door d: its
// device's if it is known, its client's if not. Of its network's tries
// only this one is taken back: a good login from one address does not
// vouch for the others. Its door's devices' try is kept, right or wrong:
// whoever knows a counter's password (a friend's, on the owner's Pi)
// could otherwise check it back to back from known devices, at normal
// priority and in the known devices' slot, which the owner's browser
// needs during a flood; knownPerMinute good logins a minute is more than
// the browsers of one door ever make, a session lasting a day.
func (a *App) forget(d door, who loginTry) error {
	if who.known {
		return a.deviceThrottle().Forget(who.device)
	}
	if err := a.clientThrottle().Forget(who.client); err != nil {
		return err
	}
	return a.networkThrottle().TakeBack(who.client.Network())
}

// throttled answers r when a throttle said no (or failed), and reports
// whether the try may go on. The log line names who was throttled.
func (a *App) throttled(w http.ResponseWriter, r *http.Request, d door, ok bool, wait time.Duration, err error, who string) bool {
	if err != nil {
		a.loginUnavailable(w, r, d, err)
		return false
	}
	if !ok {
		a.log.Printf("login throttled: counter=%q %s", d.label(), who)
		w.Header().Set("Retry-After", itoa(int(math.Ceil(wait.Seconds()))))
		writeHTML(w, r, http.StatusTooManyRequests, d.page(tooManyMessage(wait.Seconds())))
	}
	return ok
}

// takeSlot takes one of the shared bcrypt slots, without waiting. If it
// gets one it returns the function that frees it; if not, it has answered r.
func (a *App) takeSlot(w http.ResponseWriter, r *http.Request, d door) (func(), bool) {
	release, err := guard.Slots{Dir: a.proc.Run, N: a.cfg.BcryptSlots}.Acquire()
	return a.slotTaken(w, r, d, release, err)
}

// slotTaken passes on the slot that release frees, or answers r if
// taking one failed with err.
func (a *App) slotTaken(w http.ResponseWriter, r *http.Request, d door, release func(), err error) (func(), bool) {
	if errors.Is(err, guard.ErrBusy) {
		a.loginBusy(w, r, d)
		return nil, false
	}
	if err != nil {
		a.loginUnavailable(w, r, d, err)
		return nil, false
	}
	return release, true
}

// loginBusy answers a login that finds the server busy with others.
func (a *App) loginBusy(w http.ResponseWriter, r *http.Request, d door) {
	a.log.Printf("login busy: counter=%q client=%s", d.label(), a.loginAddr(r))
	w.Header().Set("Retry-After", "1")
	writeHTML(w, r, http.StatusTooManyRequests, d.page("The server is busy checking another password. Try again in a moment."))
}

// loginUnavailable answers a login that the throttles or the bcrypt
// slots cannot guard: it is never let through to bcrypt unguarded. The
// owner, at the login form, learns where to look; the log line has the
// file, its owner and the command that fixes it, which a stranger must
// not read.
func (a *App) loginUnavailable(w http.ResponseWriter, r *http.Request, d door, err error) {
	a.log.Printf("login %q refused: %v", d.label(), err)
	msg := "Logins are unavailable just now: the server's error log says why."
	if errors.Is(err, rundir.ErrUnusable) {
		msg = "Logins are off: the counter cannot use its runtime directory. " +
			"The server's error log names the file and the command that fixes it; " +
			"counter doctor shows it too."
	}
	writeHTML(w, r, http.StatusServiceUnavailable, d.page(msg))
}

func tooManyMessage(seconds float64) string {
	if seconds < 90 {
		return "Too many login attempts. Try again in a minute."
	}
	return fmt.Sprintf("Too many login attempts. Try again in %d minutes.", int(seconds/60+0.5))
}

// clientThrottle limits the tries of each client address.
func (a *App) clientThrottle() *guard.Throttle {
	return a.throttleIn("throttle", failuresPerMinute, failuresPerHour)
}

// networkThrottle limits the tries of unknown clients per network.
func (a *App) networkThrottle() *guard.Throttle {
	return a.throttleIn("throttle-network", networkPerMinute, networkPerHour)
}

// deviceThrottle limits the tries of each known device, whatever its
// address: no one else's tries count against it.
func (a *App) deviceThrottle() *guard.Throttle {
	return a.throttleIn("throttle-device", failuresPerMinute, failuresPerHour)
}

// knownThrottle limits the tries of all the known devices of each
// counter together (countersDevices).
func (a *App) knownThrottle() *guard.Throttle {
	return a.throttleIn("throttle-known", knownPerMinute, knownPerHour)
}

// countersDevices is the key that the known devices of counter name
// share in knownThrottle; the owner's devices share the one of "", which
// is no counter's.
func countersDevices(name string) guard.Client {
	sum := sha256.Sum256([]byte("counter-devices\x00" + name))
	return guard.Client(sum[:16])
}

func (a *App) throttleIn(file string, perMinute, perHour int) *guard.Throttle {
	return &guard.Throttle{
		Dir:        a.proc.Run,
		Name:       file,
		PerMinute:  perMinute,
		PerHour:    perHour,
		MaxClients: throttledClients,
		Now:        a.cfg.Now,
	}
}

// clientAddr is the address a login is throttled by: the peer, or, when
// the peer is a proxy the owner trusts, the last address in
// X-Forwarded-For that is not one of those proxies.
func (a *App) clientAddr(r *http.Request) string {
	return imagehit.ClientAddr(peerAddr(r), r.Header.Values("X-Forwarded-For"), a.cfg.TrustedProxies)
}

func (a *App) trusted(addr netip.Addr) bool {
	return imagehit.Trusted(a.cfg.TrustedProxies, addr)
}
