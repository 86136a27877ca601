package draw

import (
	"image"
	"image/color"

	"hitcounter/counter"
)

// The grey of a 1990s counter's frame, light where it faces the light
// (top and left of a raised edge) and dark where it turns away.
var (
	retroLight = color.NRGBA{0xe8, 0xe8, 0xe8, 0xff}
	retroFace  = color.NRGBA{0xb4, 0xb4, 0xb4, 0xff}
	retroDark  = color.NRGBA{0x58, 0x58, 0x58, 0xff}
)

// drawRetro draws the font's digits in FG on a BG field sunk into a grey
// frame raised around it, bevelled as web counters were in the 1990s.
func drawRetro(text string, s counter.Style, c *GlyphCache) (*image.Paletted, error) {
	g, err := fontCells(s, c)
	if err != nil {
		return nil, err
	}
	b := max(2, s.Size/12) // each bevel's width; the face between is as wide
	frame := 3 * b
	w, h := 2*frame+2*g.padX+len(text)*g.cellW, 2*frame+g.height
	if err := checkBudget(w, h); err != nil {
		return nil, err
	}
	p := append(ramp(s.BG, s.FG, levels), retroLight, retroFace, retroDark)
	light, face, dark := uint8(levels), uint8(levels+1), uint8(levels+2)
	img := image.NewPaletted(image.Rect(0, 0, w, h), p)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// d is the distance into the frame from the nearest outer edge;
			// the edge it belongs to decides its light.
			dl, dt, dr, db := x, y, w-1-x, h-1-y
			d := min(dl, dt, dr, db)
			if d >= frame {
				continue // the field, drawn below
			}
			topLeft := d == dl || d == dt
			if d == dr && dr < dl || d == db && db < dt {
				topLeft = false
			}
			c := face
			switch {
			case d < b && topLeft, d >= 2*b && !topLeft:
				c = light // the raised outer edge, the sunken inner one
			case d < b, d >= 2*b:
				c = dark
			}
			img.Pix[y*img.Stride+x] = c
		}
	}
	for i := 0; i < len(text); i++ {
		cell := g.cell(text[i])
		x0 := frame + g.padX + i*g.cellW
		for y := 0; y < g.height; y++ {
			copy(img.Pix[(frame+y)*img.Stride+x0:], cell[y*g.cellW:(y+1)*g.cellW])
		}
	}
	return img, nil
}
