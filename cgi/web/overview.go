package web

import (
	"errors"
	"net/http"
	"time"

	"hitcounter/cgi/health"
	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store"
)

// The script's root is the owner's overview: every counter on the machine,
// one row each, and the machine's health. Under a web server only the
// owner, logged in, sees it; the local server (serve) shows it to anyone
// who can reach it, on the owner's own machine, above the demo.

// overviewTop is how many pages and sources the overview lists across
// counters. Every counter has its row, however many there are: the page
// grows with them (about a kilobyte a row), the lists do not.
const overviewTop = 10

// ownerAccess is what the script's root may show a request.
type ownerAccess int

const (
	ownerUnset ownerAccess = iota // no owner password: how to set one, and nothing else
	ownerOut                      // the owner's login form
	ownerIn                       // the overview
)

// accessOf tells what the root may show r, without running bcrypt. Until
// the owner's login lands (issue 40, item 1), no owner password can be
// set, and only the local server shows the overview.
func (a *App) accessOf(r *http.Request) (ownerAccess, error) {
	if a.demo {
		return ownerIn, nil
	}
	return ownerUnset, nil
}

// overviewView is what the overview shows.
type overviewView struct {
	store.Overview
	now     time.Time
	maxSize int64
	health  []string // the doctor's problems a web request can see
	sort    overviewSort
	demo    *demoView // the local server's demo, below the overview
}

// demoView is what the local server's demo shows.
type demoView struct {
	themes []string
	here   string
}

// serveRoot answers the script's root: the overview, the owner's login
// form, or how to set the owner's password.
func (a *App) serveRoot(w http.ResponseWriter, r *http.Request) {
	tag(w, meter.Stats)
	access, err := a.accessOf(r)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	switch access {
	case ownerUnset:
		writeHTML(w, r, http.StatusOK, ownerUnsetPage())
		return
	case ownerOut:
		writeHTML(w, r, http.StatusOK, ownerLoginPage(""))
		return
	}
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
	if db != nil {
		v.Overview, err = db.Overview(v.now, counter.SeriesDays, overviewTop)
		if err == nil && a.demo {
			v.demo = &demoView{here: counter.ReferrerHost("http://" + r.Host + "/")}
			v.demo.themes, err = db.DigitSetNames()
		}
		db.Close()
		if err != nil {
			return nil, err
		}
	}
	var h health.Report
	if h.Database(a.cfg.DB) {
		h.RunDir(a.cfg.RunDir, a.cfg.DB, false)
	}
	v.health = h.Problems()
	if a.cfg.NoCosts {
		v.CostWarnings = nil
	}
	return v, nil
}
