package draw

import (
	"image"
	"image/color"

	"hitcounter/counter"
)

// odometerShades is the number of steps of a drum's shading.
const odometerShades = 8

// drawOdometer draws each digit in the font on a drum of its own, BG
// shaded darker towards its top and bottom as a roll turning away from
// the eye, the digit in FG dimmed with it; drums stand a thin dark gap
// apart in a dark frame.
func drawOdometer(text string, s counter.Style, c *GlyphCache) (*image.Paletted, error) {
	g, err := fontCells(s, c)
	if err != nil {
		return nil, err
	}
	gap := max(1, s.Size/16)
	drumW := g.cellW + 2*max(1, g.padX/2)
	w, h := gap+len(text)*(drumW+gap), g.height+2*gap
	if err := checkBudget(w, h); err != nil {
		return nil, err
	}
	// Palette: shade k (0 darkest) times coverage level c, then the frame.
	frame := mix(color.NRGBA{0, 0, 0, 0xff}, s.BG, 0.25)
	frame.A = s.BG.A
	p := make(color.Palette, 0, odometerShades*levels+1)
	for k := 0; k < odometerShades; k++ {
		light := 0.45 + float64(0.55*float64(k)/(odometerShades-1)) // rounded apart: see mix
		drum := mix(frame, s.BG, light)
		digit := mix(frame, s.FG, 0.35+float64(0.65*light))
		p = append(p, ramp(drum, digit, levels)...)
	}
	p = append(p, frame)
	frameIdx := uint8(len(p) - 1)
	img := image.NewPaletted(image.Rect(0, 0, w, h), p)
	for i := range img.Pix {
		img.Pix[i] = frameIdx
	}
	dh := g.height
	for i := 0; i < len(text); i++ {
		cell := g.cell(text[i])
		x0 := gap + i*(drumW+gap)
		cx := x0 + (drumW-g.cellW)/2
		for y := 0; y < dh; y++ {
			// 1 at the drum's middle, 0 at its edges: a cylinder seen side on.
			u := float64((float64(y)+0.5)/float64(dh)*2) - 1
			k := uint8(float64((1-float64(u*u))*(odometerShades-1)) + 0.5)
			row := img.Pix[(gap+y)*img.Stride:]
			for x := x0; x < x0+drumW; x++ {
				c := uint8(0)
				if cx <= x && x < cx+g.cellW {
					c = cell[y*g.cellW+x-cx]
				}
				row[x] = k*levels + c
			}
		}
	}
	return img, nil
}
