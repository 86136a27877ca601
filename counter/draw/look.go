package draw

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"strconv"

	"golang.org/x/image/vector"

	"hitcounter/counter"
)

// newLook draws text in s's built-in look into a paletted image. Each
// look is drawn by code of its own (led.go, odometer.go, nixie.go,
// retro.go) at a digit height of s.Size, within counter.MaxPixels.
// The font's digits come from c, which a long-lived process keeps (nil
// draws them afresh).
func newLook(text string, s counter.Style, c *GlyphCache) (*image.Paletted, error) {
	switch s.Look {
	case counter.LookLED:
		return drawLED(text, s)
	case counter.LookOdometer:
		return drawOdometer(text, s, c)
	case counter.LookNixie:
		return drawNixie(text, s, c)
	}
	return drawRetro(text, s, c)
}

// mix returns a and b blended, t=0 giving a and t=1 b, opaque when both
// are. Products are rounded explicitly, as in flatten.go, so that every
// architecture mixes the same colour.
func mix(a, b color.NRGBA, t float64) color.NRGBA {
	f := func(x, y uint8) uint8 {
		v := float64(float64(x)*(1-t)) + float64(float64(y)*t)
		return uint8(v + 0.5)
	}
	return color.NRGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), f(a.A, b.A)}
}

// ramp returns n colours from a to b.
func ramp(a, b color.NRGBA, n int) color.Palette {
	p := make(color.Palette, n)
	for i := range p {
		p[i] = mix(a, b, float64(i)/float64(n-1))
	}
	return p
}

// checkBudget returns counter.ErrTooLarge for an image over the budget.
func checkBudget(w, h int) error {
	if w <= 0 || h <= 0 || w*h > counter.MaxPixels {
		return counter.ErrTooLarge
	}
	return nil
}

// fontCells returns the Go font's digits at s's size and font, for the
// looks that keep the font's shapes and draw everything around them.
func fontCells(s counter.Style, c *GlyphCache) (*glyphSet, error) {
	return c.glyphSet(s)
}

// maskLevels rasterises what z holds into coverage levels (0 to levels-1).
func maskLevels(z *vector.Rasterizer, w, h int) []uint8 {
	return coverageLevels(z, w, h)
}

// newRasterizer returns a w by h rasteriser that replaces what is under it.
func newRasterizer(w, h int) *vector.Rasterizer {
	z := vector.NewRasterizer(w, h)
	z.DrawOp = draw.Src
	return z
}

// encodeLookSVG writes a look as an SVG holding its PNG: a look's glow,
// shading and bevels are pixels, which the PNG keeps exactly.
func (d *Drawing) encodeLookSVG(w io.Writer) error {
	var png bytes.Buffer
	if err := encodePNG(&png, d.Paletted()); err != nil {
		return err
	}
	wd, ht := strconv.Itoa(d.look.Rect.Dx()), strconv.Itoa(d.look.Rect.Dy())
	bw := bufio.NewWriter(w)
	writeSVGHead(bw, d.look.Rect.Dx(), d.look.Rect.Dy(), d.text)
	fmt.Fprintf(bw, `<image width="%s" height="%s" style="image-rendering:pixelated" href="data:image/png;base64,`, wd, ht)
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	enc.Write(png.Bytes())
	enc.Close()
	bw.WriteString(`"/></svg>`)
	return bw.Flush()
}
