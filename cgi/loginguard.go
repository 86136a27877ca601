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

	"hitcounter/cgi/guard"
)

// Limits of failed logins per client, and how many clients are remembered.
const (
	failuresPerMinute = 5
	failuresPerHour   = 20
	throttledClients  = 4096
)

var errRunDir = errors.New("runtime directory unusable")

// guardLogin decides whether a login attempt from r may reach bcrypt. If it
// may, it returns the client and a function to call when the check is done
// (which frees the bcrypt slot); if not, it has answered the request.
func (a *app) guardLogin(w http.ResponseWriter, r *http.Request, name string) (guard.Client, func(), bool) {
	addr := a.clientAddr(r)
	client, err := guard.ClientOf(addr)
	if err != nil {
		a.log.Printf("login %q: %v", name, err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return client, nil, false
	}
	if err := a.ensureRunDir(); err != nil {
		a.log.Printf("login %q refused: %v", name, err)
		http.Error(w, "login unavailable", http.StatusServiceUnavailable)
		return client, nil, false
	}
	ok, wait, err := a.throttle().Check(client)
	if err != nil {
		a.log.Printf("login %q refused: %v", name, err)
		http.Error(w, "login unavailable", http.StatusServiceUnavailable)
		return client, nil, false
	}
	if !ok {
		a.log.Printf("login throttled: counter=%q client=%s", name, addr)
		w.Header().Set("Retry-After", itoa(int(math.Ceil(wait.Seconds()))))
		writeHTML(w, r, http.StatusTooManyRequests, loginPage(name, tooManyMessage(wait.Seconds())))
		return client, nil, false
	}
	release, err := guard.Slots{Dir: a.cfg.RunDir, N: a.cfg.BcryptSlots}.Acquire()
	if errors.Is(err, guard.ErrBusy) {
		a.log.Printf("login busy: counter=%q client=%s", name, addr)
		w.Header().Set("Retry-After", "1")
		writeHTML(w, r, http.StatusTooManyRequests, loginPage(name, "The server is busy checking another password. Try again in a moment."))
		return client, nil, false
	}
	if err != nil {
		a.log.Printf("login %q refused: %v", name, err)
		http.Error(w, "login unavailable", http.StatusServiceUnavailable)
		return client, nil, false
	}
	return client, release, true
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
