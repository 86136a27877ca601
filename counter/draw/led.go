package draw

import (
	"image"
	"strings"

	"golang.org/x/image/vector"

	"hitcounter/counter"
)

// ledSegments says which of the seven segments (a to g: top, top right,
// bottom right, bottom, bottom left, top left, middle) each character lights.
var ledSegments = [...]uint8{
	'0' - '0': 0b0111111, 1: 0b0000110, 2: 0b1011011, 3: 0b1001111, 4: 0b1100110,
	5: 0b1101101, 6: 0b1111101, 7: 0b0000111, 8: 0b1111111, 9: 0b1101111,
	10: 0b1000000, // '-'
}

// drawLED draws a seven-segment display: each digit's segments as
// hexagons, lit in FG, the unlit ones faintly (FG at an eighth over BG),
// on BG with a margin of an eighth of the digit's height.
func drawLED(text string, s counter.Style) (*image.Paletted, error) {
	h := s.Size
	cw := (h*11 + 10) / 20 // a digit's width
	t := max(2, float32(h)/8)
	gap := max(2, h/5)
	pad := max(2, h/6)
	w, H := 2*pad+len(text)*cw+(len(text)-1)*gap, h+2*pad
	if err := checkBudget(w, H); err != nil {
		return nil, err
	}
	lit, unlit := newRasterizer(w, H), newRasterizer(w, H)
	for i := 0; i < len(text); i++ {
		on := ledSegments[strings.IndexByte(glyphRunes, text[i])]
		x0, y0 := float32(pad+i*(cw+gap)), float32(pad)
		l, r := x0+t/2, x0+float32(cw)-t/2
		top, mid, bot := y0+t/2, y0+float32(h)/2, y0+float32(h)-t/2
		e := t / 4 // the gap between two segments' ends
		segs := [7][4]float32{
			{l + e, top, r - e, top}, {r, top + e, r, mid - e}, {r, mid + e, r, bot - e},
			{l + e, bot, r - e, bot}, {l, mid + e, l, bot - e}, {l, top + e, l, mid - e},
			{l + e, mid, r - e, mid},
		}
		for k, sg := range segs {
			z := unlit
			if on&(1<<k) != 0 {
				z = lit
			}
			hexagon(z, sg[0], sg[1], sg[2], sg[3], t/2)
		}
	}
	off := mix(s.BG, s.FG, 0.125)
	p := append(ramp(s.BG, off, levels), ramp(s.BG, s.FG, levels)...)
	img := image.NewPaletted(image.Rect(0, 0, w, H), p)
	litPix, unlitPix := maskLevels(lit, w, H), maskLevels(unlit, w, H)
	for i := range img.Pix {
		if litPix[i] > 0 {
			img.Pix[i] = levels + litPix[i]
		} else {
			img.Pix[i] = unlitPix[i]
		}
	}
	return img, nil
}

// hexagon adds a segment from (x1, y1) to (x2, y2), horizontal or
// vertical, half r thick, with pointed ends.
func hexagon(z *vector.Rasterizer, x1, y1, x2, y2, r float32) {
	if y1 == y2 { // horizontal
		z.MoveTo(x1, y1)
		z.LineTo(x1+r, y1-r)
		z.LineTo(x2-r, y1-r)
		z.LineTo(x2, y1)
		z.LineTo(x2-r, y1+r)
		z.LineTo(x1+r, y1+r)
	} else {
		z.MoveTo(x1, y1)
		z.LineTo(x1+r, y1+r)
		z.LineTo(x1+r, y2-r)
		z.LineTo(x1, y2)
		z.LineTo(x1-r, y2-r)
		z.LineTo(x1-r, y1+r)
	}
	z.ClosePath()
}
