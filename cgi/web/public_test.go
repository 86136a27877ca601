package web

import (
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/cgi/meter"
)

// TestStatsSayWhetherPublic: a statistics page without a password says
// it is public and how to protect it; behind a password it says nothing
// of the kind.
func TestStatsSayWhetherPublic(t *testing.T) {
	a, _ := testApp(t, "page", "kept")
	note := `<p class="note public">This page is public: anyone who has its address can see these figures. ` +
		`To protect it with a password, run on the server: <code>sudo -u www-data counter passwd page</code></p>`
	if w := serve(a, "GET", "/page/stats"); w.Code != 200 || !strings.Contains(w.Body.String(), note) {
		t.Errorf("public page: %d, want it to say %q", w.Code, note)
	}
	protect(t, a, "kept", bcrypt.MinCost)
	c := sessionOf(t, login(a, "kept", testPassword))
	r := httptest.NewRequest("GET", "/kept/stats", nil)
	r.AddCookie(c)
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	if body := w.Body.String(); w.Code != 200 || !strings.Contains(body, "Log out") || strings.Contains(body, "public") {
		t.Errorf("protected page, logged in: %d, says it is public: %v", w.Code, strings.Contains(body, "public"))
	}
}

// TestCostsPanelSaysWhatFor: the panel says in one line what its figures
// are for, first thing under its title.
func TestCostsPanelSaysWhatFor(t *testing.T) {
	p := &htmlPage{}
	writeCosts(p, &costView{days: []meter.Day{{Date: "2026-05-04"}}})
	want := `<h2>What this counter costs on this machine</h2>` + "\n" + `<p class="sub">What these are for: to see that this machine keeps up`
	if got := p.b.String(); !strings.Contains(got, want) {
		t.Errorf("panel:\n%s\nwant it to begin:\n%s", got, want)
	}
	if strings.Contains(costsAreFor, "\n") {
		t.Errorf("%q is more than one line", costsAreFor)
	}
}
