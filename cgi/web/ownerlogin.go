package web

import (
	"net/http"

	"hitcounter/cgi/meter"
	"hitcounter/store"
)

// The owner's login (passwd -owner) opens every counter's statistics,
// private or public, and the pages at the script's root. It is a door
// like a counter's (door.go): its form posts password to /login, its
// session cookie goes to every page under the script, and its logout,
// /logout, ends the owner's sessions and no counter's. Logging in does
// not mark the browser as the owner's for the counts (owner.go): only the
// "don't count this browser" form does.

// ownerSession reports whether r carries a valid session of the owner's
// login. It reads the file (one short read-only open) only when r has a
// cookie that could be one, and never runs bcrypt: a page for the owner
// alone calls it first, and answers with writeOwnerForm when it is false.
func (a *App) ownerSession(r *http.Request) (bool, error) {
	if len(cookieTokens(r, ownerSessionCookie)) == 0 {
		return false, nil
	}
	l, err := a.readLock(ownerDoor)
	if err != nil {
		return false, err
	}
	return a.ownerIn(r, store.OwnerLogin{PasswordHash: l.hash, SessionKey: l.key}), nil
}

// ownerIn reports whether r carries a valid session of the owner's login
// o, read already.
func (a *App) ownerIn(r *http.Request, o store.OwnerLogin) bool {
	if !o.IsSet() {
		return false
	}
	return ownerDoor.anySession(lock{o.PasswordHash, o.SessionKey}, cookieTokens(r, ownerSessionCookie), a.now())
}

// writeOwnerForm answers r with the owner's login form, which posts to
// /login from any page at the script's root; or, when no owner password is
// set, with the command that sets one and nothing else.
func (a *App) writeOwnerForm(w http.ResponseWriter, r *http.Request) {
	l, err := a.readLock(ownerDoor)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	tag(w, meter.Stats)
	writeHTML(w, r, http.StatusOK, ownerLoginPage("", l.hash != nil))
}

// serveOwnerForm answers GET /login: the owner's form, or, to a browser
// logged in as the owner already, the way on.
func (a *App) serveOwnerForm(w http.ResponseWriter, r *http.Request) {
	in, err := a.ownerSession(r)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	if in {
		tag(w, meter.Stats)
		ownerDoor.goOn(w)
		return
	}
	a.writeOwnerForm(w, r)
}

// serveOwnerLogin answers POST /login: the owner's login, through the
// same guard as a counter's.
func (a *App) serveOwnerLogin(w http.ResponseWriter, r *http.Request) { a.login(w, r, ownerDoor) }

// serveOwnerLogout answers POST /logout: it drops the owner's session
// cookie, and, when r carries a valid one, ends every session of the
// owner (and no counter's), as a counter's logout does for its own.
func (a *App) serveOwnerLogout(w http.ResponseWriter, r *http.Request) { a.logout(w, r, ownerDoor) }

// ownerLoginPage is the owner's login form, with message above it; or,
// when set is false, the command that sets the owner's password.
func ownerLoginPage(message string, set bool) *htmlPage {
	p := &htmlPage{}
	p.begin("counter · owner · log in")
	p.raw("<h1>Owner</h1>")
	if !set {
		p.raw("<p class=\"sub\">No owner password is set. Set one on the server with <code>counter passwd -owner</code>; its login opens every counter's statistics.</p>\n")
		p.end()
		return p
	}
	p.raw("<p class=\"sub\">The owner's password opens every counter's statistics.</p>\n")
	loginForm(p, message)
	p.end()
	return p
}
