package web

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"time"

	"hitcounter/cgi/health"
	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store"
)

// The script's root is the owner's overview: every counter on the machine,
// one row each, and the machine's health. Under a web server only the
// owner, logged in, sees it; the local server (serve) shows it, above the
// demo, to the machine it runs on without a login.

// overviewTop is how many pages and sources the overview lists across
// counters. Every counter has its row, however many there are: the page
// grows with them (about a kilobyte a row), the lists do not.
const overviewTop = 10

// ownerAccess reports whether r may see the owner's pages at the script's
// root: with a session of the owner's login (ownerSession, which never
// runs bcrypt); on the local server, also from the machine it runs on,
// and on the demo's own file from anywhere. From another machine, on a
// file given with -db (which may be the live one), the local server asks
// for the owner's login as a web server does, so that serve -addr
// 0.0.0.0:8080 does not show every counter to the whole network.
func (a *App) ownerAccess(r *http.Request) (bool, error) {
	if a.openToAll || a.demo && fromThisMachine(r) {
		return true, nil
	}
	return a.ownerSession(r)
}

// fromThisMachine reports whether r came over loopback. Only the local
// server asks: under a web server RemoteAddr is the server's peer, or
// empty.
func fromThisMachine(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// overviewView is what the overview shows.
type overviewView struct {
	store.Overview
	now     time.Time
	maxSize int64
	health  []string // the doctor's problems a web request can see
	sort    overviewSort
	demo    *demoView // the local server's demo, below the overview; nil under a web server, whose page has a logout
}

// demoView is what the local server's demo shows.
type demoView struct {
	sets []string
	here string
}

// serveRoot answers GET /, the script's root: the overview; without the
// owner's session, the owner's login form, or how to set the owner's
// password when none is set.
func (a *App) serveRoot(w http.ResponseWriter, r *http.Request) {
	in, err := a.ownerAccess(r)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	if !in {
		a.writeOwnerForm(w, r) // how to set the owner's password, when none is
		return
	}
	tag(w, meter.Stats)
	sort, err := parseOverviewSort(r.URL.Query())
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	v, err := a.loadOverview(r)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	v.sort = sort
	writeHTML(w, r, http.StatusOK, overviewPage(v))
}

// loadOverview reads the overview in one short read-only open, then
// checks the files as the web server's user sees them, the file closed.
func (a *App) loadOverview(r *http.Request) (*overviewView, error) {
	v := &overviewView{now: a.now(), maxSize: int64(a.cfg.MaxDBSize)}
	db, err := a.open(true)
	if errors.Is(err, store.ErrMissing) && a.demo {
		err = nil // the demo before its first counter
	}
	if err != nil {
		return nil, err
	}
	var h health.Report
	if db != nil {
		v.Overview, err = db.Overview(v.now, counter.SeriesDays, overviewTop)
		if c, ok, cerr := db.Cluster(); ok && err == nil {
			h.Cluster(a.cfg.DB, c, cerr)
		}
		if v.Cap > 0 {
			v.maxSize = v.Cap // a cluster's quota
		}
		if err == nil && a.demo {
			v.demo = &demoView{here: counter.ReferrerHost("http://" + r.Host + "/")}
			v.demo.sets, err = db.DigitSetNames()
		}
		db.Close()
		if err != nil {
			return nil, err
		}
	}
	if store.IsRemote(a.cfg.DB) || h.Database(a.cfg.DB) {
		h.RunDir(a.cfg.RunDir, a.cfg.DB, false)
	}
	v.health = h.Problems()
	if a.cfg.NoCosts {
		v.CostWarnings = nil
	}
	return v, nil
}
