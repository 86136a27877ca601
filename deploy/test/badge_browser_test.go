package test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// badgePage shows a counter and badges the way a README or a blog's index
// does, reading nothing (count=0), and the count as JSON fetched by a
// script from another origin, which only CORS lets it read.
const badgePage = `<!doctype html>
<meta charset="utf-8">
<meta name="color-scheme" content="light dark">
<title>badges</title>
<style>body{font:16px sans-serif;background:Canvas;color:CanvasText;margin:24px} p{display:flex;gap:12px;align-items:center}</style>
<p>Counter: <img id="digits" src="/cgi-bin/counter.cgi/bd.svg?theme=auto&count=0" alt="views">
<p>Badges: <img id="badge" src="/cgi-bin/counter.cgi/bd.svg?style=badge&theme=auto&count=0" alt="views">
<img id="badge-png" src="/cgi-bin/counter.cgi/bd.png?style=badge&label=Besucher%20%C3%BCberall&color=green&count=0" alt="Besucher">
<img id="badge-alone" src="/cgi-bin/counter.cgi/bd.svg?style=badge&label=&color=rebeccapurple&count=0" alt="views">
<p>From a script: <span id="json">…</span>
<script>
fetch("JSON_URL").then(r => r.json()).then(j => { document.getElementById("json").textContent = j.count + " views, " + j.today_visitors + " visitors today" })
  .catch(e => { document.getElementById("json").textContent = "refused: " + e })
</script>
`

// TestBrowserBadges opens a page with a counter and badges under the real
// lighttpd in Chromium, in light mode and in dark mode, and saves both
// screenshots for a person to look at: the SVG counter takes the dark
// colours when the viewer's system is dark, the badges read on both, and a
// script on another origin reads the JSON.
func TestBrowserBadges(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	bin := serverBinary(t, "lighttpd", "lighttpd", "/usr/sbin/lighttpd")
	cgiDir, dbPath := installCounter(t)
	srv := startLighttpdWith(t, bin, cgiDir, dbPath, false, nil, htmlType)
	admin(t, cgiDir, dbPath, "create", "bd", "reload=off")
	countHits(t, srv.URL, "bd", 3)
	htdocs := filepath.Join(filepath.Dir(srv.CGILog), "htdocs")
	// The page is on 127.0.0.1; the script asks localhost, another origin.
	other := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/cgi-bin/counter.cgi/bd.json"
	if err := os.WriteFile(filepath.Join(htdocs, "badges.html"), []byte(strings.Replace(badgePage, "JSON_URL", other, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	shots := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	loaded := `[...document.images].every(i => i.complete && i.naturalWidth > 1) && !document.getElementById("json").textContent.startsWith("…")`
	eval := func(what, js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s (%s): %v", what, js, err)
		}
		return v
	}
	for _, mode := range []string{"light", "dark"} {
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: mode}}})
			return err
		}))
		if err != nil {
			t.Fatalf("%s: emulate the colour scheme: %v", mode, err)
		}
		if resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(srv.URL+"/badges.html")); err != nil || resp.Status != 200 {
			t.Fatalf("%s: open the page: %v", mode, err)
		}
		wait, cancelWait := context.WithTimeout(ctx, 20*time.Second)
		_, err = chromedp.Run(wait, chromedp.Poll[bool](loaded, chromedp.WithPollingInterval(10*time.Millisecond)))
		cancelWait()
		if err != nil {
			t.Fatalf("%s: the images and the JSON did not load: %v", mode, err)
		}
		if text := eval("json", `document.getElementById("json").textContent`); text != "3 views, 1 visitors today" {
			t.Errorf("%s: the script read %q, want the JSON across origins", mode, text)
		}
		rects := eval("boxes", `JSON.stringify(Object.fromEntries([...document.images].map(i => {
			const r = i.getBoundingClientRect(); return [i.id, [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)]] })))`)
		var box map[string][4]int
		if err := json.Unmarshal([]byte(rects), &box); err != nil {
			t.Fatal(err)
		}
		if box["badge"][3] != 20 || box["badge"][2] < 50 || box["badge-png"][2] <= box["badge"][2] {
			t.Errorf("%s: badges laid out as %v", mode, box)
		}
		shot := screenshot(t, ctx, shots, "badges-"+mode+".png")
		// The digits' background, just inside the image's corner.
		d := box["digits"]
		bg := shot.At(d[0]+1, d[1]+1)
		r, g, b, _ := bg.RGBA()
		want := map[string][3]uint32{"light": {0xff, 0xff, 0xff}, "dark": {0x0d, 0x11, 0x17}}[mode]
		if [3]uint32{r >> 8, g >> 8, b >> 8} != want {
			t.Errorf("%s: the counter's background is %v, want %x", mode, bg, want)
		}
	}
}

// screenshot saves a screenshot of the tab as saveScreenshot does and
// returns it decoded.
func screenshot(t *testing.T, ctx context.Context, dir, file string) image.Image {
	t.Helper()
	saveScreenshot(t, ctx, dir, file)
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}
