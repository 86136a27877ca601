package draw

import (
	"hitcounter/counter"

	"bufio"
	"fmt"
	"image"
	"image/color"
	"io"
	"strconv"

	"golang.org/x/image/math/fixed"
)

// Encode writes the drawing to w as image type f.
func (d *Drawing) Encode(w io.Writer, f counter.ImageType) error {
	if err := d.style.CheckImageType(f); err != nil {
		return err
	}
	switch {
	case d.badge != nil && f == counter.SVG:
		return d.badge.encodeSVG(w)
	case d.badge != nil:
		return encodeRaster(w, d.badge.Paletted(), f)
	case d.look != nil && f == counter.SVG:
		return d.encodeLookSVG(w)
	case f == counter.SVG:
		return d.encodeSVG(w)
	}
	return encodeRaster(w, d.Paletted(), f)
}

func encodeRaster(w io.Writer, img *image.Paletted, f counter.ImageType) error {
	if f == counter.GIF {
		gifTransparency(img)
		return encodeGIF(w, img)
	}
	return encodePNG(w, img)
}

// indexBits is the fewest bits per pixel, at least 1, that index a
// palette of n colours.
func indexBits(n int) int {
	bits := 1
	for 1<<bits < n {
		bits++
	}
	return bits
}

// gifTransparency rewrites a palette for GIF, which has a single fully
// transparent index and nothing in between: levels under half opacity
// all become the first of them, made fully clear, and the others opaque.
func gifTransparency(img *image.Paletted) {
	clear := -1
	var remap [256]uint8
	for i, c := range img.Palette {
		n := c.(color.NRGBA)
		remap[i] = uint8(i)
		if n.A >= 0x80 {
			n.A = 0xff
			img.Palette[i] = n
			continue
		}
		if clear < 0 {
			clear = i
			img.Palette[i] = color.NRGBA{}
		}
		remap[i] = uint8(clear)
	}
	if clear < 0 {
		return
	}
	for i, p := range img.Pix {
		img.Pix[i] = remap[p]
	}
}

// encodeSVG writes the glyph outlines as one path, so the SVG shows the
// same digits as the PNG whatever fonts the viewer has.
func (d *Drawing) encodeSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	wd, ht := strconv.Itoa(d.width), strconv.Itoa(d.height)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">`, wd, ht, wd, ht)
	st := d.style
	if st.Scheme == counter.SchemeAuto {
		// The viewer's dark mode picks the colours, by CSS in the SVG.
		fmt.Fprintf(bw, `<style>.b{%s}.f{%s}@media (prefers-color-scheme:dark){.b{%s}.f{%s}}</style>`,
			cssFill(st.BG), cssFill(st.FG), cssFill(st.DarkBG), cssFill(st.DarkFG))
		if st.BG.A > 0 || st.DarkBG.A > 0 {
			fmt.Fprintf(bw, `<rect class="b" width="%s" height="%s"/>`, wd, ht)
		}
		bw.WriteString(`<path class="f" d="`)
	} else {
		if st.BG.A > 0 {
			fmt.Fprintf(bw, `<rect width="%s" height="%s"%s/>`, wd, ht, svgFill(st.BG))
		}
		fmt.Fprintf(bw, `<path%s d="`, svgFill(st.FG))
	}
	for i := 0; i < len(d.text); i++ {
		writeSVGPath(bw, d.segments(d.text[i]), d.padX+i*d.cellW, d.base(d.text[i]), 0)
	}
	bw.WriteString(`"/></svg>`)
	return bw.Flush()
}

// writeSVGHead writes the opening tag of a w x h SVG that says label
// (escaped for HTML) in its aria-label and <title>, for screen readers.
func writeSVGHead(bw *bufio.Writer, w, h int, label string) {
	wd, ht := strconv.Itoa(w), strconv.Itoa(h)
	bw.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + wd + `" height="` + ht +
		`" viewBox="0 0 ` + wd + ` ` + ht + `" role="img" aria-label="` + label + `"><title>` + label + `</title>`)
}

// writeSVGPath writes a glyph's outline with its origin at (x0+dx, y0);
// an empty glyph (a space) writes nothing.
func writeSVGPath(bw *bufio.Writer, segs []segment, x0, y0 int, dx fixed.Int26_6) {
	if len(segs) == 0 {
		return
	}
	for i, s := range segs {
		if s.op == opMove && i > 0 {
			bw.WriteString("Z")
		}
		bw.WriteString("MLQC"[s.op : s.op+1])
		for j := 0; j < pointsOf(s.op); j++ {
			if j > 0 {
				bw.WriteByte(' ')
			}
			bw.WriteString(svgNum(x0, s.pts[j].X+dx))
			bw.WriteByte(' ')
			bw.WriteString(svgNum(y0, s.pts[j].Y))
		}
	}
	bw.WriteString("Z")
}

// svgNum prints origin+v with two decimals at most.
func svgNum(origin int, v fixed.Int26_6) string {
	hundredths := (int64(origin)*64 + int64(v)) * 100 / 64
	s := strconv.FormatInt(hundredths/100, 10)
	frac := hundredths % 100
	if frac < 0 {
		frac = -frac
		if hundredths > -100 {
			s = "-0"
		}
	}
	switch {
	case frac == 0:
		return s
	case frac%10 == 0:
		return s + "." + strconv.Itoa(int(frac/10))
	case frac < 10:
		return s + ".0" + strconv.Itoa(int(frac))
	}
	return s + "." + strconv.Itoa(int(frac))
}

func svgFill(c color.NRGBA) string {
	s := fmt.Sprintf(` fill="#%02x%02x%02x"`, c.R, c.G, c.B)
	if c.A != 0xff {
		s += ` fill-opacity="` + strconv.FormatFloat(float64(c.A)/255, 'f', 3, 64) + `"`
	}
	return s
}

// cssFill is c as CSS fill properties.
func cssFill(c color.NRGBA) string {
	s := fmt.Sprintf("fill:#%02x%02x%02x", c.R, c.G, c.B)
	if c.A != 0xff {
		s += ";fill-opacity:" + strconv.FormatFloat(float64(c.A)/255, 'f', 3, 64)
	}
	return s
}

// EncodeBlank writes a 1x1 transparent image of image type f: the body of an
// error answer to an <img>, which must still be an image.
func EncodeBlank(w io.Writer, f counter.ImageType) error {
	if f == counter.SVG {
		_, err := io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`)
		return err
	}
	img := image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.NRGBA{}})
	return encodeRaster(w, img, f)
}
