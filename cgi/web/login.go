package web

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"hitcounter/cgi/guard"
	"hitcounter/cgi/meter"
	"hitcounter/counter"
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
// protected counter, a browser without a valid session and a password
// that bcrypt could have hashed, and with the database closed: a login
// never holds up the hits.
func (a *App) serveLogin(w http.ResponseWriter, r *http.Request) {
	tag(w, meter.Refused) // until a password is checked
	name := r.PathValue("name")
	// The browser is known first, from its cookies and one read of the
	// file. One that is logged in already has nothing to prove; one that
	// has logged in before has logins in hand of its own: a flood of
	// strangers' logins can turn neither away as busy.
	who := a.knownBrowser(r, name)
	if who.loggedIn {
		a.alreadyIn(w, r, name)
		return
	}
	leave, admitted := a.pacer.enter(who.known)
	defer leave()
	if !admitted {
		a.loginBusy(w, r, name)
		return
	}
	// A stranger's checks before the database and bcrypt after it run at
	// the lowest CPU priority (lowpriority.go), so under a flood of logins
	// the hits come first; a known device's at normal priority
	// (loginWork). The database is read at normal priority: no hit ever
	// waits for a starved login that holds its lock.
	var (
		password []byte
		ok       bool
	)
	a.loginWork(who, func() { password, ok = a.readLogin(w, r, name) })
	if !ok {
		return
	}
	var release func()
	a.loginWork(who, func() { release, ok = a.admitTry(w, r, name, &who) })
	if !ok {
		if who.client != (guard.Client{}) { // refused by a throttle or a busy slot
			a.pacer.refused(who.client, a.now())
		}
		return
	}
	// Freed once, here or on the way out, even if a check panics: a slot
	// kept would turn every login away until the garbage collector ran.
	release = sync.OnceFunc(release)
	defer release()
	v, err := who.view, error(nil)
	if !who.known {
		v, err = a.loadStats(r, name, a.now())
	}
	if err != nil {
		release()
		a.Refuse(w, r, err)
		return
	}
	h := v.history
	if !h.Protected() {
		release()
		seeStats(w)
		return
	}
	var (
		rehash  bool
		newHash []byte
	)
	ok = false
	a.bcryptWork(who, func() {
		// Nothing bcrypt could have hashed is worth running it for.
		if len(password) > 0 && len(password) <= counter.MaxPasswordLen {
			tag(w, meter.Login)
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
	if errors.Is(err, counter.ErrHashTooCostly) {
		a.log.Printf("login %q: the stored password hash is too costly to check; set a new one with: counter passwd %s", name, name)
	} else if err != nil {
		a.log.Printf("login %q: %v", name, err)
	}
	if !ok {
		// The line fail2ban matches; see deploy/fail2ban. The name passed
		// CheckName and the address was parsed, so neither can break it.
		a.log.Printf("login failed: counter=%q client=%s", name, a.loginAddr(r))
		writeHTML(w, r, http.StatusUnauthorized, loginPage(name, loginFailed))
		a.pacer.refused(who.client, a.now())
		return
	}
	if err := a.forget(name, who); err != nil {
		a.log.Printf("login %q: %v", name, err)
	}
	hash, key := h.PasswordHash, v.sessionKey
	if newHash != nil || key == nil {
		if hash, key, err = a.upgrade(name, hash, newHash); err != nil {
			a.log.Printf("login %q: %v", name, err)
			a.Refuse(w, r, err)
			return
		}
	}
	now := a.now()
	http.SetCookie(w, a.sessionCookieFor(r, name, signSession(key, name, now.Add(sessionLifetime), hash), int(sessionLifetime/time.Second)))
	a.rememberDevice(w, r, name, hash, who, now)
	seeStats(w)
}

// alreadyIn answers the login of a browser that holds a valid session
// for counter name as a good login would, but with no password checked,
// no slot taken and no try counted: the statistics page would open to it
// anyway, so a check would buy nothing, and a flood would make the owner
// wait for one. The session is not renewed: only a password makes one.
func (a *App) alreadyIn(w http.ResponseWriter, r *http.Request, name string) {
	if !a.sameOrigin(w, r, name) {
		return
	}
	tag(w, meter.Stats) // a read of the file, as the page it leads to
	seeStats(w)
}

// rememberDevice gives the browser a device token after a good login: a
// new one, or the one it has, for longer.
func (a *App) rememberDevice(w http.ResponseWriter, r *http.Request, name string, hash []byte, who loginTry, now time.Time) {
	id := who.device
	if !who.known {
		var err error
		if id, err = newDeviceID(); err != nil {
			a.log.Printf("login %q: device id: %v", name, err)
			return
		}
	}
	value := signDevice(hash, name, id, now.Add(deviceLifetime))
	http.SetCookie(w, a.cookieFor(r, deviceCookie, name, value, int(deviceLifetime/time.Second)))
}

// readLogin makes the first checks of a login, which need nothing but the
// request: the origin and the form. If they pass it returns the password;
// if not, it has answered r.
func (a *App) readLogin(w http.ResponseWriter, r *http.Request, name string) ([]byte, bool) {
	if !a.sameOrigin(w, r, name) {
		return nil, false
	}
	password, err := readPassword(w, r)
	if err != nil {
		status := http.StatusBadRequest
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			status = http.StatusRequestEntityTooLarge
		}
		a.log.Printf("login %q from %s: %v", name, a.loginAddr(r), err)
		http.Error(w, http.StatusText(status), status)
		return nil, false
	}
	return password, true
}

// sameOrigin reports whether login r came from the counter's own pages;
// if not, it has answered r.
func (a *App) sameOrigin(w http.ResponseWriter, r *http.Request, name string) bool {
	if err := a.crossOrigin.Check(r); err != nil {
		a.log.Printf("login %q refused from %s: %v", name, a.loginAddr(r), err)
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return false
	}
	return true
}

// upgrade swaps newHash, made already, for the stored hash if that is
// still hash, and makes the session key if an old database has none. It
// returns the hash and key that the new session must be bound to. It runs
// no bcrypt: every hit waits while the database is open for writing.
func (a *App) upgrade(name string, hash, newHash []byte) ([]byte, []byte, error) {
	db, err := a.open(false)
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
func (a *App) serveLogout(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := a.crossOrigin.Check(r); err != nil {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	if err := counter.CheckName(name); err != nil {
		a.Refuse(w, r, err)
		return
	}
	// The browser forgets its cookie whatever follows; a copy of it is
	// refused only once the session key is renewed, and if that cannot be
	// done now the answer says so.
	http.SetCookie(w, a.sessionCookieFor(r, name, "", -1))
	v, err := a.loadStats(r, name, a.now())
	if err == nil && v.history.Protected() && a.authorised(r, v) {
		err = a.endSessions()
	}
	if err != nil {
		a.log.Printf("logout %q: %v", name, err)
		a.Refuse(w, r, err)
		return
	}
	seeStats(w)
}

// endSessions renews the session key, which ends every session.
func (a *App) endSessions() error {
	db, err := a.open(false)
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
	form, err := readForm(w, r, maxLoginBody)
	if err != nil {
		return nil, err
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
