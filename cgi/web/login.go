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

// serveLogin answers POST /NAME/login, the login of one counter.
func (a *App) serveLogin(w http.ResponseWriter, r *http.Request) {
	a.login(w, r, door{r.PathValue("name")})
}

// login answers a login POST at door d. bcrypt runs only here, only for a
// door with a password, a browser without a valid session and a password
// that bcrypt could have hashed, and with the database closed: a login
// never holds up the hits.
func (a *App) login(w http.ResponseWriter, r *http.Request, d door) {
	tag(w, meter.Refused) // until a password is checked
	// The browser is known first, from its cookies and one read of the
	// file. One that is logged in already has nothing to prove; one that
	// has logged in before has logins in hand of its own: a flood of
	// strangers' logins can turn neither away as busy.
	who := a.knownBrowser(r, d)
	if who.loggedIn {
		a.alreadyIn(w, r, d)
		return
	}
	leave, admitted := a.pacer.enter(who.known)
	defer leave()
	if !admitted {
		a.loginBusy(w, r, d)
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
	a.loginWork(who, func() { password, ok = a.readLogin(w, r, d) })
	if !ok {
		return
	}
	var release func()
	a.loginWork(who, func() { release, ok = a.admitTry(w, r, d, &who) })
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
	l, err := who.lock, error(nil)
	if !who.known {
		l, err = a.readLock(d)
	}
	if err != nil {
		release()
		a.Refuse(w, r, err)
		return
	}
	if l.hash == nil {
		release()
		d.goOn(w) // the counter's statistics are public; the owner's form says how to set one
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
			ok, rehash, err = a.verify(l.hash, password)
		}
		// A hash of another cost is made again at the pinned one here,
		// in the slot and with the database closed; upgrade only swaps it
		// in, in a short transaction.
		if ok && rehash {
			var herr error
			if newHash, herr = a.hash(password); herr != nil {
				a.log.Printf("login %q: rehash: %v", d.label(), herr)
				newHash = nil
			}
		}
	})
	release()
	if errors.Is(err, counter.ErrHashTooCostly) {
		a.log.Printf("login %q: the stored password hash is too costly to check; set a new one with: counter passwd %s", d.label(), passwdArgs(d))
	} else if err != nil {
		a.log.Printf("login %q: %v", d.label(), err)
	}
	if !ok {
		// The line fail2ban matches; see deploy/fail2ban. The label is a
		// name that passed CheckName, or "*", and the address was
		// parsed, so neither can break it.
		a.log.Printf("login failed: counter=%q client=%s", d.label(), a.loginAddr(r))
		writeHTML(w, r, http.StatusUnauthorized, d.page(loginFailed))
		a.pacer.refused(who.client, a.now())
		return
	}
	if err := a.forget(d, who); err != nil {
		a.log.Printf("login %q: %v", d.label(), err)
	}
	if newHash != nil || l.key == nil {
		if l, err = a.upgrade(d, l.hash, newHash); err != nil {
			a.log.Printf("login %q: %v", d.label(), err)
			a.Refuse(w, r, err)
			return
		}
	}
	now := a.now()
	http.SetCookie(w, a.cookie(r, d, d.sessionCookie(), signSession(l.key, d.name, now.Add(sessionLifetime), l.hash), int(sessionLifetime/time.Second)))
	a.rememberDevice(w, r, d, l.hash, who, now)
	d.goOn(w)
}

// passwdArgs is what follows "counter passwd" to set the door's password.
func passwdArgs(d door) string {
	if d.owner() {
		return "-owner"
	}
	return d.name
}

// alreadyIn answers the login of a browser that holds a valid session
// at door d as a good login would, but with no password checked, no slot
// taken and no try counted: the page behind the door would open to it
// anyway, so a check would buy nothing, and a flood would make the owner
// wait for one. The session is not renewed: only a password makes one.
func (a *App) alreadyIn(w http.ResponseWriter, r *http.Request, d door) {
	if !a.sameOrigin(w, r, d) {
		return
	}
	tag(w, meter.Stats) // a read of the file, as the page it leads to
	d.goOn(w)
}

