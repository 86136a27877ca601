package counter

import (
	"bytes"
	"image"
	_ "image/gif"
	_ "image/png"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestErrorGolden draws error images as a tag with a mistake gets them,
// at the default size, the smallest and the largest, and compares them
// with their golden files (go test ./counter -update rewrites them).
func TestErrorGolden(t *testing.T) {
	tests := []struct {
		file, text string
		size       int
	}{
		{"error-no-counter.png", "no counter blgo", 20},
		{"error-no-counter.gif", "no counter blgo", 20},
		{"error-no-counter.svg", "no counter blgo", 20},
		{"error-bad-fg-smallest.png", "bad fg", MinSize},
		{"error-bad-fg-largest.png", "bad fg", MaxSize},
		{"error-markup.svg", `no counter <a href="x">&'`, 20},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			d, err := NewErrorDrawing(tc.text, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := d.Encode(&b, formatOf(t, tc.file)); err != nil {
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
	widest := strings.Repeat("W", 2*MaxErrorText)
	for _, size := range []int{-1, 0, 1, MinSize, 10, 11, 20, 50, 85, 86, 100, MaxSize, MaxSize + 1, 1 << 20} {
		for _, text := range []string{"bad fg", widest} {
			d, err := NewErrorDrawing(text, size)
			if err != nil {
				t.Fatalf("size %d, %d characters: %v", size, len(text), err)
			}
			w, h := d.Size()
			if h < minErrorHeight || h > MaxSize || w < 16 || w*h > MaxPixels {
				t.Errorf("size %d, %d characters: %dx%d", size, len(text), w, h)
			}
			if text == "bad fg" && size >= MinSize && size <= MaxSize {
				if want := max(minErrorHeight, min(MaxSize, size*3/2)); h != want {
					t.Errorf("size %d: %d pixels high, want %d", size, h, want)
				}
			}
			for _, f := range []Format{PNG, GIF} {
				var b bytes.Buffer
				if err := d.Encode(&b, f); err != nil {
					t.Fatal(err)
				}
				img, _, err := image.Decode(&b)
				if err != nil || img.Bounds() != image.Rect(0, 0, w, h) {
					t.Errorf("size %d, format %d: %v, %v; want %dx%d", size, f, img.Bounds(), err, w, h)
				}
			}
		}
	}
}

func TestErrorText(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		in, want string
	}{
		{"no counter blgo", "no counter blgo"},
		{"", "?"},
		{"no counter " + long, "no counter " + long[:MaxErrorText-3-11] + "..."},
		{strings.Repeat("b", MaxErrorText), strings.Repeat("b", MaxErrorText)},
		{strings.Repeat("b", MaxErrorText+1), strings.Repeat("b", MaxErrorText-3) + "..."},
		{"Zähler fehlt", "Zähler fehlt"},
		{"tab\there", "tab?here"},
		{"nul\x00", "nul?"},
		{"emoji ✓", "emoji ?"},
		{"bad \xff utf-8", "bad ? utf-8"},
		{"soft\u00adhyphen", "soft?hyphen"},
		{"\u202eevil", "?evil"},
	}
	for _, tc := range tests {
		got := ErrorText(tc.in)
		if got != tc.want {
			t.Errorf("ErrorText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > MaxErrorText {
			t.Errorf("ErrorText(%q) has %d characters", tc.in, n)
		}
	}
}

func TestQuerySize(t *testing.T) {
	def := DefaultStyle().Size
	tests := []struct {
		query string
		want  int
	}{
		{"", def},
		{"size=40", 40},
		{"fg=00ff0&size=40", 40},
		{"size=40&fg=00ff0&v=2", 40},
		{"size=8", 8},
		{"size=128", 128},
		{"size=7", def},
		{"size=129", def},
		{"size=1e3", def},
		{"size=+40", def},
		{"size=", def},
		{"size", def},
		{"size=40&size=40", def},
		{"Size=40", def},
		{"size=40&" + strings.Repeat("v", MaxQueryLen), def},
	}
	for _, tc := range tests {
		if got := QuerySize(tc.query); got != tc.want {
			t.Errorf("QuerySize(%.40q) = %d, want %d", tc.query, got, tc.want)
		}
	}
}

// BenchmarkErrorImage is what a refused image costs to draw: once per
// refusal, never on a hit that counts.
func BenchmarkErrorImage(b *testing.B) {
	for _, f := range []Format{PNG, GIF, SVG} {
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
