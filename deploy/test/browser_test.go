package test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hitcounter/counter"
	"hitcounter/store"
)

// chromiumPath is where Debian's chromium package puts its launcher.
const chromiumPath = "/usr/bin/chromium"

// TestBrowserLoginAndChart logs in to a protected statistics page served by
// the real lighttpd with Debian's Chromium, headless, the way an owner
// does: the form, the password typed in, the chart. It saves screenshots
// of the page (desktop and phone width) under the test's temp dir, and into
// $COUNTER_ARTIFACTS when that is set, for a person to look at.
//
// chromedp is imported only here, in a _test.go file, so it never reaches
// the binary.
func TestBrowserLoginAndChart(t *testing.T) {
	const (
		name     = "br"
		hits     = 5
		password = "pass word Ünï 42"
	)
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	bin := serverBinary(t, "lighttpd", "lighttpd", "/usr/sbin/lighttpd")
	cgiDir, dbPath := installCounter(t)
	srv := startLighttpd(t, bin, cgiDir, dbPath)
	admin(t, cgiDir, dbPath, "create", name, "reload=off") // one client, every hit counts
	countHits(t, srv.URL, name, hits)
	tallyKinds(t, dbPath, name)
	adminStdin(t, cgiDir, dbPath, strings.NewReader(password+"\n"), "passwd", name)

	shots := t.TempDir()

	// One deadline for the browser and everything done with it.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	run := func(what string, a chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, a); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(what, js string) string { // every result as a string, to compare
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s (%s): %v", what, js, err)
		}
		return v
	}

	pageURL := srv.URL + "/cgi-bin/counter.cgi/" + name + "/stats"
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(pageURL))
	if err != nil {
		t.Fatalf("open %s: %v", pageURL, err)
	}
	if resp.Status != 200 {
		t.Errorf("open %s: got status %d, want 200", pageURL, resp.Status)
	}
	run("wait for the login form", chromedp.WaitVisible(chromedp.CSS(`form[action="login"] input[name=password]`)))
	if got := eval("chart before login", `String(document.querySelectorAll("svg.chart").length)`); got != "0" {
		t.Errorf("the login form shows %s charts, want none", got)
	}

	run("type the password", chromedp.SendKeys(chromedp.CSS("input[name=password]"), password))
	// The click posts the form; the 303 leads back to stats, with the cookie.
	resp, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`form[action="login"] button[type=submit]`)))
	if err != nil {
		t.Fatalf("log in: %v", err)
	}
	if resp.Status != 200 || resp.URL != pageURL {
		t.Errorf("after login: got %d at %s, want 200 at %s", resp.Status, resp.URL, pageURL)
	}
	run("wait for the chart", chromedp.WaitVisible(chromedp.CSS("svg.chart")))
	if got := eval("bars", `String(document.querySelectorAll("svg.chart rect.bar").length)`); got != "90" {
		t.Errorf("chart has %s bars, want 90", got)
	}
	total := `[...document.querySelectorAll(".card")].filter(c => c.querySelector("span").textContent === "total").map(c => c.querySelector("b").textContent).join()`
	// The real hits come from one browser: one visitor more.
	if got, want := eval("totals", total), strconv.Itoa(hits+tallyViews)+","+strconv.Itoa(tallyVisitors+1); got != want {
		t.Errorf("the totals of views and visitors show %q, want %q", got, want)
	}
	notCounted := `[...document.querySelectorAll("table.kinds tr.sum td.n")].map(td => td.textContent).join()`
	if got := eval("not counted", notCounted); got != tallyNotCounted {
		t.Errorf("all not counted (today, 7 and 30 days) shows %q, want %q", got, tallyNotCounted)
	}
	// The owner button: the page says the browser is counted, then not.
	if got := eval("owner state", `document.querySelector("form.owner b").textContent`); got != "This browser is counted." {
		t.Errorf("before the button the page says %q", got)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`form.owner button[type=submit]`))); err != nil {
		t.Fatalf("mark the browser: %v", err)
	}
	run("wait for the page", chromedp.WaitVisible(chromedp.CSS("form.owner")))
	if got := eval("owner state", `document.querySelector("form.owner b").textContent`); got != "This browser is not counted." {
		t.Errorf("after the button the page says %q", got)
	}
	if got := eval("cookies seen by scripts", `document.cookie`); got != "" {
		t.Errorf("document.cookie is %q, want the session hidden from scripts (HttpOnly)", got)
	}
	saveScreenshot(t, ctx, shots, "stats.png")

	// A phone: the page must fit its width, without sideways scrolling.
	run("phone viewport", chromedp.Steps(
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("svg.chart")),
	))
	overflow := `JSON.stringify([document.documentElement.scrollWidth, window.innerWidth])`
	if got := eval("phone width", overflow); !fits(got) {
		t.Errorf("on a phone the page is [scrollWidth, innerWidth] = %s wide: it scrolls sideways", got)
	}
	saveScreenshot(t, ctx, shots, "stats-phone.png")
}

