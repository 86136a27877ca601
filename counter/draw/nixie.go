package draw

import (
	"image"
	"image/color"

	"hitcounter/counter"
)

// nixieSteps is the number of brightness steps from BG to the hot core.
const nixieSteps = 16

// drawNixie draws each digit as a nixie tube lights it: the font's stroke
// burning near white at its core, in a glow of FG that spreads around it
// (two box blurs of the stroke) and fades into the dark BG.
func drawNixie(text string, s counter.Style, c *GlyphCache) (*image.Paletted, error) {
	g, err := fontCells(s, c)
	if err != nil {
		return nil, err
	}
	r := max(1, s.Size/10) // the glow's reach, per blur
	cellW := g.cellW + 2*r
	w, h := len(text)*cellW+2*r, g.height+2*r
	if err := checkBudget(w, h); err != nil {
		return nil, err
	}
	core := make([]int32, w*h) // coverage levels, 0 to levels-1
	for i := 0; i < len(text); i++ {
		cell := g.cell(text[i])
		x0 := r + i*cellW + r
		for y := 0; y < g.height; y++ {
			for x := 0; x < g.cellW; x++ {
				core[(y+r)*w+x0+x] = int32(cell[y*g.cellW+x])
			}
		}
	}
	// Two box blurs, in integers: exact on every architecture, and a
	// sliding sum is cheap enough for a hit.
	glow := boxSum(boxSum(core, w, h, r), w, h, r)
	n := int64(2*r + 1)
	full := int64(levels-1) * n * n * n * n // glow of a pixel deep inside a stroke
	hot := mix(s.FG, color.NRGBA{0xff, 0xff, 0xff, 0xff}, 0.75)
	p := append(ramp(s.BG, s.FG, nixieSteps/2), ramp(s.FG, hot, nixieSteps/2+1)[1:]...)
	top := int64(len(p) - 1)
	img := image.NewPaletted(image.Rect(0, 0, w, h), p)
	for i := range img.Pix {
		// The core at full brightness, the glow at up to 0.8 of it.
		c := (int64(core[i])*top + (levels-1)/2) / (levels - 1)
		gl := min(top, (int64(glow[i])*top*4+full*5/2)/(full*5))
		img.Pix[i] = uint8(max(c, gl))
	}
	return img, nil
}

// boxSum returns, for each cell of v (w by h), the sum of v over the
// square of side 2r+1 around it, cells beyond the edges counted as 0.
func boxSum(v []int32, w, h, r int) []int32 {
	tmp := make([]int32, len(v))
	for y := 0; y < h; y++ {
		row := v[y*w : (y+1)*w]
		var sum int32
		for x := 0; x < r && x < w; x++ {
			sum += row[x]
		}
		for x := 0; x < w; x++ {
			if x+r < w {
				sum += row[x+r]
			}
			if x-r-1 >= 0 {
				sum -= row[x-r-1]
			}
			tmp[y*w+x] = sum
		}
	}
	out := make([]int32, len(v))
	for x := 0; x < w; x++ {
		var sum int32
		for y := 0; y < r && y < h; y++ {
			sum += tmp[y*w+x]
		}
		for y := 0; y < h; y++ {
			if y+r < h {
				sum += tmp[(y+r)*w+x]
			}
			if y-r-1 >= 0 {
				sum -= tmp[(y-r-1)*w+x]
			}
			out[y*w+x] = sum
		}
	}
	return out
}
