package draw

import (
	"hitcounter/counter"

	"bytes"
	"image"
	_ "image/gif"
	_ "image/png"
	"strings"
	"testing"
)

// TestErrorGolden draws error images as a tag with a mistake gets them,
// at the default size, the smallest and the largest, and compares them
// with their golden files (go test ./counter/draw -update rewrites them).
func TestErrorGolden(t *testing.T) {
	tests := []struct {
		file, text string
		size       int
	}{
		{"error-no-counter.png", "no counter blgo", 20},
		{"error-no-counter.gif", "no counter blgo", 20},
		{"error-no-counter.svg", "no counter blgo", 20},
		{"error-bad-fg-smallest.png", "bad fg", counter.MinSize},
		{"error-bad-fg-largest.png", "bad fg", counter.MaxSize},
		{"error-markup.svg", `no counter <a href="x">&'`, 20},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			d, err := NewErrorDrawing(tc.text, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := d.Encode(&b, typeOf(t, tc.file)); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.file, b.Bytes())
		})
	}
}

// TestErrorImageBounds draws the widest text an error image may hold at
// every size a query may ask, and beyond: each decodes, is readable (16
// pixels high at least, as tall as the size asks within MaxSize) and
// stays within MaxPixels.
func TestErrorImageBounds(t *testing.T) {
	widest := strings.Repeat("W", 2*counter.MaxErrorText)
	for _, size := range []int{-1, 0, 1, counter.MinSize, 10, 11, 20, 50, 85, 86, 100, counter.MaxSize, counter.MaxSize + 1, 1 << 20} {
		for _, text := range []string{"bad fg", widest} {
			d, err := NewErrorDrawing(text, size)
			if err != nil {
				t.Fatalf("size %d, %d characters: %v", size, len(text), err)
			}
			w, h := d.Size()
			if h < minErrorHeight || h > counter.MaxSize || w < 16 || w*h > counter.MaxPixels {
				t.Errorf("size %d, %d characters: %dx%d", size, len(text), w, h)
			}
			if text == "bad fg" && size >= counter.MinSize && size <= counter.MaxSize {
				if want := max(minErrorHeight, min(counter.MaxSize, size*3/2)); h != want {
					t.Errorf("size %d: %d pixels high, want %d", size, h, want)
				}
			}
			for _, f := range []counter.ImageType{counter.PNG, counter.GIF} {
				var b bytes.Buffer
				if err := d.Encode(&b, f); err != nil {
					t.Fatal(err)
				}
				img, _, err := image.Decode(&b)
				if err != nil || img.Bounds() != image.Rect(0, 0, w, h) {
					t.Errorf("size %d, image type %d: %v, %v; want %dx%d", size, f, img.Bounds(), err, w, h)
				}
			}
		}
	}
}

func BenchmarkErrorImage(b *testing.B) {
	for _, f := range []counter.ImageType{counter.PNG, counter.GIF, counter.SVG} {
		b.Run(f.ContentType(), func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				d, err := NewErrorDrawing("no counter blgo", 20)
				if err != nil {
					b.Fatal(err)
				}
				if err := d.Encode(&buf, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