// The hits tallyKinds adds, and what the page must show of them.
const (
	tallyViews      = 5
	tallyVisitors   = 4
	tallyNotCounted = "7,13,16" // today, last 7 days, last 30 days
)

// tallyKinds adds hits of every kind to counter name through the store,
// as the hit path judges them, so the page shows each figure non-zero:
// today and days ago, within and past a week.
func tallyKinds(t *testing.T, dbPath, name string) {
	t.Helper()
	db, err := store.Open(dbPath, store.Options{Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	hits := []struct {
		back, n, visitors int
		kind              counter.Kind
	}{
		{0, 2, 2, counter.View}, {0, 1, 0, counter.GitHub}, {0, 2, 0, counter.Reload}, {0, 1, 0, counter.Bot},
		{0, 1, 0, counter.Prefetch}, {0, 1, 0, counter.Owner}, {0, 1, 0, counter.Foreign}, {0, 1, 0, counter.Ignored},
		{2, 1, 1, counter.View}, {2, 6, 0, counter.Bot},
		{12, 1, 1, counter.View}, {12, 3, 0, counter.Reload},
	}
	for _, h := range hits {
		for i := range h.n {
			o := counter.Outcome{Kind: h.kind, NewVisitor: i < h.visitors}
			v := store.Visit{Name: name, Now: now.AddDate(0, 0, -h.back), RefHost: "blog.example",
				Outcome: o}
			if _, err := db.Visit(v); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fits reports whether a JSON pair [scrollWidth, innerWidth] has no overflow.
func fits(pair string) bool {
	a, b, ok := strings.Cut(strings.Trim(pair, "[]"), ",")
	sw, err1 := strconv.Atoi(a)
	iw, err2 := strconv.Atoi(b)
	return ok && err1 == nil && err2 == nil && iw > 0 && sw <= iw
}

// chromiumSaid is what a failed test shows of the browser's output: its
// last lines, without the D-Bus complaints a machine without a session bus
// makes it print by the dozen, which would bury the test's own message.
func chromiumSaid(output []byte) string {
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(output)), "\n") {
		if line != "" && !strings.Contains(line, "dbus/") {
			kept = append(kept, line)
		}
	}
	const last = 30
	if len(kept) > last {
		kept = append([]string{fmt.Sprintf("(%d lines before these)", len(kept)-last)}, kept[len(kept)-last:]...)
	}
	return strings.Join(kept, "\n")
}

// newBrowser starts headless Chromium with a fresh profile and returns a
// chromedp context for one tab of it; the browser stops when ctx ends or
// the test does.
func newBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	profile := t.TempDir()
	var output bytes.Buffer // the browser's stdout and stderr, for failures
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox, // this test may run as root, which the sandbox refuses
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
		chromedp.CombinedOutput(&output),
	)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	// Registered after TempDir, so this runs before the profile is removed:
	// stop the browser, wait for it, then give its last writes time to end.
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		if said := chromiumSaid(output.Bytes()); t.Failed() && said != "" {
			t.Logf("chromium said:\n%s", said)
		}
		var err error
		for range 50 {
			if err = os.RemoveAll(profile); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("remove the browser profile: %v", err)
	})
	return tabCtx
}

// setUserAgent makes the tab of ctx send ua as its User-Agent.
func setUserAgent(t *testing.T, ctx context.Context, ua string) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua})
		return err
	}))
	if err != nil {
		t.Fatalf("set the User-Agent: %v", err)
	}
}

// saveScreenshot takes a full-page PNG of the tab into dir and, if
// $COUNTER_ARTIFACTS is set, into that folder too.
func saveScreenshot(t *testing.T, ctx context.Context, dir, file string) {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", file, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s: %v", file, err)
	}
	dirs := []string{dir}
	if d := os.Getenv("COUNTER_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	var errs []error
	for _, d := range dirs {
		p := filepath.Join(d, file)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			errs = append(errs, err)
			continue
		}
		t.Logf("screenshot %dx%d: %s", img.Bounds().Dx(), img.Bounds().Dy(), p)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
