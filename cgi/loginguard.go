package main

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hitcounter/cgi/guard"
)

// Limits of failed logins per client, and how many clients are remembered.
const (
	failuresPerMinute = 5
	failuresPerHour   = 20
	throttledClients  = 4096
)

var errRunDir = errors.New("runtime directory unusable")

// admitClient decides whether the client of r may try a password at all:
// it may not past the throttle's limits. If not, it has answered r.
func (a *app) admitClient(w http.ResponseWriter, r *http.Request, name string) (guard.Client, bool) {
	addr := a.clientAddr(r)
	client, err := guard.ClientOf(addr)
	if err != nil {
		a.log.Printf("login %q: %v", name, err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return client, false
	}
	if err := a.ensureRunDir(); err != nil {
		a.loginUnavailable(w, name, err)
		return client, false
	}
	ok, wait, err := a.throttle().Check(client)
	return client, a.throttled(w, r, name, ok, wait, err)
}

// attempt counts a try of client's against the throttle, if the throttle
// lets it try now. If not, it has answered r.
func (a *app) attempt(w http.ResponseWriter, r *http.Request, th *guard.Throttle, client guard.Client, name string) bool {
	ok, wait, err := th.Attempt(client)
	return a.throttled(w, r, name, ok, wait, err)
}

// throttled answers r when the throttle said no (or failed), and reports
// whether the try may go on.
func (a *app) throttled(w http.ResponseWriter, r *http.Request, name string, ok bool, wait time.Duration, err error) bool {
	if err != nil {
		a.loginUnavailable(w, name, err)
		return false
	}
	if !ok {
		a.log.Printf("login throttled: counter=%q client=%s", name, a.clientAddr(r))
		w.Header().Set("Retry-After", itoa(int(math.Ceil(wait.Seconds()))))
		writeHTML(w, r, http.StatusTooManyRequests, loginPage(name, tooManyMessage(wait.Seconds())))
	}
	return ok
}

// takeSlot takes one of the bcrypt slots, without waiting. If it gets one
// it returns the function that frees it; if not, it has answered r.
func (a *app) takeSlot(w http.ResponseWriter, r *http.Request, name string) (func(), bool) {
	release, err := guard.Slots{Dir: a.cfg.RunDir, N: a.cfg.BcryptSlots}.Acquire()
	if errors.Is(err, guard.ErrBusy) {
		a.loginBusy(w, r, name)
		return nil, false
	}
	if err != nil {
		a.loginUnavailable(w, name, err)
		return nil, false
	}
	return release, true
}

// loginBusy answers a login that finds the server busy with others.
func (a *app) loginBusy(w http.ResponseWriter, r *http.Request, name string) {
	a.log.Printf("login busy: counter=%q client=%s", name, a.clientAddr(r))
	w.Header().Set("Retry-After", "1")
	writeHTML(w, r, http.StatusTooManyRequests, loginPage(name, "The server is busy checking another password. Try again in a moment."))
}

func (a *app) loginUnavailable(w http.ResponseWriter, name string, err error) {
	a.log.Printf("login %q refused: %v", name, err)
	http.Error(w, "login unavailable", http.StatusServiceUnavailable)
}

func tooManyMessage(seconds float64) string {
	if seconds < 90 {
		return "Too many wrong passwords. Try again in a minute."
	}
	return fmt.Sprintf("Too many wrong passwords. Try again in %d minutes.", int(seconds/60+0.5))
}

func (a *app) throttle() *guard.Throttle {
	return &guard.Throttle{
		Path:       filepath.Join(a.cfg.RunDir, "throttle"),
		PerMinute:  failuresPerMinute,
		PerHour:    failuresPerHour,
		MaxClients: throttledClients,
		Now:        a.cfg.Now,
	}
}

// ensureRunDir makes the runtime directory if its parent allows. /run is
// emptied at boot, so the install also has systemd recreate it.
func (a *app) ensureRunDir() error {
	if err := os.MkdirAll(a.cfg.RunDir, 0o700); err != nil {
		return fmt.Errorf("%w: %v (create it, owned by the web server's user; see the README)", errRunDir, err)
	}
	return nil
}

// clientAddr is the address a login is throttled by: the peer, or, when
// the peer is a proxy the owner trusts, the last address in
// X-Forwarded-For that is not one of those proxies.
func (a *app) clientAddr(r *http.Request) string {
	peer := peerAddr(r)
	p, err := netip.ParseAddr(peer)
	if err != nil || !a.trusted(p.Unmap()) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0 && i >= len(hops)-16; i-- {
		h, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !a.trusted(h.Unmap()) {
			return h.Unmap().String()
		}
	}
	return peer
}

func (a *app) trusted(addr netip.Addr) bool {
	for _, p := range a.cfg.TrustedProxies {
		if p == addr {
			return true
		}
	}
	return false
}
