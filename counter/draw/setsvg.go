package draw

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"io"
	"strconv"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// encodeSVG writes an SVG that embeds each digit's own file once, as a
// data: URI (for a strip's digit without one, a PNG of its first frame),
// and places it at each of its positions with <use>: however long the
// count, the SVG holds the files of its distinct digits once, so it is
// never much larger than the set's files. An animated GIF animates as
// the browser plays it, each digit on its own clock. Nearest neighbour is
// asked of the browser (image-rendering: pixelated) unless the drawing is
// smooth.
//
// A writer that can Grow (the bytes.Buffer an answer is gathered in) is
// grown once to the SVG's size: doubling its way up, it would hold twice
// the answer and have copied it on the way.
func (d *setDrawing) encodeSVG(w io.Writer) error {
	var pieces [digitset.NumPieces][]byte
	var types [digitset.NumPieces]string
	size := len(svgHead) + 2*len(d.text) + len(d.seq)*len(svgUse) + len(svgDim) + len(svgTail)
	for _, k := range d.seq {
		if pieces[k] != nil {
			continue
		}
		pieces[k], types[k] = d.set.Digits[k].Piece, d.set.Digits[k].PieceType
		if len(pieces[k]) == 0 {
			var err error
			if pieces[k], err = DigitPNG(d.set, k); err != nil {
				return err
			}
			types[k] = digitset.TypePNG
		}
		size += len(svgImage) + len(types[k]) + base64.StdEncoding.EncodedLen(len(pieces[k]))
	}
	if g, ok := w.(interface{ Grow(int) }); ok {
		g.Grow(size)
	}
	bw := bufio.NewWriter(w)
	writeSVGHead(bw, d.width, d.height, d.text)
	switch d.opt.Dim {
	case counter.DimAuto:
		bw.WriteString(`<style>@media (prefers-color-scheme: dark) { svg { filter: brightness(.6); } }</style>`)
	case counter.DimAlways:
		bw.WriteString(`<style>svg { filter: brightness(.6); }</style>`)
	}
	bw.WriteString(`<defs>`)
	rendering := ` style="image-rendering:pixelated"`
	if d.opt.Smooth {
		rendering = ""
	}
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	for _, k := range d.seq {
		if pieces[k] == nil {
			continue
		}
		bw.WriteString(`<image id="` + svgID(k) + `" width="` + strconv.Itoa(d.widths[k]) + `" height="` + strconv.Itoa(d.hts[k]) +
			`" preserveAspectRatio="none"` + rendering + ` href="data:` + types[k] + `;base64,`)
		enc.Write(pieces[k])
		enc.Close()
		bw.WriteString(`"/>`)
		pieces[k] = nil // embedded once
	}
	bw.WriteString(`</defs>`)
	for i, k := range d.seq {
		bw.WriteString(`<use href="#` + svgID(k) + `" x="` + strconv.Itoa(d.xs[i]) + `"`)
		if y := d.ys[i]; y != 0 || d.halfY(k) {
			// A vector image centres to the half pixel, as themify.js does.
			half := ""
			if d.halfY(k) {
				half = ".5"
			}
			bw.WriteString(` y="` + strconv.Itoa(y) + half + `"`)
		}
		bw.WriteString(`/>`)
	}
	bw.WriteString(svgTail)
	return bw.Flush()
}

// halfY reports whether piece k, centred, is half a pixel lower than
// the raster images draw it.
func (d *setDrawing) halfY(k int) bool {
	return d.opt.Align == counter.AlignCenter && (d.height-d.hts[k])%2 == 1
}

// svgID is the id of piece k's image in an SVG: d0..d9, then the
// pieces' names.
func svgID(k int) string {
	switch k {
	case digitset.Start:
		return "start"
	case digitset.End:
		return "end"
	case digitset.Comma:
		return "comma"
	case digitset.Dash:
		return "dash"
	}
	return "d" + strconv.Itoa(k)
}

// The SVG's pieces, at their longest, for its size: the head with its
// numbers and without the count (written twice), an image without its
// type and data, a <use>, and the end.
const (
	svgHead  = `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="256" viewBox="0 0 1024 256" role="img" aria-label=""><title></title><defs></defs>`
	svgImage = `<image id="comma" width="1024" height="256" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:;base64,"/>`
	svgUse   = `<use href="#comma" x="-1024" y="256"/>`
	svgDim   = `<style>@media (prefers-color-scheme: dark) { svg { filter: brightness(.6); } }</style>`
	svgTail  = `</svg>`
)

// DigitPNG returns digit k's first frame as a PNG in the set's palette:
// the piece that digitset add stores for a digit cut from a strip, made
// without image/png.
func DigitPNG(s *digitset.Set, k int) ([]byte, error) {
	frames, err := s.Frames(k)
	if err != nil {
		return nil, fmt.Errorf("draw: %w", err)
	}
	w, h := s.Digits[k].Width, s.Digits[k].Height
	if len(s.Palette) < 1 || len(s.Palette) > 256 || w < 1 || h < 1 || len(frames[0].Pix) != w*h {
		return nil, fmt.Errorf("draw: %s is not %dx%d in %d colours", digitset.PieceName(k), w, h, len(s.Palette))
	}
	img := &image.Paletted{Pix: frames[0].Pix, Stride: w, Rect: image.Rect(0, 0, w, h), Palette: s.Palette}
	var b bytes.Buffer
	if err := encodePNG(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
