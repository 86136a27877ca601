package testfiles

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"golang.org/x/image/webp"
)

// TestWebP: what WebP writes, golang.org/x/image/webp reads back pixel
// for pixel, transparent ones included.
func TestWebP(t *testing.T) {
	m := image.NewNRGBA(image.Rect(0, 0, 7, 5))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 37)
	}
	m.SetNRGBA(2, 3, color.NRGBA{})
	got, err := webp.Decode(bytes.NewReader(WebP(m)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != m.Bounds() {
		t.Fatalf("got %v, want %v", got.Bounds(), m.Bounds())
	}
	for y := range 5 {
		for x := range 7 {
			g := color.NRGBAModel.Convert(got.At(x, y)).(color.NRGBA)
			if w := m.NRGBAAt(x, y); g != w && !(w.A == 0 && g.A == 0) {
				t.Errorf("(%d,%d): got %v, want %v", x, y, g, w)
			}
		}
	}
}
