package draw

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/counter"
)

// FuzzDrawStyle draws the longest count in every style ParseStyle lets
// through, from FuzzParseStyle's seeds: none may pass the pixel budget.
func FuzzDrawStyle(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "fuzz", "FuzzParseStyle", "*"))
	if err != nil || len(files) == 0 {
		f.Fatal("no seeds in testdata/fuzz/FuzzParseStyle")
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(strings.TrimSuffix(string(b), "\n"))
	}
	f.Add("digits=12&size=128&font=bold")
	longest := strings.Repeat("8", counter.MaxTextLen)
	f.Fuzz(func(t *testing.T, query string) {
		s, err := counter.ParseStyle(query)
		if err != nil {
			return // FuzzParseStyle checks the refusals
		}
		d, err := NewDrawing(longest, s)
		if err != nil {
			t.Fatalf("style %+v cannot draw %d digits: %v", s, counter.MaxTextLen, err)
		}
		var b bytes.Buffer
		if err := d.Encode(&b, counter.PNG); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("style %+v: %v", s, err)
		}
		if r := img.Bounds(); r.Dx()*r.Dy() > counter.MaxPixels {
			t.Fatalf("style %+v draws %v, over %d pixels", s, r, counter.MaxPixels)
		}
	})
}
