package web

import (
	"bytes"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/draw"
)

// TestLooksAreDrawn asks for each built-in look, as a tag does with
// theme=NAME: each hit counts and answers the look drawn with the new
// count, pixel for pixel, in PNG and GIF, and as an SVG holding it.
func TestLooksAreDrawn(t *testing.T) {
	a, _ := testApp(t, "page")
	hits := uint64(0)
	for _, look := range counter.LookNames() {
		for _, ext := range []string{"png", "gif", "svg"} {
			t.Run(look+"."+ext, func(t *testing.T) {
				w := serve(a, "GET", "/page."+ext+"?theme="+look+"&size=24")
				if w.Code != 200 {
					t.Fatalf("status %d, want 200; %s", w.Code, w.Body.String())
				}
				hits++
				f, _ := counter.ParseImageType(ext)
				checkImage(t, w, f.ContentType())
				s, err := counter.ParseStyle("theme=" + look + "&size=24")
				if err != nil {
					t.Fatal(err)
				}
				d, err := draw.NewDrawing(counter.Digits(hits, s.Digits), s)
				if err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				if err := d.Encode(&want, f); err != nil {
					t.Fatal(err)
				}
				if ext == "svg" {
					if !bytes.Equal(w.Body.Bytes(), want.Bytes()) {
						t.Errorf("SVG %.200s, want %.200s", w.Body.String(), want.String())
					}
					return
				}
				got := decodeImage(t, f.ContentType(), w.Body.Bytes())
				if !samePixels(got, decodeImage(t, f.ContentType(), want.Bytes())) {
					t.Errorf("the image is not %s drawn with %d", look, hits)
				}
			})
		}
	}
	if got := total(t, a, "page"); got != hits {
		t.Errorf("total %d, want %d", got, hits)
	}
}
