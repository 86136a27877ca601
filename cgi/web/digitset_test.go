package web

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"hitcounter/cgi/fcgitest"
	"hitcounter/counter"
	"hitcounter/counter/digitset"
	"hitcounter/store"
)

// addTestSet stores a set "pix" whose digit i is i+3 pixels wide and 10
// high, and makes it the default theme of the counters named.
func addTestSet(t *testing.T, a *App, defaultOf ...string) {
	t.Helper()
	var src [digitset.NumPieces]digitset.Source
	for i := range 10 {
		m := image.NewNRGBA(image.Rect(0, 0, i+3, 10))
		for p := 0; p < len(m.Pix); p += 4 {
			copy(m.Pix[p:], []byte{uint8(25 * i), 0x80, 0x40, 0xff})
		}
		src[i] = digitset.Source{Frames: []image.Image{m}, Piece: []byte{0x89, 'P', 'N', 'G'}, PieceType: digitset.TypePNG}
	}
	s, err := digitset.New(src, digitset.LayoutPNGFolder)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.AddDigitSet("pix", store.RecordsOf(s), testNow, false); err != nil {
		t.Fatal(err)
	}
	for _, name := range defaultOf {
		if _, err := db.Configure(name, func(s *counter.Settings) error { return s.Set("theme=pix") }); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFastCGIDrawsDigitSets: over FastCGI (hits batched), a tag's set and
// a counter's default set are drawn, a set not there is a 400 that counts
// nothing, and a colour scheme still means the font.
func TestFastCGIDrawsDigitSets(t *testing.T) {
	a, _ := testApp(t, "demo", "own")
	addTestSet(t, a, "own")
	c := fcgitest.MustDial(t, startFastCGI(t, a))
	for i, tc := range []struct {
		path, query string
		status      int
		width       int // of a PNG; 0 for none
		reason      string
	}{
		{"/demo.png", "theme=pix&digits=3", 200, 3 + 3 + 4, ""},               // 001
		{"/demo.png", "theme=pix&digits=3&size=20", 200, 2 * (3 + 3 + 5), ""}, // 002 at twice the height
		{"/demo.svg", "theme=pix", 200, 0, ""},
		{"/demo.gif", "theme=nope", 400, 0, "no such theme"},
		{"/own.png", "digits=2", 200, 3 + 4, ""},       // 01: the counter's own
		{"/own.png", "digits=2&theme=led", 200, 0, ""}, // a look the tag names
		{"/demo.png", "theme=pix&digits=12&size=1024", 400, 0, "size: the digit set's image would pass 524288 pixels (262144 with smooth=1, 8192x1024 px): ask a smaller size or fewer digits"},
		// Moe-Counter's options: padding=3 is digits=3, offset=2 apart.
		{"/demo.png", "theme=pix&padding=3&offset=2&count=0", 200, 3 + 3 + 7 + 2*2, ""}, // 004
		{"/demo.png", "theme=pix&padding=3&digits=4", 400, 0, "digits,padding: say the same: give one of digits and padding"},
		{"/demo.svg", "theme=pix&size=20&scale=2", 400, 0, "size,scale: say the same: give one of size and scale"},
	} {
		out, status, err := c.Request(uint16(i+1), true, fcgitest.Env("GET", tc.path, tc.query), nil, 0)
		if err != nil || status != fcgitest.RequestComplete {
			t.Fatalf("%s?%s: %v, protocol status %d", tc.path, tc.query, err, status)
		}
		ans := fcgitest.MustParse(t, out)
		if ans.Status != tc.status || ans.Header.Get(errorHeader) != tc.reason {
			t.Errorf("%s?%s: %d %q, want %d %q", tc.path, tc.query, ans.Status, ans.Header.Get(errorHeader), tc.status, tc.reason)
			continue
		}
		if tc.path == "/demo.svg" && tc.status == 200 && !strings.Contains(string(ans.Body), "data:image/png;base64,") {
			t.Errorf("the SVG embeds no piece: %.200s", ans.Body)
		}
		if tc.width == 0 {
			continue
		}
		img, err := png.Decode(bytes.NewReader(ans.Body))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() != tc.width {
			t.Errorf("%s?%s: %d px wide, want %d", tc.path, tc.query, img.Bounds().Dx(), tc.width)
		}
		if got := color.NRGBAModel.Convert(img.At(0, 0)).(color.NRGBA); got != (color.NRGBA{0, 0x80, 0x40, 0xff}) {
			t.Errorf("%s?%s: the first pixel is %v, want digit 0's", tc.path, tc.query, got)
		}
	}
	// The hit with theme=nope counts nothing; the one too large to draw
	// is known so only once counted, as a set's size is read after.
	if n := total(t, a, "demo"); n != 4 {
		t.Errorf("demo counted %d, want 4", n)
	}
}

// TestPagesShowEverySet: the demo page and the statistics page show the
// count in each set added, beside the built-in looks, with its tag.
func TestPagesShowEverySet(t *testing.T) {
	a, _ := testApp(t, "demo")
	a.demo, a.openToAll = true, true // the demo's own file: open to httptest's 192.0.2.1
	addTestSet(t, a)
	index := serve(a, "GET", "/").Body.String()
	for _, want := range []string{`<img src="demo.gif?theme=pix"`, `counter.cgi/demo.gif?theme=pix" alt="visitors"`,
		`<img src="demo.png?theme=nixie"`, "each load of this page adds 8 views"} {
		if !strings.Contains(index, want) {
			t.Errorf("the demo page lacks %q", want)
		}
	}
	stats := serve(a, "GET", "/demo/stats").Body.String()
	for _, want := range []string{`<img src="../demo.gif?theme=pix&amp;count=0"`, `counter.cgi/demo.gif?theme=pix" alt="visitors"`,
		`<img src="../demo.png?theme=led&amp;count=0"`} {
		if !strings.Contains(stats, want) {
			t.Errorf("the statistics page lacks %q", want)
		}
	}
}

// TestBusyDatabaseWithASet: a hit in a set that cannot be counted still
// gets a counter-shaped image, the font's dashes, whatever size the set
// was asked at.
func TestBusyDatabaseWithASet(t *testing.T) {
	a, _ := testApp(t, "page")
	addTestSet(t, a)
	holder, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := serve(a, "GET", "/page.png?theme=pix&size=200")
	holder.Close()
	if w.Code != 503 || w.Header().Get("Content-Type") != "image/png" {
		t.Fatalf("status %d %q, want 503 and a PNG", w.Code, w.Header().Get("Content-Type"))
	}
	img, err := png.Decode(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	if h := img.Bounds().Dy(); h >= 200 || h < counter.DefaultStyle().Size {
		t.Errorf("the dashes are %d px high, want the font's", h)
	}
}
