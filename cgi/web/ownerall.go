package web

import (
	"errors"
	"net/http"
)

// maxOwnerAll is the most counters the overview marks this browser on at
// once: four cookies each (ownerPaths), and a browser keeps some 180 a
// site, dropping the oldest past them, a session's among them.
const maxOwnerAll = 40

// errTooManyForCookies is a mark on every counter of a machine with more
// than maxOwnerAll.
var errTooManyForCookies = errors.New("too many counters to mark at once")

// serveOwnerAll answers POST /owner, the overview's form: count=no marks
// this browser as the owner's on every counter, count=yes clears every
// mark. Only the owner, logged in, may do either.
func (a *App) serveOwnerAll(w http.ResponseWriter, r *http.Request) {
	if err := a.crossOrigin.Check(r); err != nil {
		a.log.Printf("owner of every counter refused: %v", err)
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	form, err := readForm(w, r, maxOwnerForm)
	count := form.Get("count")
	if err != nil || count != "yes" && count != "no" {
		a.log.Printf("owner of every counter: %v", errors.Join(err, errBadOwnerForm))
		http.Error(w, http.StatusText(http.StatusBadRequest), http.StatusBadRequest)
		return
	}
	if in, err := a.ownerAccess(r); err != nil || !in {
		a.Refuse(w, r, errors.Join(err, errLoginRequired))
		return
	}
	db, err := a.open(count == "yes")
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	list, err := db.List()
	var key []byte
	if err == nil && len(list) <= maxOwnerAll && count == "no" {
		key, err = db.OwnerKey()
	}
	db.Close()
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	if len(list) > maxOwnerAll {
		a.log.Printf("owner of every counter: %d counters: %v", len(list), errTooManyForCookies)
		http.Error(w, "too many counters to mark at once: mark this browser on each counter's page", http.StatusBadRequest)
		return
	}
	for _, c := range list {
		value := ""
		if key != nil {
			value = ownerToken(c.Name, key)
		}
		a.setOwnerCookies(w, r, c.Name, value)
	}
	w.Header().Set("Location", "./")
	w.WriteHeader(http.StatusSeeOther)
}
