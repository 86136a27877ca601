package web

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/imagehit"
)

// ownerCookie is the name of the cookie by which a browser asks not to be
// counted by one counter.
const ownerCookie = imagehit.OwnerCookie

// ownerLifetime is how long the owner cookie lasts: 400 days, the most
// browsers keep a cookie.
const ownerLifetime = 400 * 24 * time.Hour

// maxOwnerForm caps the owner form: one short field.
const maxOwnerForm = 1 << 10

// errBadOwnerForm is a form to /NAME/owner without count=yes or count=no.
var errBadOwnerForm = errors.New("bad owner form")

// ownerToken is imagehit.OwnerToken: the owner cookie's value.
func ownerToken(name string, key []byte) string { return imagehit.OwnerToken(name, key) }

// ownerTokenLen is the length of every owner token.
var ownerTokenLen = imagehit.OwnerTokenLen

// ownerMarked reports whether r carries an owner cookie valid for counter
// name under key (imagehit.OwnerMarked, which judges a hit by it).
func ownerMarked(r *http.Request, name string, key []byte) bool {
	return imagehit.OwnerMarked(r.Header.Values("Cookie"), name, key)
}

// ownerPaths are the paths under the mount that the owner cookie of
// counter name is set for: a cookie's Path matches only at segment
// boundaries, so each image needs its own, and the statistics pages one
// more, for the page to show the state.
func ownerPaths(mount, name string) [4]string {
	base := mount + "/" + name
	return [4]string{base + ".png", base + ".gif", base + ".svg", base + "/"}
}

// setOwnerCookies sets, or with value "" expires, the owner cookie of
// counter name on every path it is read at.
func (a *App) setOwnerCookies(w http.ResponseWriter, r *http.Request, name, value string) {
	maxAge := int(ownerLifetime / time.Second)
	if value == "" {
		maxAge = -1
	}
	for _, p := range ownerPaths(gateway.Mount(r), name) {
		http.SetCookie(w, &http.Cookie{
			Name:     ownerCookie,
			Value:    value,
			Path:     p,
			MaxAge:   maxAge,
			HttpOnly: true,
			Secure:   a.overHTTPS(r),
			// Lax, not Strict: the image is fetched from the owner's own
			// pages, which may be another origin of the same site.
			SameSite: http.SameSiteLaxMode,
		})
	}
}

// serveOwner answers POST /NAME/owner: count=no marks this browser as the
// owner's, whose hits are tallied apart and not counted; count=yes clears
// the mark. Only someone who may see the statistics may do either.
func (a *App) serveOwner(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := a.crossOrigin.Check(r); err != nil {
		a.log.Printf("owner %q refused: %v", name, err)
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	form, err := readForm(w, r, maxOwnerForm)
	count := form.Get("count")
	if err != nil || count != "yes" && count != "no" {
		a.log.Printf("owner %q: %v", name, errors.Join(err, errBadOwnerForm))
		http.Error(w, http.StatusText(http.StatusBadRequest), http.StatusBadRequest)
		return
	}
	mark := count == "no"
	v, err := a.loadStats(r, name, a.now())
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	if !a.authorised(r, v) {
		a.Refuse(w, r, errLoginRequired)
		return
	}
	value := ""
	if mark {
		key, err := a.ownerKey()
		if err != nil {
			a.log.Printf("owner %q: %v", name, err)
			a.Refuse(w, r, err)
			return
		}
		value = ownerToken(name, key)
	}
	a.setOwnerCookies(w, r, name, value)
	seeStats(w)
}

// ownerKey returns the key of the owner cookies, making it if need be: a
// short write transaction.
func (a *App) ownerKey() ([]byte, error) {
	db, err := a.open(false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.OwnerKey()
}

// readForm reads a form of at most limit bytes; a larger body is refused
// without being read.
func readForm(w http.ResponseWriter, r *http.Request, limit int64) (url.Values, error) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" {
		return nil, errBadForm
	}
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, errBadForm
	}
	return form, nil
}
