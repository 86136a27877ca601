package test

import (
	"context"
	"encoding/json"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// mistakePage is a blog post as an owner writes it, with the counter's
// tag in its footer: TAG is the tag, with a mistake in it.
const mistakePage = `<!doctype html>
<html lang="en"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>My blog: hello</title>
<style>body{font:17px/1.5 Georgia,serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
footer{border-top:1px solid #ddd;margin-top:2rem;padding-top:.5rem;font:14px sans-serif;color:#666;display:flex;gap:.5rem;align-items:center}</style>
<h1>Hello, world</h1>
<p>This is the first post of my blog, served by lighttpd on a Raspberry Pi.
At the bottom, the counter: its tag has a mistake in it (MISTAKE).</p>
<footer>Views: TAG</footer>
`

// TestBrowserMistakes opens, in Debian's Chromium under the real lighttpd,
// two static pages whose counter tag has a mistake, at a desktop's and a
// phone's width: a misspelt counter name (blgo for blog) and a bad value
// (fg=00ff0, five hex digits). Each error image must be visible on the
// page, at least 16 pixels wide as the page reads it, red where it is
// drawn in the screenshot, and answer with its status and X-Counter-Error.
// The screenshots are saved for a person to look at ($COUNTER_ARTIFACTS).
func TestBrowserMistakes(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	bin := serverBinary(t, "lighttpd", "lighttpd", "/usr/sbin/lighttpd")
	cgiDir, dbPath := installCounter(t)
	srv := startLighttpdWith(t, bin, cgiDir, dbPath, false, nil, htmlType)
	admin(t, cgiDir, dbPath, "create", "blog")
	htdocs := filepath.Join(filepath.Dir(srv.CGILog), "htdocs")
	pages := []struct {
		file, tag, mistake string
		status             int
		header             string
		height             int // the image's, in CSS pixels
	}{
		{"misspelt-counter.html", `<img id="counter" src="/cgi-bin/counter.cgi/blgo.png" alt="views">`,
			"blgo for blog", 404, "no such counter", 30},
		{"bad-value.html", `<img id="counter" src="/cgi-bin/counter.cgi/blog.png?fg=00ff0&amp;size=24" alt="views">`,
			"fg=00ff0, five hex digits", 400, "fg: must be a CSS colour name (red, rebeccapurple, transparent) or hex RGB, RGBA, RRGGBB or RRGGBBAA", 36},
	}
	for _, p := range pages {
		html := strings.NewReplacer("TAG", p.tag, "MISTAKE", p.mistake).Replace(mistakePage)
		if err := os.WriteFile(filepath.Join(htdocs, p.file), []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	shots := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	// As TestBrowserSite does: a desktop Chrome to the counter, not a bot.
	setUserAgent(t, ctx, chromeUA)
	eval := func(what, js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s (%s): %v", what, js, err)
		}
		return v
	}
	for _, device := range []struct {
		name string
		view chromedp.Action[chromedp.Void]
	}{
		{"desktop", chromedp.EmulateViewport(1280, 800)},
		{"phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait)},
	} {
		if err := chromedp.Do(ctx, device.view); err != nil {
			t.Fatalf("%s: %v", device.name, err)
		}
		for _, p := range pages {
			what := device.name + " " + p.file
			if resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(srv.URL+"/"+p.file)); err != nil || resp.Status != 200 {
				t.Fatalf("%s: open the page: %v", what, err)
			}
			wait, cancelWait := context.WithTimeout(ctx, 20*time.Second)
			_, err := chromedp.Run(wait, chromedp.Poll[bool](`document.getElementById("counter").complete`, chromedp.WithPollingInterval(10*time.Millisecond)))
			cancelWait()
			if err != nil {
				t.Fatalf("%s: the image did not load: %v", what, err)
			}
			var img struct {
				NaturalWidth, NaturalHeight float64
				X, Y, Width, Height, Scale  float64
			}
			js := `(() => { const i = document.getElementById("counter"), r = i.getBoundingClientRect();
				return JSON.stringify({NaturalWidth: i.naturalWidth, NaturalHeight: i.naturalHeight,
					X: r.x, Y: r.y + window.scrollY, Width: r.width, Height: r.height, Scale: window.devicePixelRatio}) })()`
			if err := json.Unmarshal([]byte(eval(what, js)), &img); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: the error image is %vx%v, shown %vx%v at (%v, %v), device pixel ratio %v",
				what, img.NaturalWidth, img.NaturalHeight, img.Width, img.Height, img.X, img.Y, img.Scale)
			if img.NaturalWidth < 16 || img.Width < 16 || img.NaturalHeight != float64(p.height) {
				t.Errorf("%s: the error image is %vx%v (shown %vx%v), want 16 wide at least and %d high",
					what, img.NaturalWidth, img.NaturalHeight, img.Width, img.Height, p.height)
			}
			// The answer, as the page's own script can read it.
			got := eval(what, `fetch(document.getElementById("counter").src).then(r => r.status + " " + r.headers.get("X-Counter-Error"))`)
			if want := strconv.Itoa(p.status) + " " + p.header; got != want {
				t.Errorf("%s: the image answered %q, want %q", what, got, want)
			}
			if device.name == "phone" {
				if got := eval(what, `JSON.stringify([document.documentElement.scrollWidth, window.innerWidth])`); !fits(got) {
					t.Errorf("%s: [scrollWidth, innerWidth] = %s: the page scrolls sideways", what, got)
				}
			}
			shot := screenshot(t, ctx, shots, "mistake-"+strings.TrimSuffix(p.file, ".html")+"-"+device.name+".png")
			// Just inside the image's left edge, half-way down: the badge's
			// red, drawn, not the page's white.
			x, y := int((img.X+2)*img.Scale), int((img.Y+img.Height/2)*img.Scale)
			c := color.NRGBAModel.Convert(shot.At(x, y)).(color.NRGBA)
			if c.R < 0x90 || c.G > 0x50 || c.B > 0x50 {
				t.Errorf("%s: the screenshot at (%d, %d) is %v, want the error image's red", what, x, y, c)
			}
		}
	}
	// Nothing was counted, nor made: the tags asked for no counter that
	// exists with a style that is valid.
	if out := admin(t, cgiDir, dbPath, "list"); strings.Contains(out, "blgo") {
		t.Errorf("a counter blgo was made:\n%s", out)
	}
	if t.Failed() {
		if log, err := srv.CGIStderr(); err == nil {
			t.Logf("counter.cgi's stderr:\n%s", log)
		}
	}
}
