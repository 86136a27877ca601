package draw

import (
	"image"
	"image/color"

	"hitcounter/counter"
)

// nixieSteps is the number of brightness steps from BG to the hot core.
const nixieSteps = 32

// drawNixie draws each digit as a nixie tube lights it: the font's stroke
// burning near white at its core, in a glow of FG that spreads around it
// (two box blurs of the stroke) and fades into the dark BG.
func drawNixie(text string, s counter.Style) (*image.Paletted, error) {
	g, err := fontCells(s)
	if err != nil {
		return nil, err
	}
	r := max(1, s.Size/10) // the glow's reach, per blur
	cellW := g.cellW + 2*r
	w, h := len(text)*cellW+2*r, g.height+2*r
	if err := checkBudget(w, h); err != nil {
		return nil, err
	}
	core := make([]float32, w*h)
	for i := 0; i < len(text); i++ {
		cell := g.cell(text[i])
		x0 := r + i*cellW + r
		for y := 0; y < g.height; y++ {
			for x := 0; x < g.cellW; x++ {
				core[(y+r)*w+x0+x] = float32(cell[y*g.cellW+x]) / (levels - 1)
			}
		}
	}
	glow := boxBlur(boxBlur(core, w, h, r), w, h, r)
	hot := mix(s.FG, color.NRGBA{0xff, 0xff, 0xff, 0xff}, 0.75)
	p := append(ramp(s.BG, s.FG, nixieSteps/2), ramp(s.FG, hot, nixieSteps/2+1)[1:]...)
	img := image.NewPaletted(image.Rect(0, 0, w, h), p)
	for i := range img.Pix {
		v := max(float32(core[i]*0.999), float32(glow[i]*1.6)*0.5)
		v = min(1, v)
		img.Pix[i] = uint8(float32(v*float32(len(p)-1)) + 0.5)
	}
	return img, nil
}

// boxBlur returns v (w by h) averaged over squares of side 2r+1, the
// edges counted as dark.
func boxBlur(v []float32, w, h, r int) []float32 {
	tmp := make([]float32, len(v))
	out := make([]float32, len(v))
	n := float32(2*r + 1)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var sum float32
			for k := max(0, x-r); k <= min(w-1, x+r); k++ {
				sum += v[y*w+k]
			}
			tmp[y*w+x] = sum / n
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var sum float32
			for k := max(0, y-r); k <= min(h-1, y+r); k++ {
				sum += tmp[k*w+x]
			}
			out[y*w+x] = sum / n
		}
	}
	return out
}
