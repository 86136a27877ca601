package web

import (
	"bytes"
	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/rundir"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/seen"
	"hitcounter/counter"
	"hitcounter/store"
)

// Real User-Agents, as the servers log them.
const (
	chromeUA    = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	iphoneUA    = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
	firefoxUA   = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	bingbotUA   = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36"
	camoUA      = "github-camo (876de43e)"
	// camoAddr is an address GitHub's image proxy fetched from, in one of
	// the networks of counter/githubcamo.txt.
	camoAddr = "140.82.115.88"
)

// clockApp is an App of the given mode on a fresh database holding the
// counter "c" with settings, whose clock the test sets.
type clockApp struct {
	*App
	now  time.Time
	logs *bytes.Buffer
}

func newClockApp(t *testing.T, mode Mode, settings ...string) *clockApp {
	t.Helper()
	path := filepath.Join(t.TempDir(), "counter.db")
	db, err := store.Open(path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	s := counter.DefaultSettings()
	for _, kv := range settings {
		if err := s.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateWith("c", 0, testNow, s); err != nil {
		t.Fatal(err)
	}
	db.Close()
	c := &clockApp{now: testNow, logs: new(bytes.Buffer)}
	cfg := config.Config{DB: path, Wait: time.Second, RunDir: t.TempDir(), BcryptSlots: 1,
		Now: func() time.Time { return c.now }}
	c.App = New(cfg, logline.New(c.logs), mode)
	t.Cleanup(c.Close)
	return c
}

// hit is one request for c.png: after a pause, from an address with a
// User-Agent, with more headers as name, value pairs.
type hit struct {
	after time.Duration
	addr  string
	ua    string
	hdr   []string
	want  counter.Kind
	// newVisitor is what a counted view should say of its visitor.
	newVisitor bool
}

func (c *clockApp) send(h hit) *httptest.ResponseRecorder {
	c.now = c.now.Add(h.after)
	r := httptest.NewRequest("GET", "/c.png", nil)
	r.RemoteAddr = net.JoinHostPort(h.addr, "40000")
	if h.ua != "" {
		r.Header.Set("User-Agent", h.ua)
	}
	for i := 0; i+1 < len(h.hdr); i += 2 {
		r.Header.Add(h.hdr[i], h.hdr[i+1])
	}
	w := httptest.NewRecorder()
	c.Handler().ServeHTTP(w, r)
	return w
}

// today reads the counter's tally of the clock's day and its totals.
func (c *clockApp) today(t *testing.T) (counter.Tally, counter.Info) {
	t.Helper()
	db, err := store.Open(c.cfg.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h, err := db.History("c", c.now.Truncate(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var sum counter.Tally
	for _, d := range h.Days {
		sum = sum.Plus(d.Tally)
	}
	return sum, h.Info
}

// eachMode runs f as a CGI process would serve it and as a FastCGI
// process would: the same handler, a transaction per hit or group commit.
func eachMode(t *testing.T, f func(t *testing.T, mode Mode)) {
	for _, m := range []struct {
		name string
		mode Mode
	}{{"cgi", OneRequest}, {"fastcgi", LongLived}} {
		t.Run(m.name, func(t *testing.T) { f(t, m.mode) })
	}
}

func TestCountingRules(t *testing.T) {
	const a1, a2 = "198.51.100.7", "203.0.113.9"
	v := counter.View
	cases := []struct {
		name     string
		settings []string
		hits     []hit
	}{
		{"a visitor counts once a day, each visitor once", nil, []hit{
			{addr: a1, ua: chromeUA, want: v, newVisitor: true},
			{after: time.Hour, addr: a1, ua: chromeUA, want: v},
			{addr: a2, ua: chromeUA, want: v, newVisitor: true},
			{addr: a1, ua: firefoxUA, want: v, newVisitor: true}, // another browser on the same address
			{after: 2 * time.Hour, addr: a2, ua: chromeUA, want: v},
		}},
		{"the reload window's edges", nil, []hit{
			{addr: a1, ua: chromeUA, want: v, newVisitor: true},
			{after: time.Second, addr: a1, ua: chromeUA, want: counter.Reload},
			{after: 30*time.Minute - 2*time.Second, addr: a1, ua: chromeUA, want: counter.Reload}, // 29m59s after the view
			{after: time.Second, addr: a1, ua: chromeUA, want: v},                                 // 30m after it
			{after: 29 * time.Minute, addr: a1, ua: chromeUA, want: counter.Reload},               // the window runs from the last view
		}},
		{"a window of the counter's own", []string{"reload=5m"}, []hit{
			{addr: a1, ua: chromeUA, want: v, newVisitor: true},
			{after: 4 * time.Minute, addr: a1, ua: chromeUA, want: counter.Reload},
			{after: time.Minute, addr: a1, ua: chromeUA, want: v},
		}},
		{"no window", []string{"reload=off"}, []hit{
			{addr: a1, ua: chromeUA, want: v, newVisitor: true},
			{addr: a1, ua: chromeUA, want: v},
			{addr: a1, ua: chromeUA, want: v},
		}},
		{"crawlers, link previews and client libraries are bots", nil, []hit{
			{addr: a1, ua: googlebotUA, want: counter.Bot},
			{addr: a1, ua: bingbotUA, want: counter.Bot},
			{addr: a1, ua: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", want: counter.Bot},
			{addr: a1, ua: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", want: counter.Bot},
			{addr: a1, ua: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", want: counter.Bot},
			{addr: a1, ua: "TelegramBot (like TwitterBot)", want: counter.Bot},
			{addr: a1, ua: "WhatsApp/2.23.20.0", want: counter.Bot},
			{addr: a1, ua: "curl/8.5.0", want: counter.Bot},
			{addr: a1, ua: "Wget/1.21.4", want: counter.Bot},
			{addr: a1, ua: "python-requests/2.31.0", want: counter.Bot},
			{addr: a1, ua: "Go-http-client/1.1", want: counter.Bot},
			{addr: a1, ua: "", want: counter.Bot},                                                       // no User-Agent at all
			{addr: a1, ua: chromeUA + strings.Repeat(" x", imagehit.MaxUserAgent/2), want: counter.Bot}, // longer than any browser's
			{addr: a1, ua: iphoneUA, want: v, newVisitor: true},
		}},
		{"prefetches", nil, []hit{
			{addr: a1, ua: chromeUA, hdr: []string{"Sec-Purpose", "prefetch"}, want: counter.Prefetch},
			{addr: a1, ua: chromeUA, hdr: []string{"Sec-Purpose", "prefetch;prerender"}, want: counter.Prefetch},
			{addr: a1, ua: chromeUA, hdr: []string{"Purpose", "prefetch"}, want: counter.Prefetch},
			{addr: a1, ua: firefoxUA, hdr: []string{"X-Moz", "prefetch"}, want: counter.Prefetch},
			// The prefetches did not make the visitor known: his view counts.
			{addr: a1, ua: chromeUA, want: v, newVisitor: true},
		}},
		{"GitHub's image proxy counts from its addresses, never as a visitor", nil, []hit{
			{addr: camoAddr, ua: camoUA, want: counter.GitHub},
			{addr: camoAddr, ua: camoUA, want: counter.GitHub}, // no reload window: every reader comes from here
			{addr: camoAddr, ua: camoUA, want: counter.GitHub},
			{addr: "2606:50c0:8000::153", ua: camoUA, want: counter.GitHub},
		}},
		{"GitHub's User-Agent from elsewhere is an ordinary hit: a bot's", nil, []hit{
			{addr: a1, ua: camoUA, want: counter.Bot},
			{addr: a1, ua: camoUA, want: counter.Bot},
			{addr: "9.234.106.63", ua: camoUA, want: counter.Bot}, // Actions runners' space, where anyone's code runs
		}},
		{"ignored addresses and networks", []string{"ignore=198.51.100.0/24,2001:db8::/32,203.0.113.77"}, []hit{
			{addr: a1, ua: chromeUA, want: counter.Ignored},
			{addr: "2001:db8::5", ua: chromeUA, want: counter.Ignored},
			{addr: "::ffff:198.51.100.200", ua: chromeUA, want: counter.Ignored},
			{addr: "203.0.113.77", ua: chromeUA, want: counter.Ignored},
			{addr: "203.0.113.78", ua: chromeUA, want: v, newVisitor: true},
			{addr: "2001:db9::5", ua: chromeUA, want: v, newVisitor: true},
		}},
		{"allowed referrers, with wildcards", []string{"referrers=example.org,*.example.net"}, []hit{
			{addr: a1, ua: chromeUA, hdr: []string{"Referer", "https://example.org/page"}, want: v, newVisitor: true},
			{addr: a2, ua: chromeUA, hdr: []string{"Referer", "https://blog.example.net/x"}, want: v, newVisitor: true},
			{addr: "192.0.2.1", ua: chromeUA, hdr: []string{"Referer", "https://a.b.example.net/"}, want: v, newVisitor: true},
			{addr: "192.0.2.2", ua: chromeUA, hdr: []string{"Referer", "https://example.net/"}, want: counter.Foreign},
			{addr: "192.0.2.3", ua: chromeUA, hdr: []string{"Referer", "https://www.example.org/"}, want: counter.Foreign},
			{addr: "192.0.2.4", ua: chromeUA, hdr: []string{"Referer", "https://evil.example/?u=example.org"}, want: counter.Foreign},
			{addr: "192.0.2.5", ua: chromeUA, hdr: []string{"Referer", "https://notexample.net/"}, want: counter.Foreign},
			{addr: "192.0.2.6", ua: chromeUA, want: v, newVisitor: true}, // no Referer: stripped by the browser
			{addr: "192.0.2.7", ua: chromeUA, hdr: []string{"Referer", "https://EXAMPLE.ORG:443/"}, want: v, newVisitor: true},
		}},
		{"no referrer list: every page counts", nil, []hit{
			{addr: a1, ua: chromeUA, hdr: []string{"Referer", "https://elsewhere.example/"}, want: v, newVisitor: true},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachMode(t, func(t *testing.T, mode Mode) {
				app := newClockApp(t, mode, c.settings...)
				var want counter.Tally
				for i, h := range c.hits {
					w := app.send(h)
					if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "image/png" {
						t.Fatalf("hit %d: %d %s %s", i, w.Code, w.Header().Get("Content-Type"), w.Header().Get(errorHeader))
					}
					want.Add(counter.Outcome{Kind: h.want, NewVisitor: h.newVisitor})
					got, info := app.today(t)
					if got != want {
						t.Fatalf("after hit %d (%s from %s, %v): tally %+v\nwant %+v", i, h.ua, h.addr, h.hdr, got, want)
					}
					if info.Count != want.Views || info.Visitors != want.Visitors {
						t.Fatalf("after hit %d: views %d visitors %d; want %d, %d", i, info.Count, info.Visitors, want.Views, want.Visitors)
					}
				}
				if app.logs.Len() > 0 {
					t.Errorf("log: %s", app.logs)
				}
			})
		})
	}
}

// A reload across midnight is still a reload; the visitor is new to the
// new day all the same when his next view counts.
func TestReloadAcrossMidnight(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		app := newClockApp(t, mode)
		midnight := testNow.Truncate(24 * time.Hour).Add(24 * time.Hour)
		app.now = midnight.Add(-10 * time.Minute)
		for i, h := range []hit{
			{addr: "198.51.100.7", ua: chromeUA, want: counter.View},
			{after: 20 * time.Minute, addr: "198.51.100.7", ua: chromeUA, want: counter.Reload},
			{after: 25 * time.Minute, addr: "198.51.100.7", ua: chromeUA, want: counter.View},
		} {
			app.send(h)
			got, _ := app.today(t)
			if i == 1 && got.NotCounted[counter.Reload] != 1 {
				t.Errorf("10 minutes past midnight, 20 after a view: tally %+v; want a reload", got)
			}
			if i == 2 && (got.Views != 1 || got.Visitors != 1) {
				t.Errorf("35 minutes past midnight: tally %+v; want a view by a new visitor of the day", got)
			}
		}
	})
}

// The image shows views, or visitors when the counter says so.
func TestImageShowsVisitors(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		app := newClockApp(t, mode, "show=visitors", "reload=off")
		for _, addr := range []string{"192.0.2.1", "192.0.2.1", "192.0.2.2", "192.0.2.1"} {
			app.send(hit{addr: addr, ua: chromeUA})
		}
		if n := total(t, app.App, "c"); n != 2 {
			t.Errorf("a counter that shows visitors reads %d; want 2 (4 views by 2 visitors)", n)
		}
		_, info := app.today(t)
		if info.Count != 4 || info.Visitors != 2 {
			t.Errorf("views %d visitors %d; want 4 and 2", info.Count, info.Visitors)
		}
	})
}

// The owner's browser, marked by the cookie from the statistics page, is
// tallied as the owner's; another counter's mark, or a forged one, is not.
func TestOwnerCookie(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		app := newClockApp(t, mode)
		db, err := store.Open(app.cfg.DB, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		key, err := db.OwnerKey()
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range []hit{
			{addr: "192.0.2.1", ua: chromeUA, hdr: []string{"Cookie", ownerCookie + "=" + ownerToken("c", key)}, want: counter.Owner},
			{addr: "192.0.2.2", ua: chromeUA, hdr: []string{"Cookie", ownerCookie + "=" + ownerToken("other", key)}, want: counter.View, newVisitor: true},
			{addr: "192.0.2.3", ua: chromeUA, hdr: []string{"Cookie", ownerCookie + "=" + ownerToken("c", bytes.Repeat([]byte{1}, 32))}, want: counter.View, newVisitor: true},
			{addr: "192.0.2.4", ua: chromeUA, hdr: []string{"Cookie", ownerCookie + "=garbage"}, want: counter.View, newVisitor: true},
		} {
			app.send(h)
			got, _ := app.today(t)
			if i == 0 && got.NotCounted[counter.Owner] != 1 {
				t.Errorf("the owner's hit: tally %+v", got)
			}
			if i > 0 && (got.Views != uint64(i) || got.NotCounted[counter.Owner] != 1) {
				t.Errorf("hit %d with a mark not valid for c: tally %+v", i, got)
			}
		}
	})
}

// Without a runtime directory to keep visitors in, a hit still counts, as
// a view by a visitor not known, and the owner reads why.
func TestHitCountsWithoutVisitorTable(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		app := newClockApp(t, mode)
		app.App.proc.Visitors.Close()
		app.App.proc.Run = rundir.New("/proc/no/such/dir", app.cfg.DB, nil)
		app.App.proc.Visitors = seen.Open(app.App.proc.Run)
		for range 3 {
			if w := app.send(hit{addr: "192.0.2.1", ua: chromeUA}); w.Code != http.StatusOK {
				t.Fatalf("status %d", w.Code)
			}
		}
		got, _ := app.today(t)
		if got.Views != 3 || got.Visitors != 0 {
			t.Errorf("tally %+v; want 3 views, no visitor known", got)
		}
		if !strings.Contains(app.logs.String(), "visitor not known") {
			t.Errorf("log %q; want the reason", app.logs)
		}
	})
}
