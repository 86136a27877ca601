package web

import (
	"errors"
	"net/http"
	"time"

	"hitcounter/cgi/gateway"
	"hitcounter/counter"
	"hitcounter/store"
)

// A door is what a login opens: the statistics of one counter, or, for
// the owner's login, every counter's. Both go through the same guard
// (login.go, loginguard.go): one bcrypt check at a time, the same
// throttles, the same line for fail2ban, known devices.
type door struct {
	name string // the counter's; "" for the owner's door
}

// ownerDoor is the owner's login. No counter has the empty name
// (counter.CheckName), so nothing the owner's door signs is ever taken
// for a counter's.
var ownerDoor = door{}

// The owner's cookies, apart from a counter's by name and by path: the
// session goes to every page under the script, the device token only to
// the owner's login.
const (
	ownerSessionCookie = "counter_owner_session"
	ownerDeviceCookie  = "counter_owner_device"
)

func (d door) owner() bool { return d.name == "" }

// label is how log lines name the door, in the fail2ban line's
// counter="..." field: the counter's name, or "*" for the owner's login,
// which opens every counter (no counter's name holds a "*").
func (d door) label() string {
	if d.owner() {
		return "*"
	}
	return d.name
}

// sessionCookie and deviceCookie are the names of the door's cookies.
func (d door) sessionCookie() string {
	if d.owner() {
		return ownerSessionCookie
	}
	return sessionCookie
}

func (d door) deviceCookie() string {
	if d.owner() {
		return ownerDeviceCookie
	}
	return deviceCookie
}

// cookie returns the door's cookie named name carrying value: a counter's
// on its pages under the script (mount/NAME/), the owner's session on
// every page, the owner's device token on the owner's login alone.
func (a *App) cookie(r *http.Request, d door, name, value string, maxAge int) *http.Cookie {
	if !d.owner() {
		return a.cookieFor(r, name, d.name, value, maxAge)
	}
	c := a.cookieFor(r, name, "", value, maxAge)
	c.Path = gateway.Mount(r) + "/"
	if name == ownerDeviceCookie {
		c.Path = gateway.Mount(r) + "/login"
	}
	return c
}

// page is the door's login form, with message above it.
func (d door) page(message string) *htmlPage {
	if d.owner() {
		return ownerLoginPage(message, true)
	}
	return loginPage(d.name, message)
}

// goOn sends the browser on past the door: to the counter's statistics,
// or to the script's root, the owner's. The Location is relative on
// purpose: http.Redirect would make it absolute from the path the handler
// sees, which under CGI lacks the script's own path.
func (d door) goOn(w http.ResponseWriter) {
	if d.owner() {
		w.Header().Set("Location", "./")
	} else {
		w.Header().Set("Location", "stats")
	}
	w.WriteHeader(http.StatusSeeOther)
}

// lock is what the door's login is checked against.
type lock struct {
	hash []byte // the password's bcrypt hash; nil when the door has none
	key  []byte // signs the door's sessions; nil before the first
}

// readLock reads the door's lock, in one short read-only open.
func (a *App) readLock(d door) (lock, error) {
	if !d.owner() {
		if err := counter.CheckName(d.name); err != nil {
			return lock{}, err
		}
	}
	db, err := a.open(true)
	if err != nil {
		return lock{}, err
	}
	defer db.Close()
	if d.owner() {
		o, err := db.OwnerLogin()
		return lock{o.PasswordHash, o.SessionKey}, err
	}
	info, err := db.Counter(d.name)
	if err != nil || !info.Protected() {
		return lock{}, err
	}
	l := lock{hash: info.PasswordHash}
	l.key, err = db.SessionKey(d.name)
	if errors.Is(err, store.ErrNoSessionKey) {
		err = nil // no session can be valid; the login makes the key
	}
	return l, err
}

// anySession reports whether one of values is a valid session at now for
// the door under l.
func (d door) anySession(l lock, values []string, now time.Time) bool {
	for _, value := range values {
		if validSession(l.key, value, d.name, l.hash, now) {
			return true
		}
	}
	return false
}
