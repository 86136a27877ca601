package main

import (
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"hitcounter/cgi/guard"
	"hitcounter/counter"
	"hitcounter/store"
)

// maxLoginBody caps a login form: a 72-byte password fits many times over.
const maxLoginBody = 4 << 10

var (
	errLoginRequired = errors.New("log in first")
	errBadForm       = errors.New("bad login form")
)

// loginFailed is the one message a failed login shows, whatever failed.
const loginFailed = "Wrong password."

// serveLogin answers POST /NAME/login. bcrypt runs only here, only for a
// protected counter and a password that bcrypt could have hashed, and with
// the database closed: a login never holds up the hits.
func (a *app) serveLogin(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	leave, admitted := a.pacer.enter()
	defer leave()
	if !admitted {
		a.loginBusy(w, r, name)
		return
	}
	var (
		password []byte
		client   guard.Client
		release  func()
		allowed  bool
	)
	// The checks before the database and bcrypt after it run at the
	// lowest CPU priority (lowpriority.go), so under a flood of logins the
	// hits come first. The database is read at normal priority: no hit
	// ever waits for a starved login that holds its lock.
	a.lowPriority(func() { password, client, release, allowed = a.admitLogin(w, r, name) })
	if !allowed {
		if client != (guard.Client{}) { // refused by the throttle or a busy slot
			a.pacer.refused(client, a.now())
		}
		return
	}
	// Freed once, here or on the way out, even if a check panics: a slot
	// kept would turn every login away until the garbage collector ran.
	release = sync.OnceFunc(release)
	defer release()
	v, err := a.loadStats(name, a.now())
	if err != nil {
		release()
		a.refuse(w, r, err)
		return
	}
	h := v.history
	if !h.Protected() {
		release()
		seeStats(w)
		return
	}
	th := a.throttle()
	var (
		ok, rehash bool
		newHash    []byte
	)
	a.lowPriority(func() {
		// Checked again and counted as a failure in one step, while the
		// slot is held: a try let in before another's failure was counted
		// cannot slip past the limit.
		if allowed = a.attempt(w, r, th, client, name); !allowed {
			return
		}
		// Nothing bcrypt could have hashed is worth running it for.
		if len(password) > 0 && len(password) <= counter.MaxPasswordLen {
			ok, rehash, err = a.verify(h.PasswordHash, password)
		}
		// A hash of another cost is made again at the pinned one here,
		// in the slot and with the database closed; upgrade only swaps it
		// in, in a short transaction.
		if ok && rehash {
			var herr error
			if newHash, herr = a.hash(password); herr != nil {
				a.log.Printf("login %q: rehash: %v", name, herr)
				newHash = nil
			}
		}
	})
	release()
	if !allowed {
		a.pacer.refused(client, a.now())
		return
	}
	if errors.Is(err, counter.ErrHashTooCostly) {
		a.log.Printf("login %q: the stored password hash is too costly to check; set a new one with: counter.cgi passwd %s", name, name)
	} else if err != nil {
		a.log.Printf("login %q: %v", name, err)
	}
	if !ok {
		// The line fail2ban matches; see deploy/fail2ban. The name passed
		// CheckName and the address was parsed, so neither can break it.
		a.log.Printf("login failed: counter=%q client=%s", name, a.clientAddr(r))
		writeHTML(w, r, http.StatusUnauthorized, loginPage(name, loginFailed))
		a.pacer.refused(client, a.now())
		return
	}
	if err := th.Forget(client); err != nil {
		a.log.Printf("login %q: %v", name, err)
	}
	hash, key := h.PasswordHash, v.sessionKey
	if newHash != nil || key == nil {
		if hash, key, err = a.upgrade(name, hash, newHash); err != nil {
			a.log.Printf("login %q: %v", name, err)
			a.refuse(w, r, err)
			return
		}
	}
	expires := a.now().Add(sessionLifetime)
	value := signSession(key, name, expires, hash)
	http.SetCookie(w, a.sessionCookieFor(r, name, value, int(sessionLifetime/time.Second)))
	seeStats(w)
}

