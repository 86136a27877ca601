package web

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/counter/draw"
)

// decodeImage decodes an image answer with the standard decoders; an SVG
// gives its width and height attributes and an empty image of that size.
func decodeImage(t *testing.T, ct string, body []byte) image.Image {
	t.Helper()
	var img image.Image
	var err error
	switch ct {
	case "image/png":
		img, err = png.Decode(bytes.NewReader(body))
	case "image/gif":
		img, err = gif.Decode(bytes.NewReader(body))
	case "image/svg+xml":
		var w, h int
		_, err = fmt.Sscanf(string(body), `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"`, &w, &h)
		if err == nil {
			img = image.NewAlpha(image.Rect(0, 0, w, h))
		}
	default:
		t.Fatalf("Content-Type %q", ct)
	}
	if err != nil {
		t.Fatalf("%s does not decode: %v", ct, err)
	}
	return img
}

// TestErrorImagesSayWhatIsWrong: an unknown counter or a bad parameter
// gets a visible image that says so, at the size asked for, in the type
// asked for, with the status and X-Counter-Error as before; nothing is
// counted or written.
func TestErrorImagesSayWhatIsWrong(t *testing.T) {
	tests := []struct {
		name, target string
		status       int
		ct           string
		says         string // what the image says, as an SVG's title has it
		height       int
	}{
		{"unknown counter", "/blgo.png", 404, "image/png", "no counter blgo", 30},
		{"unknown counter gif", "/blgo.gif", 404, "image/gif", "no counter blgo", 30},
		{"unknown counter svg", "/blgo.svg", 404, "image/svg+xml", "no counter blgo", 30},
		{"unknown counter at size 40", "/blgo.png?size=40&v=2", 404, "image/png", "no counter blgo", 60},
		{"unknown counter at size 8", "/blgo.svg?size=8", 404, "image/svg+xml", "no counter blgo", 16},
		{"bad fg", "/page.png?fg=00ff0", 400, "image/png", "bad fg", 30},
		{"bad fg svg at size 64", "/page.svg?size=64&fg=00ff0", 400, "image/svg+xml", "bad fg", 96},
		{"bad fg after size", "/page.gif?fg=00ff0&size=32", 400, "image/gif", "bad fg", 48},
		{"bad size", "/page.png?size=1000", 400, "image/png", "bad size", 30},
		{"size twice", "/page.svg?size=20&size=40", 400, "image/svg+xml", "bad size", 30},
		{"bad count", "/page.png?count=2", 400, "image/png", "bad count", 30},
		{"bad show", "/page.svg?show=all", 400, "image/svg+xml", "bad show", 30},
		{"unknown theme", "/page.png?theme=moe", 400, "image/png", "no theme moe", 30},
		{"a theme not a name", "/page.png?theme=m%2Foe", 400, "image/png", "bad theme", 30},
		{"a look as a badge", "/page.svg?theme=led&style=badge", 400, "image/svg+xml", "bad theme", 30},
		{"theme auto on a PNG", "/page.png?theme=auto&size=16", 400, "image/png", "bad theme", 24},
		{"bad name", "/-page.svg", 400, "image/svg+xml", "invalid counter name", 30},
		{"unclean path", "/a/../page.svg", 400, "image/svg+xml", "invalid counter name", 30},
		{"long query", "/page.svg?size=40&v=" + strings.Repeat("x", counter.MaxQueryLen), 400, "image/svg+xml", "bad query", 30},
		{"markup in a name", "/%3Cb%3E.svg", 400, "image/svg+xml", "invalid counter name", 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, logs := testApp(t, "page")
			before, _ := os.ReadFile(a.cfg.DB)
			w := serve(a, "GET", tc.target)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			checkImage(t, w, tc.ct)
			if w.Header().Get(errorHeader) == "" {
				t.Errorf("no %s", errorHeader)
			}
			img := decodeImage(t, tc.ct, w.Body.Bytes())
			if b := img.Bounds(); b.Dx() < 16 || b.Dy() != tc.height {
				t.Errorf("image %dx%d, want %d high and 16 wide at least", b.Dx(), b.Dy(), tc.height)
			}
			if tc.ct == "image/svg+xml" {
				if title := "<title>" + tc.says + "</title>"; !strings.Contains(w.Body.String(), title) {
					t.Errorf("SVG %.300s does not hold %s", w.Body.String(), title)
				}
				if csp := w.Header().Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'") {
					t.Errorf("Content-Security-Policy %q", csp)
				}
			} else {
				want := drawn(t, tc.says, tc.height, tc.ct)
				if !samePixels(img, want) {
					t.Errorf("the image is not %q drawn %d high", tc.says, tc.height)
				}
			}
			after, _ := os.ReadFile(a.cfg.DB)
			if !bytes.Equal(before, after) {
				t.Errorf("the database file changed")
			}
			if strings.Count(logs.String(), "\n") != 1 {
				t.Errorf("log %q, want one line", logs.String())
			}
		})
	}
}

