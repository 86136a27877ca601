package test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hitcounter/counter"
	"hitcounter/store"
)

// overviewCSP is the statistics pages' Content-Security-Policy, which the
// overview keeps.
const overviewCSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// TestBrowserOverview opens the owner's overview (issue 40, item 2),
// served as CGI by the real lighttpd, in Chromium, at desktop and phone
// width, with three counters and a site of known figures: the owner's
// login form first, which names no counter; then, logged in through it,
// every row, sorting driven by the headings' links (a first click largest
// first, a second the other way), a counter's link to its statistics, and
// the button that marks this browser as the owner's on every counter,
// seen on a counter's page after. Screenshots go where
// TestBrowserLoginAndChart's do.
func TestBrowserOverview(t *testing.T) {
	const password = "the owner's own"
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	lighttpd := serverBinary(t, "lighttpd", "lighttpd", "/usr/sbin/lighttpd")
	cgiDir, db := installCounter(t)
	srv := startLighttpd(t, lighttpd, cgiDir, db)
	for _, name := range []string{"blog", "friend", "guestbook"} {
		admin(t, cgiDir, db, "create", name)
	}
	admin(t, cgiDir, db, "create", "docs", "-site", "-hosts", "docs.example")
	overviewDays(t, db)
	adminStdin(t, cgiDir, db, strings.NewReader(password+"\n"), "passwd", "-owner")
	root := srv.URL + "/cgi-bin/counter.cgi/"

	shots := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	run := func(what string, a chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, a); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(what, js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s (%s): %v", what, js, err)
		}
		return v
	}
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(root))
	if err != nil || resp.Status != 200 {
		t.Fatalf("open %s: %v", root, err)
	}
	if got := resp.Headers["Content-Security-Policy"]; got != overviewCSP {
		t.Errorf("the owner's form: Content-Security-Policy %q, want %q", got, overviewCSP)
	}
	run("wait for the owner's form", chromedp.WaitVisible(chromedp.CSS(`form[action="login"] input[name=password]`)))
	if got := eval("names", `["blog", "docs", "friend", "guestbook"].filter(n => document.documentElement.outerHTML.includes(n)).join()`); got != "" {
		t.Errorf("the owner's form names %s", got)
	}
	run("type the password", chromedp.SendKeys(chromedp.CSS("input[name=password]"), password))
	resp, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`form[action="login"] button[type=submit]`)))
	if err != nil {
		t.Fatalf("log in: %v", err)
	}
	if resp.Status != 200 || resp.URL != root {
		t.Errorf("after the login: %d at %s, want 200 at %s", resp.Status, resp.URL, root)
	}
	if got := resp.Headers["Content-Security-Policy"]; got != overviewCSP {
		t.Errorf("the overview: Content-Security-Policy %q, want %q", got, overviewCSP)
	}
	run("wait for the table", chromedp.WaitVisible(chromedp.CSS("table.all")))
	names := `[...document.querySelectorAll("table.all tbody tr")].map(tr => tr.cells[0].querySelector("a").textContent).join()`
	if got := eval("rows", names); got != "blog,docs,friend,guestbook" {
		t.Errorf("rows %q, want blog,docs,friend,guestbook", got)
	}
	// today, yesterday, 7 days, its change, 30 days, its change.
	row := `[...document.querySelector("table.all tbody tr").cells].slice(2, 8).map(td => td.textContent).join("|")`
	if got := eval("blog's row", row); got != "4|2|26|+160 %|41|new" {
		t.Errorf("blog's row %q, want 4|2|26|+160 %%|41|new", got)
	}
	if got := eval("charts", `String(document.querySelectorAll("table.all svg.mini path").length)`); got != "4" {
		t.Errorf("%s small charts, want one a row", got)
	}
	if got := eval("top pages", `[...document.querySelectorAll("h2")].find(h => h.textContent.startsWith("Top pages")).nextElementSibling.querySelector("tbody td").textContent`); got != "/guide" {
		t.Errorf("the first of the top pages is %q, want /guide", got)
	}
	saveScreenshot(t, ctx, shots, "overview.png")

	// Sorting, by the headings' links alone.
	// click follows a link or a button to the page at path, and waits
	// for it to be there.
	click := func(what, sel, path string) {
		t.Helper()
		start := time.Now()
		run(what, chromedp.Click(chromedp.CSS(sel)))
		// Asked again until the new page answers: the old one's
		// context goes away under the question.
		for {
			there, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && location.pathname + location.search === `+strconv.Quote(path)))
			if err == nil && there {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("%s: never at %s: %v", what, path, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("%s: %s", what, time.Since(start).Round(time.Millisecond))
	}
	for _, tc := range []struct{ what, link, wantURL, want string }{
		{"7 days", `a[href^="?sort=7d&"]`, "?sort=7d&order=desc", "blog,docs,guestbook,friend"},
		{"7 days again", `a[href^="?sort=7d&"]`, "?sort=7d&order=asc", "friend,guestbook,docs,blog"},
		{"not counted", `a[href^="?sort=notcounted&"]`, "?sort=notcounted&order=desc", "guestbook,blog,docs,friend"},
		{"name", `a[href^="?sort=name&"]`, "?sort=name&order=asc", "blog,docs,friend,guestbook"},
		{"name again", `a[href^="?sort=name&"]`, "?sort=name&order=desc", "guestbook,friend,docs,blog"},
	} {
		click(tc.what, tc.link, "/cgi-bin/counter.cgi/"+tc.wantURL)
		if got := eval("rows", names); got != tc.want {
			t.Errorf("sorted by %s: %q, want %q", tc.what, got, tc.want)
		}
	}

	// This browser, on every counter: then blog's page says so.
	click("don't count this browser", `form.owner button[value="no"]`, "/cgi-bin/counter.cgi/")
	click("blog's link", `table.all a[href="blog/stats"]`, "/cgi-bin/counter.cgi/blog/stats")
	if got := eval("blog's page", `document.querySelector("form.owner b").textContent`); got != "This browser is not counted." {
		t.Errorf("blog's statistics after the overview's button: %q", got)
	}

	run("back to the overview", chromedp.Navigate(root))
	run("phone viewport", chromedp.Steps(
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("table.all")),
	))
	if got := eval("phone width", `JSON.stringify([document.documentElement.scrollWidth, window.innerWidth])`); !fits(got) {
		t.Errorf("on a phone the page is [scrollWidth, innerWidth] = %s wide: it scrolls sideways", got)
	}
	if got := eval("name in view", `String(document.querySelector("table.all tbody td").getBoundingClientRect().left >= 0)`); got != "true" {
		t.Error("on a phone the counters' names are not in view")
	}
	saveScreenshot(t, ctx, shots, "overview-phone.png")
}

// overviewDays gives blog, friend, guestbook and the site docs days of
// known figures:
//   - blog: today 4, yesterday 2, 3 days ago 20, 10 days ago 10, 20 days
//     ago 5: 26 over 7 days against 10 (+160 %), 41 over 30 against none;
//   - guestbook: today 1 and 30 bots, 5 days ago 6;
//   - friend: nothing;
//   - docs: 2 days ago /guide 12 and /about 3.
func overviewDays(t *testing.T, path string) {
	t.Helper()
	db, err := store.Open(path, store.Options{Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC()
	day := func(ago int, views uint64) counter.Day {
		return counter.Day{Date: now.AddDate(0, 0, -ago).Format(time.DateOnly), Tally: counter.Tally{Views: views, Visitors: views}}
	}
	bots := day(0, 1)
	bots.NotCounted[counter.Bot] = 30
	date := now.AddDate(0, 0, -2).Format(time.DateOnly)
	_, err = db.Import([]counter.Imported{
		{Name: "blog", Days: []counter.Day{day(20, 5), day(10, 10), day(3, 20), day(1, 2), day(0, 4)}},
		{Name: "guestbook", Days: []counter.Day{day(5, 6), bots}},
		{Name: "docs", Days: []counter.Day{day(2, 15)}, PageDays: []counter.PageDay{
			{Date: date, Page: "/guide", Views: 12, Visitors: 10}, {Date: date, Page: "/about", Views: 3, Visitors: 3}}},
	}, store.ImportOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
}
