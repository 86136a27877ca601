package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hitcounter/counter"
)

// TestBrowserDemoPageLooks opens the local server's demo page (the built
// binary's serve, on a port picked free) in Debian's Chromium, headless:
// every image on it, each built-in look and each set added with theme add
// (a still PNG folder and an animated GIF folder) among them, must load
// and have a width (naturalWidth > 0). It saves a screenshot of the page, as
// TestBrowserLoginAndChart does, for a person to look at.
func TestBrowserDemoPageLooks(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	bin := buildCounter(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	if out, err := exec.Command(bin, "create", "blog", "123456", "-db", db, "reload=off").CombinedOutput(); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	// Two sets of the owner's, a still one and an animated one, as the
	// demo page shows them beside the looks.
	sets := []string{"pix", "anim"}
	for i, set := range sets {
		if out, err := exec.Command(bin, "theme", "add", set, digitFolder(t, i == 1), "-db", db).CombinedOutput(); err != nil {
			t.Fatalf("theme add %s: %v\n%s", set, err, out)
		}
	}
	port := freePort(t)
	sctx, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(sctx, bin, "serve", "-db", db, "-addr", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(); cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base))
		if err == nil && resp.Status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("open %s: %v", base, err)
		}
	}
	// Wait until every image has finished, loaded or not.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`[...document.images].every(i => i.complete)`)); err != nil {
		t.Fatalf("images never finished: %v", err)
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	// One line a broken image, empty when all loaded.
	if broken := eval(`[...document.images].filter(i => !(i.naturalWidth > 0)).map(i => i.getAttribute("src")).join("\n")`); broken != "" {
		t.Errorf("images that did not load:\n%s", broken)
	}
	names := append(counter.LookNames(), sets...)
	for _, look := range names {
		sel := `[...document.images].filter(i => i.getAttribute("src").endsWith("theme=` + look + `") && i.naturalWidth > 0).length`
		if n := eval(`String(` + sel + `)`); n == "0" {
			t.Errorf("look or set %s: no image of it loaded on the page", look)
		}
	}
	// blog's three images, then its looks and the sets.
	want := 3 + len(names)
	if n := eval(`String(document.images.length)`); n != strconv.Itoa(want) {
		t.Errorf("%s images on the page, want %d", n, want)
	}
	saveScreenshot(t, ctx, t.TempDir(), "demo-looks.png")

	// An SVG look holds its PNG as a data: URI: in an <img> it must paint,
	// whatever the SVG's own Content-Security-Policy says.
	for _, look := range names {
		js := `new Promise(ok => { const i = new Image(); i.onerror = () => ok("error");
			i.onload = () => { const c = document.createElement("canvas"); c.width = i.naturalWidth; c.height = i.naturalHeight;
				const g = c.getContext("2d"); g.drawImage(i, 0, 0);
				const d = g.getImageData(0, 0, c.width, c.height).data; let opaque = 0;
				for (let k = 3; k < d.length; k += 4) if (d[k] === 255) opaque++;
				ok(String(opaque * 4 === d.length)) };
			i.src = "blog.svg?theme=` + look + `&count=0" })`
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		if err != nil || v != "true" {
			t.Errorf("blog.svg?theme=%s in an <img>: every pixel opaque = %q, %v", look, v, err)
		}
	}

	// The statistics page shows the looks too, allowed by its
	// Content-Security-Policy (TestStatsShowsEveryLook checks that they
	// count nothing: headless Chromium is a bot, whose hits never count).
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"blog/stats"))
	if err != nil || resp.Status != 200 {
		t.Fatalf("open blog/stats: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`[...document.images].every(i => i.complete)`)); err != nil {
		t.Fatalf("images never finished: %v", err)
	}
	if n := eval(`String([...document.images].filter(i => i.naturalWidth > 0 && i.getAttribute("src").includes("theme=")).length)`); n != strconv.Itoa(len(names)) {
		t.Errorf("%s looks and sets loaded on the statistics page, want %d", n, len(names))
	}
	saveScreenshot(t, ctx, t.TempDir(), "stats-looks.png")
}