// drawn is what the error image that says text, height pixels high, is
// when encoded as ct and decoded again.
func drawn(t *testing.T, text string, height int, ct string) image.Image {
	t.Helper()
	d, err := draw.NewErrorDrawing(text, height*2/3)
	if err != nil {
		t.Fatal(err)
	}
	f := counter.PNG
	if ct == "image/gif" {
		f = counter.GIF
	}
	var b bytes.Buffer
	if err := d.Encode(&b, f); err != nil {
		t.Fatal(err)
	}
	return decodeImage(t, ct, b.Bytes())
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.NRGBAModel.Convert(a.At(x, y)) != color.NRGBAModel.Convert(b.At(x, y)) {
				return false
			}
		}
	}
	return true
}

// TestBlankErrors: with COUNTER_ERRORS=blank, the same mistakes get the
// 1x1 transparent image of before, with the same status and header.
func TestBlankErrors(t *testing.T) {
	for _, tc := range []struct {
		target, ct, reason string
		status             int
	}{
		{"/blgo.png", "image/png", "no such counter", 404},
		{"/blgo.gif?size=40", "image/gif", "no such counter", 404},
		{"/page.svg?fg=00ff0", "image/svg+xml", "fg: " + colourReasonForTest, 400},
	} {
		t.Run(tc.target, func(t *testing.T) {
			a, _ := testApp(t, "page")
			a.cfg.BlankErrors = true
			w := serve(a, "GET", tc.target)
			if w.Code != tc.status || w.Header().Get(errorHeader) != tc.reason {
				t.Fatalf("status %d, %s %q; want %d, %q", w.Code, errorHeader, w.Header().Get(errorHeader), tc.status, tc.reason)
			}
			checkImage(t, w, tc.ct)
			if b := decodeImage(t, tc.ct, w.Body.Bytes()).Bounds(); b != image.Rect(0, 0, 1, 1) {
				t.Errorf("image %v, want 1x1", b)
			}
			var blank bytes.Buffer
			f, _ := counter.ParseImageType(tc.target[6:9])
			draw.EncodeBlank(&blank, f)
			if !bytes.Equal(w.Body.Bytes(), blank.Bytes()) {
				t.Errorf("body %q, want the blank image %q", w.Body.Bytes(), blank.Bytes())
			}
		})
	}
}

const colourReasonForTest = "must be a CSS colour name (red, rebeccapurple, transparent) or hex RGB, RGBA, RRGGBB or RRGGBBAA"

// TestTypoIsNamed: a key that looks misspelt is named in X-Counter-Error
// while the image is drawn and the hit counted as ever (a 200), and the
// owner's log says so once a day per counter, in any process; other
// unknown keys say nothing.
func TestTypoIsNamed(t *testing.T) {
	a, logs := testApp(t, "page", "other")
	hit := func(target, wantHeader string) {
		t.Helper()
		w := serve(a, "GET", target)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: status %d, want 200", target, w.Code)
		}
		checkImage(t, w, "image/png")
		if got := w.Header().Get(errorHeader); got != wantHeader {
			t.Errorf("%s: %s %q, want %q", target, errorHeader, got, wantHeader)
		}
	}
	colour := "colour: not a parameter, ignored; did you mean color? (color is a badge's count background; fg colours the digits)"
	hit("/page.png?colour=red&v=2", colour)
	hit("/page.png?digit=7", "digit: not a parameter, ignored; did you mean digits?")
	hit("/page.png?v=2&_=1733400000&cb=9&nocache=1&ts=5&time=7", "")
	hit("/page.png?digits=7&fg=red", "")
	hit("/other.png?colr=red", "colr: not a parameter, ignored; did you mean color? (color is a badge's count background; fg colours the digits)")
	if got := total(t, a, "page"); got != 4 {
		t.Errorf("page counted %d hits, want 4: a typo costs no count", got)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	want := []string{
		`GET "/page.png": ` + colour + ` (said once a day per counter)`,
		`GET "/other.png": colr: not a parameter, ignored; did you mean color? (color is a badge's count background; fg colours the digits) (said once a day per counter)`,
	}
	if len(lines) != len(want) || !strings.HasSuffix(lines[0], want[0]) || !strings.HasSuffix(lines[1], want[1]) {
		t.Fatalf("log:\n%s\nwant lines ending:\n%s", logs.String(), strings.Join(want, "\n"))
	}

	// Another process, the same day: nothing more. The next day, one
	// line again.
	var logs2 bytes.Buffer
	cfg := *a.cfg
	a2 := newApp(cfg, logline.New(&logs2))
	serve(a2, "GET", "/page.png?colour=red")
	if logs2.Len() != 0 {
		t.Errorf("a second process logged %q the same day", logs2.String())
	}
	next := testNow.Add(24 * time.Hour)
	a2.cfg.Now = func() time.Time { return next }
	serve(a2, "GET", "/page.png?colour=red")
	serve(a2, "GET", "/page.png?colour=red")
	if got := logs2.String(); strings.Count(got, "said once a day") != 1 || strings.Count(got, "\n") != 1 {
		t.Errorf("the next day the log says %q, want one line", got)
	}
}