// rememberDevice gives the browser a device token after a good login: a
// new one, or the one it has, for longer.
func (a *App) rememberDevice(w http.ResponseWriter, r *http.Request, d door, hash []byte, who loginTry, now time.Time) {
	id := who.device
	if !who.known {
		var err error
		if id, err = newDeviceID(); err != nil {
			a.log.Printf("login %q: device id: %v", d.label(), err)
			return
		}
	}
	value := signDevice(hash, d.name, id, now.Add(deviceLifetime))
	http.SetCookie(w, a.cookie(r, d, d.deviceCookie(), value, int(deviceLifetime/time.Second)))
}

// readLogin makes the first checks of a login, which need nothing but the
// request: the origin and the form. If they pass it returns the password;
// if not, it has answered r.
func (a *App) readLogin(w http.ResponseWriter, r *http.Request, d door) ([]byte, bool) {
	if !a.sameOrigin(w, r, d) {
		return nil, false
	}
	password, err := readPassword(w, r)
	if err != nil {
		status := http.StatusBadRequest
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			status = http.StatusRequestEntityTooLarge
		}
		a.log.Printf("login %q from %s: %v", d.label(), a.loginAddr(r), err)
		http.Error(w, http.StatusText(status), status)
		return nil, false
	}
	return password, true
}

// sameOrigin reports whether login r came from the script's own pages;
// if not, it has answered r.
func (a *App) sameOrigin(w http.ResponseWriter, r *http.Request, d door) bool {
	if err := a.crossOrigin.Check(r); err != nil {
		a.log.Printf("login %q refused from %s: %v", d.label(), a.loginAddr(r), err)
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return false
	}
	return true
}

// upgrade swaps newHash, made already, for the door's stored hash if that
// is still hash, and makes the session key if an old database has none. It
// returns the lock the new session must be bound to. It runs no bcrypt:
// every hit waits while the database is open for writing.
func (a *App) upgrade(d door, hash, newHash []byte) (lock, error) {
	db, err := a.open(false)
	if err != nil {
		return lock{}, err
	}
	defer db.Close()
	if d.owner() {
		if newHash != nil {
			if swapped, err := db.ReplaceOwnerPasswordHash(hash, newHash); err != nil {
				return lock{}, err
			} else if swapped {
				hash = newHash
			}
		} else if err := db.SetOwnerPasswordHash(hash); err != nil { // makes the key
			return lock{}, err
		}
		o, err := db.OwnerLogin()
		return lock{hash, o.SessionKey}, err
	}
	if newHash != nil {
		swapped, err := db.ReplacePasswordHash(d.name, hash, newHash)
		if err != nil {
			return lock{}, err
		}
		if swapped {
			hash = newHash
		}
	} else if err := db.SetPasswordHash(d.name, hash); err != nil { // makes the key
		return lock{}, err
	}
	key, err := db.SessionKey(d.name)
	return lock{hash, key}, err
}

// serveLogout answers POST /NAME/logout: it drops the counter's session
// cookie, and when the request carries a valid session of that counter it
// also ends every session of it (the counter's session key is renewed),
// so that a copy of the cookie is refused from now on, whatever happens to
// the runtime directory. No other counter's sessions end, nor the
// owner's. Without a valid session nothing is renewed: a visitor cannot
// log anyone out.
func (a *App) serveLogout(w http.ResponseWriter, r *http.Request) {
	a.logout(w, r, door{r.PathValue("name")})
}

// logout answers a logout at door d.
func (a *App) logout(w http.ResponseWriter, r *http.Request, d door) {
	if err := a.crossOrigin.Check(r); err != nil {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	if !d.owner() {
		if err := counter.CheckName(d.name); err != nil {
			a.Refuse(w, r, err)
			return
		}
	}
	// The browser forgets its cookie whatever follows; a copy of it is
	// refused only once the session key is renewed, and if that cannot be
	// done now the answer says so.
	http.SetCookie(w, a.cookie(r, d, d.sessionCookie(), "", -1))
	l, err := a.readLock(d)
	if err == nil && l.hash != nil && d.anySession(l, cookieTokens(r, d.sessionCookie()), a.now()) {
		err = a.endSessions(d)
	}
	if err != nil {
		a.log.Printf("logout %q: %v", d.label(), err)
		a.Refuse(w, r, err)
		return
	}
	d.goOn(w)
}

// endSessions renews the door's session key, which ends every session of
// the door and of no other.
func (a *App) endSessions(d door) error {
	db, err := a.open(false)
	if err != nil {
		return err
	}
	defer db.Close()
	if d.owner() {
		return db.RenewOwnerSessionKey()
	}
	return db.RenewSessionKey(d.name)
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
