package draw

import (
	"hitcounter/counter"

	"bytes"
	"testing"
)

// BenchmarkDefaultPNG is the drawing work of one default hit: lay out,
// rasterise and encode six digits.
func BenchmarkDefaultPNG(b *testing.B) {
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		d, err := NewDrawing("123456", counter.DefaultStyle())
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Encode(&buf, counter.PNG); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLayout(b *testing.B) {
	for b.Loop() {
		NewDrawing("123456", counter.DefaultStyle())
	}
}

func BenchmarkRasterise(b *testing.B) {
	d, _ := NewDrawing("123456", counter.DefaultStyle())
	for b.Loop() {
		d.Paletted()
	}
}

func BenchmarkZlib(b *testing.B) {
	d, _ := NewDrawing("123456", counter.DefaultStyle())
	img := d.Paletted()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		encodePNG(&buf, img)
	}
}

// BenchmarkCachedPNG is the same work in a long-lived process, whose glyph
// cache has drawn the digits before.
func BenchmarkCachedPNG(b *testing.B) {
	var cache GlyphCache
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		d, err := cache.NewDrawing("123456", counter.DefaultStyle())
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Encode(&buf, counter.PNG); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLooks draws and encodes the default count in each look, as a
// CGI hit does (no cache), beside the default digits.
func BenchmarkLooks(b *testing.B) {
	for _, q := range append([]string{""}, counter.LookNames()...) {
		query := ""
		if q != "" {
			query = "theme=" + q
		}
		s, err := counter.ParseStyle(query)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("theme="+q, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				d, err := NewDrawing("000042", s)
				if err != nil {
					b.Fatal(err)
				}
				buf.Reset()
				if err := d.Encode(&buf, counter.PNG); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
