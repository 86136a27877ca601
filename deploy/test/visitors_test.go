package test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// TestServerVisitorsAndReloads runs the visitor and reload rules behind
// each real server, as CGI and as FastCGI: a browser's first hit counts
// and makes a visitor, its reload at once does not move the count,
// another browser on the same address is another visitor, a crawler is a
// bot, a prefetch is a prefetch, and after the counter's reload window
// (2 s here) the first browser's hit counts again, as the same visitor.
func TestServerVisitorsAndReloads(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", "vr", "reload=2s")
		client := &http.Client{Timeout: 10 * time.Second}
		ctx := context.Background()
		url := srv.URL + "/cgi-bin/counter.cgi/vr.png"
		steps := []struct {
			what   string
			header []string
			views  uint64
		}{
			{"first view", nil, 1},
			{"reload", nil, 1},
			{"reload again", nil, 1},
			{"another browser", []string{"User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"}, 2},
			{"Googlebot", []string{"User-Agent", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, 2},
			{"prefetch", []string{"Sec-Purpose", "prefetch"}, 2},
		}
		start := time.Now()
		for _, s := range steps {
			resp, _, err := getWith(ctx, client, http.MethodGet, url, s.header...)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %v %v", s.what, resp, err)
			}
			if got := jsonCount(t, srv.URL, "vr"); got != s.views {
				t.Errorf("%s: count %d, want %d", s.what, got, s.views)
			}
		}
		time.Sleep(time.Until(start.Add(2100 * time.Millisecond)))
		if resp, _, err := get(ctx, client, http.MethodGet, url); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("after the window: %v %v", resp, err)
		}
		if got := jsonCount(t, srv.URL, "vr"); got != 3 {
			t.Errorf("after the reload window: count %d, want 3", got)
		}
		db, err := store.Open(dbPath, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		h, err := db.History("vr", start.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var got counter.Tally
		for _, d := range h.Days {
			got = got.Plus(d.Tally)
		}
		want := counter.Tally{Views: 3, Visitors: 2}
		want.NotCounted[counter.Reload] = 2
		want.NotCounted[counter.Bot] = 1
		want.NotCounted[counter.Prefetch] = 1
		if got != want && !crossedMidnight(start) {
			t.Errorf("%s: tally %+v\nwant %+v", srv.Name, got, want)
		}
		if out, err := srv.CGIStderr(); err != nil || out != "" {
			t.Errorf("CGI stderr: %q %v", out, err)
		}
	})
}

// crossedMidnight says whether a UTC day ended since start: a visitor is
// then new to the new day, and the figures of a test differ.
func crossedMidnight(start time.Time) bool {
	return start.UTC().Format(time.DateOnly) != time.Now().UTC().Format(time.DateOnly)
}
