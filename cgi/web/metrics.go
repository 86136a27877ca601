package web

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store"
)

// metricsContentType is the Prometheus text format, version 0.0.4, as
// Prometheus's expfmt names it.
const metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// errNoMetricsToken is a scrape without the token, or with a wrong one.
var errNoMetricsToken = errors.New("metrics: no token, or not the one made by token metrics")

// serveMetrics answers /metrics: the counters' totals, what requests cost
// and the file's size, in Prometheus's text format, for the bearer of the
// token that `counter token metrics` printed. The token is checked by its
// SHA-256, in constant time: a scrape costs no bcrypt check, and the
// figures are read only once it has passed.
func (a *App) serveMetrics(w http.ResponseWriter, r *http.Request) {
	db, err := a.open(true)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	defer db.Close()
	want, err := db.MetricsTokenHash()
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	if !bearerMatches(r.Header.Get("Authorization"), want) {
		a.log.Printf("%s %q: %v", r.Method, r.URL.Path, errNoMetricsToken)
		w.Header().Set("WWW-Authenticate", `Bearer realm="counter metrics"`)
		http.Error(w, "the metrics need the token of counter token metrics", http.StatusUnauthorized)
		return
	}
	m, err := db.Metrics()
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	db.Close()
	s := newScrape(m, a.cfg.MaxDBSize)
	s.addCosts(a.proc.Run, a.now(), m)
	var b bytes.Buffer
	if err := writeMetrics(&b, s); err != nil {
		a.Refuse(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeBody(w, r, http.StatusOK, metricsContentType, b.Bytes())
}

// bearerMatches reports whether header is "Bearer TOKEN" with a token
// whose SHA-256 is want; never when want is empty (no token made).
func bearerMatches(header string, want []byte) bool {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || len(want) != sha256.Size {
		return false
	}
	got := store.HashMetricsToken(strings.TrimSpace(token))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// addCosts adds the cost meter's figures: today's request times by kind,
// from the runtime directory, and the last measured password check
// (today's if any, else the history's last day with one).
func (s *scrape) addCosts(dir meter.Dir, now time.Time, m store.Metrics) {
	login := m.Login.P50()
	if wall, ok := meter.ReadWall(dir, now.UTC().Format(time.DateOnly)); ok {
		s.addDurations(&wall)
		if h := &wall[meter.Login]; h.Count() > 0 {
			login = h.Quantile(0.5)
		}
	}
	if login > 0 {
		s.add(family{name: "counter_bcrypt_check_seconds", typ: gauge,
			help:    "Median time of a login's password check (bcrypt at the pinned cost) on this machine, as the cost meter measured real logins on the last day with any; no check is made for a scrape.",
			samples: []sample{{labels: []label{{"cost", strconv.Itoa(counter.PasswordCost)}}, value: login.Seconds()}}})
	}
}
