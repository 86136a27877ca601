package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/cgi/testenv"
	"hitcounter/counter"
	"hitcounter/counter/draw"
)

// Issue 39, item 6: abbreviated=1 (komarev's key) draws 1,234 as 1.2K in
// the images the hit binary serves, counted or not, in the shields.io
// badge's message, without the digits' padding; a look or a digit set,
// and a font whose cells do not hold K, draw the full number.

// hitImage runs the hit binary as a CGI for file?query on db.
func hitImage(t *testing.T, db, file, query string) cgiAnswer {
	t.Helper()
	env := testenv.OwnRunDir(t, append(hitEnv(t, db), "PATH_INFO=/"+file, "QUERY_STRING="+query,
		"REQUEST_URI=/cgi-bin/counter.cgi/"+file+"?"+query))
	stdout, stderr, code := runPlain(t, hitBinary(t), env, "")
	if code != 0 {
		t.Fatalf("%s?%s: exit %d; %s", file, query, code, stderr)
	}
	return parseCGI(t, []byte(stdout))
}

// decodeImage decodes an answer's PNG or GIF with the standard library's
// decoders, or reads an SVG with encoding/xml to the end and returns nil.
func decodeImage(t *testing.T, f counter.ImageType, body []byte) image.Image {
	t.Helper()
	var img image.Image
	var err error
	switch f {
	case counter.PNG:
		img, err = png.Decode(bytes.NewReader(body))
	case counter.GIF:
		img, err = gif.Decode(bytes.NewReader(body))
	default:
		dec := xml.NewDecoder(bytes.NewReader(body))
		for err == nil {
			_, err = dec.Token()
		}
		if err == io.EOF {
			err = nil
		}
	}
	if err != nil {
		t.Fatalf("decode %s: %v", f.ContentType(), err)
	}
	return img
}

// sameImage fails unless got, an answer's body of image type f, shows what
// counter/draw draws of text in the style of query: the same pixels for
// PNG and GIF, the same document for SVG.
func sameImage(t *testing.T, f counter.ImageType, got []byte, query, text string) {
	t.Helper()
	s, err := counter.ParseStyle(query)
	if err != nil {
		t.Fatal(err)
	}
	d, err := draw.NewDrawing(text, s)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := d.Encode(&want, f); err != nil {
		t.Fatal(err)
	}
	gi, wi := decodeImage(t, f, got), decodeImage(t, f, want.Bytes())
	if f == counter.SVG {
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("?%s: the SVG is not the drawing of %q", query, text)
		}
		return
	}
	if gi.Bounds() != wi.Bounds() {
		t.Fatalf("?%s: %v, want %v, the size of %q", query, gi.Bounds(), wi.Bounds(), text)
	}
	b := gi.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g, w := color.NRGBAModel.Convert(gi.At(x, y)), color.NRGBAModel.Convert(wi.At(x, y))
			if g != w {
				t.Fatalf("?%s: pixel (%d,%d) %v, want %v of %q", query, x, y, g, w, text)
			}
		}
	}
}

// TestAbbreviatedImages draws demo's count, 1,234 after the first hit,
// through the hit binary, and checks each image against counter/draw's
// drawing of the text it must show.
func TestAbbreviatedImages(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "demo", "1233")
	mustAdmin(t, db, "create", "small", "6")
	mustAdmin(t, db, "theme", "add", "pix", pngFolder(t))
	for _, tc := range []struct {
		name, file, query, text string
	}{
		{"a counted hit", "demo.png", "abbreviated=1", "1.2K"},
		{"a GIF", "demo.gif", "abbreviated=1&count=0", "1.2K"},
		{"an SVG, komarev's true", "demo.svg", "abbreviated=true&count=0", "1.2K"},
		{"no padding", "demo.png", "abbreviated=1&digits=9&size=40&fg=c00&count=0", "1.2K"},
		{"mono bold", "demo.png", "abbreviated=1&font=mono-bold&count=0", "1.2K"},
		{"a badge", "demo.png", "style=badge&label=readers&abbreviated=1&count=0", "1.2K"},
		{"a badge as SVG", "demo.svg", "style=badge&abbreviated=1&count=0", "1.2K"},
		{"off", "demo.png", "abbreviated=0&count=0", "001234"},
		{"under a thousand", "small.png", "abbreviated=1&count=0", "6"},
		{"Go Regular, whose K is wider than its digits", "demo.png", "abbreviated=1&font=regular&size=32&count=0", "001234"},
		{"a look", "demo.png", "abbreviated=1&theme=led&count=0", "001234"},
		{"a look as SVG", "demo.svg", "abbreviated=1&theme=nixie&digits=4&count=0", "1234"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans := hitImage(t, db, tc.file, tc.query)
			if ans.status != 200 || ans.header.Get("X-Counter-Error") != "" {
				t.Fatalf("status %d, %q", ans.status, ans.header.Get("X-Counter-Error"))
			}
			_, ext, _ := strings.Cut(tc.file, ".")
			f, _ := counter.ParseImageType(ext)
			sameImage(t, f, ans.body, tc.query, tc.text)
		})
	}
	t.Run("a digit set", func(t *testing.T) {
		ans := hitImage(t, db, "demo.png", "theme=pix&abbreviated=1&count=0")
		checkDigits(t, decodeImage(t, counter.PNG, ans.body), "001234", setWidth, 1, first)
	})
	for _, query := range []string{"abbreviated=yes", "abbreviated=1&abbreviated=1", "abbreviated="} {
		if ans := hitImage(t, db, "demo.png", query); ans.status != 400 || !strings.HasPrefix(ans.header.Get("X-Counter-Error"), "abbreviated") {
			t.Errorf("?%s: status %d, %q, want 400 for abbreviated", query, ans.status, ans.header.Get("X-Counter-Error"))
		}
	}

	for _, tc := range []struct {
		query, message string
		isError        bool
	}{
		{"abbreviated=1", "1.2K", false},
		{"", "1234", false},
		{"abbreviated=0", "1234", false},
		{"abbreviated=2", "abbreviated: must be 1 (1.2K for 1,234) or 0", true},
	} {
		ans, _ := runCGI(t, append(hitEnv(t, db), "PATH_INFO=/demo.shields.json", "QUERY_STRING="+tc.query))
		var v struct {
			Message string `json:"message"`
			IsError bool   `json:"isError"`
		}
		if err := json.Unmarshal(ans.body, &v); err != nil || v.Message != tc.message || v.IsError != tc.isError {
			t.Errorf("shields.json?%s: %s (%v), want message %q, isError %v", tc.query, ans.body, err, tc.message, tc.isError)
		}
	}
}
