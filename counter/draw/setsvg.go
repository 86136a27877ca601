package draw

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"io"
	"strconv"

	"hitcounter/counter/digitset"
)

// encodeSVG writes an SVG that embeds each digit's own file once, as a
// data: URI (for a strip's digit without one, a PNG of its first frame),
// and places it at each of its positions: an animated GIF
// animates as the browser plays it, each digit on its own clock. Nearest
// neighbour is asked of the browser (image-rendering: pixelated) unless
// the drawing is smooth.
func (d *setDrawing) encodeSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	wd, ht := strconv.Itoa(d.width), strconv.Itoa(d.height)
	bw.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + wd + `" height="` + ht +
		`" viewBox="0 0 ` + wd + ` ` + ht + `" role="img" aria-label="` + d.text + `"><title>` + d.text + `</title><defs>`)
	rendering := ` style="image-rendering:pixelated"`
	if d.opt.Smooth {
		rendering = ""
	}
	var done [10]bool
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	for i := 0; i < len(d.text); i++ {
		k := int(d.text[i] - '0')
		if done[k] {
			continue
		}
		done[k] = true
		piece, typ := d.set.Digits[k].Piece, d.set.Digits[k].PieceType
		if len(piece) == 0 {
			var err error
			if piece, err = DigitPNG(d.set, k); err != nil {
				return err
			}
			typ = digitset.TypePNG
		}
		bw.WriteString(`<image id="d` + strconv.Itoa(k) + `" width="` + strconv.Itoa(d.widths[k]) + `" height="` + ht +
			`" preserveAspectRatio="none"` + rendering + ` href="data:` + typ + `;base64,`)
		enc.Write(piece)
		enc.Close()
		bw.WriteString(`"/>`)
	}
	bw.WriteString(`</defs>`)
	x := 0
	for i := 0; i < len(d.text); i++ {
		k := int(d.text[i] - '0')
		bw.WriteString(`<use href="#d` + strconv.Itoa(k) + `" x="` + strconv.Itoa(x) + `"/>`)
		x += d.widths[k]
	}
	bw.WriteString(`</svg>`)
	return bw.Flush()
}

// DigitPNG returns digit k's first frame as a PNG in the set's palette:
// the piece that theme add stores for a digit cut from a strip, made
// without image/png.
func DigitPNG(s *digitset.Set, k int) ([]byte, error) {
	frames, err := s.Frames(k)
	if err != nil {
		return nil, fmt.Errorf("draw: %w", err)
	}
	w := s.Digits[k].Width
	if len(s.Palette) < 1 || len(s.Palette) > 256 || w < 1 || s.Height < 1 || len(frames[0].Pix) != w*s.Height {
		return nil, fmt.Errorf("draw: digit %d is not %dx%d in %d colours", k, w, s.Height, len(s.Palette))
	}
	img := &image.Paletted{Pix: frames[0].Pix, Stride: w, Rect: image.Rect(0, 0, w, s.Height), Palette: s.Palette}
	var b bytes.Buffer
	if err := encodePNG(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
