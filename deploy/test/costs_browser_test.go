package test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hitcounter/cgi/meter"
	"hitcounter/store"
)

// TestBrowserCostsPanel opens a statistics page served by the real
// lighttpd in Chromium, at desktop and phone width, with a month of costs
// in the history (the last day's commits slow, so a warning is kept) and
// today's real hits: the panel shows its five rows, each with a drawn
// line, and the warning, and on a phone the page does not scroll
// sideways. Screenshots go where TestBrowserLoginAndChart's do.
func TestBrowserCostsPanel(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	bin := serverBinary(t, "lighttpd", "lighttpd", "/usr/sbin/lighttpd")
	cgiDir, dbPath := installCounter(t)
	srv := startLighttpd(t, bin, cgiDir, dbPath)
	admin(t, cgiDir, dbPath, "create", "cp", "reload=off")
	seedCosts(t, dbPath)
	countHits(t, srv.URL, "cp", 5)

	shots := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	eval := func(what, js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s (%s): %v", what, js, err)
		}
		return v
	}
	if resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(srv.URL+"/cgi-bin/counter.cgi/cp/stats")); err != nil || resp.Status != 200 {
		t.Fatalf("open the statistics page: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("table.costs"))); err != nil {
		t.Fatalf("no costs panel: %v", err)
	}
	rows := eval("rows", `[...document.querySelectorAll("table.costs tbody tr")].map(tr =>
		tr.cells[0].textContent + "=" + (tr.cells[1].textContent !== "–") + ":" + tr.querySelectorAll("svg.spark polyline:not(.dot)").length).join()`)
	if rows != "hit p50=true:1,hit p99=true:1,commit p50=true:1,commit p99=true:1,login check p50=false:1" {
		t.Errorf("the panel's rows (figure=has today's:lines) are %s", rows)
	}
	if got := eval("points", `[...document.querySelectorAll("table.costs svg.spark polyline:not(.dot)")].map(l => l.getAttribute("points").trim().split(" ").length).join()`); got != "30,30,30,30,5" {
		t.Errorf("the lines have %s points, want 30 each (29 days and today), and 5 for the days with logins", got)
	}
	if got := eval("warning", `document.querySelector("section.costs .msg.warn")?.textContent ?? ""`); !strings.Contains(got, ": commit p99 was 40ms") {
		t.Errorf("the panel's warning reads %q", got)
	}
	saveScreenshot(t, ctx, shots, "costs.png")

	if err := chromedp.Do(ctx, chromedp.Steps(
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("table.costs")),
	)); err != nil {
		t.Fatalf("phone viewport: %v", err)
	}
	if got := eval("phone width", `JSON.stringify([document.documentElement.scrollWidth, window.innerWidth])`); !fits(got) {
		t.Errorf("on a phone the page is [scrollWidth, innerWidth] = %s wide: it scrolls sideways", got)
	}
	if got := eval("spark width", `String(Math.round(document.querySelector("svg.spark").getBoundingClientRect().width))`); got == "0" {
		t.Error("on a phone the sparkline has no width")
	}
	saveScreenshot(t, ctx, shots, "costs-phone.png")
}

// seedCosts folds 29 days of costs before today into the history at
// dbPath: hits of 2 to 4 ms and commits of about 1 ms, a login now and
// then, the last day's commits slow.
func seedCosts(t *testing.T, dbPath string) {
	t.Helper()
	db, err := store.Open(dbPath, store.Options{Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC()
	var days []meter.Day
	for i := 29; i >= 1; i-- {
		wave := time.Duration(1000*math.Sin(float64(i)/3)) * time.Microsecond
		d := meter.Day{Date: now.AddDate(0, 0, -i).Format(time.DateOnly), Build: "test"}
		d.Kinds[meter.Hit] = meter.Figures{Count: 300, Wall: [3]time.Duration{3*time.Millisecond + wave, 5 * time.Millisecond, 8*time.Millisecond + 2*wave}}
		d.Kinds[meter.Commit] = meter.Figures{Count: 300, Wall: [3]time.Duration{time.Millisecond + wave/4, 2 * time.Millisecond, 4 * time.Millisecond}}
		if i%5 == 0 {
			d.Kinds[meter.Login] = meter.Figures{Count: 3, Wall: [3]time.Duration{80 * time.Millisecond, 90 * time.Millisecond, 95 * time.Millisecond}}
		}
		if i == 1 {
			d.Kinds[meter.Commit].Wall[2] = 40 * time.Millisecond
		}
		days = append(days, d)
	}
	w, err := db.FoldCosts(days, now)
	if err != nil || len(w) != 1 {
		t.Fatalf("seed the costs: warnings %q, %v; want the last day's", w, err)
	}
}