// admitLogin makes the cheap checks of a login, in order of cost: the
// origin, the form, the client's throttle (before anything is locked) and
// a bcrypt slot (before the database is opened). If all pass it returns the
// password, the client and the function that frees the slot; if not, it
// has answered r.
func (a *app) admitLogin(w http.ResponseWriter, r *http.Request, name string) (password []byte, client guard.Client, release func(), ok bool) {
	if err := checkSameOrigin(r); err != nil {
		a.log.Printf("login %q refused from %s: %v", name, a.clientAddr(r), err)
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return nil, client, nil, false
	}
	password, err := readPassword(w, r)
	if err != nil {
		status := http.StatusBadRequest
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			status = http.StatusRequestEntityTooLarge
		}
		a.log.Printf("login %q from %s: %v", name, a.clientAddr(r), err)
		http.Error(w, http.StatusText(status), status)
		return nil, client, nil, false
	}
	if client, ok = a.admitClient(w, r, name); !ok {
		return nil, client, nil, false
	}
	if release, ok = a.takeSlot(w, r, name); !ok {
		return nil, client, nil, false
	}
	return password, client, release, true
}

// upgrade swaps newHash, made already, for the stored hash if that is
// still hash, and makes the session key if an old database has none. It
// returns the hash and key that the new session must be bound to. It runs
// no bcrypt: every hit waits while the database is open for writing.
func (a *app) upgrade(name string, hash, newHash []byte) ([]byte, []byte, error) {
	db, err := store.Open(a.cfg.DB, store.Options{Wait: a.cfg.Wait, MaxSize: a.cfg.MaxDBSize})
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	if newHash != nil {
		swapped, err := db.ReplacePasswordHash(name, hash, newHash)
		if err != nil {
			return nil, nil, err
		}
		if swapped {
			hash = newHash
		}
	} else if err := db.SetPasswordHash(name, hash); err != nil { // makes the key
		return nil, nil, err
	}
	key, err := db.SessionKey()
	return hash, key, err
}

// serveLogout answers POST /NAME/logout: it drops the session cookie, and
// when the request carries a valid session it also ends every session (the
// database's session key is renewed), so that a copy of the cookie is
// refused from now on, whatever happens to the runtime directory. Without
// a valid session nothing is renewed: a visitor cannot log the owner out.
func (a *app) serveLogout(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := checkSameOrigin(r); err != nil {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	v, err := a.loadStats(name, a.now())
	if err != nil {
		a.refuse(w, r, err)
		return
	}
	if v.history.Protected() && a.authorised(r, v) {
		if err := a.endSessions(); err != nil {
			a.log.Printf("logout %q: %v", name, err)
			a.refuse(w, r, err)
			return
		}
	}
	http.SetCookie(w, a.sessionCookieFor(r, name, "", -1))
	seeStats(w)
}

// endSessions renews the session key, which ends every session.
func (a *app) endSessions() error {
	db, err := store.Open(a.cfg.DB, store.Options{Wait: a.cfg.Wait, MaxSize: a.cfg.MaxDBSize})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.RenewSessionKey()
}

// seeStats sends the browser on to the statistics page. The Location is
// relative on purpose: http.Redirect would make it absolute from the path
// the handler sees, which under CGI lacks the script's own path.
func seeStats(w http.ResponseWriter) {
	w.Header().Set("Location", "stats")
	w.WriteHeader(http.StatusSeeOther)
}

// readPassword reads the password field of a form of at most
// maxLoginBody bytes; a larger body is refused without being read.
func readPassword(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" {
		return nil, errBadForm
	}
	if r.ContentLength > maxLoginBody {
		return nil, &http.MaxBytesError{Limit: maxLoginBody}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxLoginBody))
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, errBadForm
	}
	return []byte(form.Get("password")), nil
}

// peerAddr is the peer address, as the web server saw it.
func peerAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
