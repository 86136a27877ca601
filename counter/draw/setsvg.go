package draw

import (
	"bufio"
	"encoding/base64"
	"io"
	"strconv"
)

// encodeSVG writes an SVG that embeds each digit's own file once, as a
// data: URI, and places it at each of its positions: an animated GIF
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
		dg := &d.set.Digits[k]
		bw.WriteString(`<image id="d` + strconv.Itoa(k) + `" width="` + strconv.Itoa(d.widths[k]) + `" height="` + ht +
			`" preserveAspectRatio="none"` + rendering + ` href="data:` + dg.PieceType + `;base64,`)
		enc.Write(dg.Piece)
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
