// Package decode makes an owner's digit set out of its files with the
// standard library's decoders (image/png, image/gif, image/jpeg) and
// golang.org/x/image/webp. It runs in
// counter-themedecode, a process of its own (cgi/themedecode), never in
// the binary every hit starts: that one links no image decoder.
//
// Every file is sized up from its header before it is decoded (a digit at
// most digitset.MaxSide pixels a side and digitset.MaxPiecePixels in all,
// a strip ten of them wide; a GIF's
// frames counted from its block structure, at most digitset.MaxFrames), so
// that a small file cannot make a large decode. A GIF's blocks are walked
// as image/gif reads them, and image/gif gets only the blocks that walk
// copied out: it cannot decode a frame that was not counted. GIF frames
// are composed into full frames of the digit as a browser shows them: each
// frame drawn over the last, then disposed of as it says (kept, cleared to
// transparent, or the frame before it restored).
package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strconv"
	"strings"

	"golang.org/x/image/webp"

	"hitcounter/counter/digitset"
	"hitcounter/counter/digitsetfile"
)

// Set decodes the files of b into a set. Before a file is decoded, its
// pixels (every frame counted) are taken from the set's bound,
// digitset.MaxPixels, so that the decoding holds no more than a set may.
func Set(b digitsetfile.Bundle) (*digitset.Set, error) {
	var src [digitset.NumPieces]digitset.Source
	budget := digitset.MaxPixels
	switch b.Layout {
	case digitsetfile.PNGFolder, digitsetfile.GIFFolder, digitsetfile.JPEGFolder, digitsetfile.WebPFolder, digitsetfile.NamedFolder:
		if len(b.Data) < 10 || len(b.Data) > digitset.NumPieces {
			return nil, fmt.Errorf("decode: %d files, want ten digits and at most four other pieces", len(b.Data))
		}
		var seen [digitset.NumPieces]bool
		for i, data := range b.Data {
			k, ok := digitsetfile.PieceOf(b.Layout, b.Names[i])
			if !ok || seen[k] || i < 10 && k != i {
				return nil, fmt.Errorf("decode: file %d is %q", i, b.Names[i])
			}
			seen[k] = true
			d, err := digit(b.Layout, data, &budget)
			if err != nil {
				return nil, &digitset.DigitError{Digit: k, Reason: b.Names[i] + ": " + err.Error()}
			}
			src[k] = d
		}
	case digitsetfile.Strip:
		if len(b.Data) != 1 {
			return nil, fmt.Errorf("decode: %d files for a strip, want one", len(b.Data))
		}
		var err error
		if src, err = strip(b.Data[0], &budget); err != nil {
			return nil, err // digitset add names the file
		}
	default:
		return nil, fmt.Errorf("decode: layout %q", b.Layout)
	}
	return digitset.New(src, b.Layout)
}

// digit decodes one piece's file of a folder by what the file says it is
// (its first bytes), since Moe-Counter's folders mix image types (a GIF set's
// _start may be a PNG); a file that says nothing known is read as the
// image type of the folder's layout, for the error that decoder gives.
func digit(layout string, data []byte, budget *int) (digitset.Source, error) {
	lim := size{digitset.MaxSide, digitset.MaxSide, digitset.MaxPiecePixels}
	kind := layoutOf(data)
	if kind == "" {
		kind = layout
	}
	if kind == digitsetfile.GIFFolder || kind == digitsetfile.NamedFolder {
		a, err := decodeGIF(data, lim, budget)
		if err != nil {
			return digitset.Source{}, err
		}
		return digitset.Source{Frames: a.frames, Delays: a.delays, Loop: a.loop, Piece: data, PieceType: digitset.TypeGIF}, nil
	}
	f := stillTypes[kind]
	img, err := decodeStill(f, data, lim, budget)
	if err != nil {
		return digitset.Source{}, err
	}
	return digitset.Source{Frames: []image.Image{img}, Piece: data, PieceType: f.mediaType}, nil
}

// size is the most a file may hold: its width, its height and its
// pixels.
type size struct{ w, h, pixels int }

// stillType is a still image's type: how to size it up from its
// header and how to decode it.
type stillType struct {
	name      string
	mediaType string
	config    func([]byte) (image.Config, error)
	decode    func([]byte) (image.Image, error)
}

// stillTypes are the image types of still digits, by their folder's layout.
var stillTypes = map[string]stillType{
	digitsetfile.PNGFolder: {"PNG", digitset.TypePNG,
		func(b []byte) (image.Config, error) { return png.DecodeConfig(bytes.NewReader(b)) },
		func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }},
	digitsetfile.JPEGFolder: {"JPEG", digitset.TypeJPEG,
		func(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) },
		func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) }},
	digitsetfile.WebPFolder: {"WebP", digitset.TypeWebP, webpConfig,
		func(b []byte) (image.Image, error) { return webp.Decode(bytes.NewReader(b)) }},
}

// decodeStill decodes a still image of type f, of at most lim, taken
// from budget.
func decodeStill(f stillType, data []byte, lim size, budget *int) (image.Image, error) {
	cfg, err := f.config(data)
	if err != nil {
		if errors.Is(err, errAnimatedWebP) {
			return nil, err
		}
		return nil, fmt.Errorf("not a %s image (%v)", f.name, err)
	}
	if err := fits(cfg.Width, cfg.Height, lim); err != nil {
		return nil, err
	}
	if err := spend(budget, cfg.Width*cfg.Height); err != nil {
		return nil, err
	}
	img, err := f.decode(data)
	if err != nil {
		return nil, fmt.Errorf("a damaged %s image (%v)", f.name, err)
	}
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return nil, fmt.Errorf("a damaged %s image (%dx%d px, its header says %dx%d)", f.name, b.Dx(), b.Dy(), cfg.Width, cfg.Height)
	}
	return img, nil
}

// errAnimatedWebP reports an animated WebP, which golang.org/x/image/webp
// does not decode.
var errAnimatedWebP = errors.New("an animated WebP image, which is not read here (golang.org/x/image/webp decodes no animation): make the digit an animated GIF, or a still WebP")

// webpConfig sizes up a WebP from its header, refusing an animated one:
// one whose VP8X chunk says it is animated, or that holds an ANIM or
// ANMF chunk among its first chunks (walked by their lengths).
func webpConfig(b []byte) (image.Config, error) {
	if len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" {
		const animationBit = 1 << 1
		p := 12
		for n := 0; n < 64 && p+8 <= len(b); n++ {
			id, l := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
			if id == "ANIM" || id == "ANMF" || id == "VP8X" && p+8 < len(b) && b[p+8]&animationBit != 0 {
				return image.Config{}, errAnimatedWebP
			}
			if l < 0 || l > len(b)-p-8 {
				break
			}
			p += 8 + l + l&1
		}
	}
	return webp.DecodeConfig(bytes.NewReader(b))
}

// spend takes n pixels from budget, or fails.
func spend(budget *int, n int) error {
	if n > *budget {
		return fmt.Errorf("too big: the set passes %d pixels, every frame counted", digitset.MaxPixels)
	}
	*budget -= n
	return nil
}

// fits fails unless w x h is within lim.
func fits(w, h int, lim size) error {
	switch {
	case w < 1 || h < 1:
		return fmt.Errorf("%dx%d px, an empty image", w, h)
	case w > lim.w || h > lim.h:
		return fmt.Errorf("%dx%d px, too big: at most %dx%d", w, h, lim.w, lim.h)
	case w*h > lim.pixels:
		return fmt.Errorf("%dx%d px, too big: %d pixels, at most %d", w, h, w*h, lim.pixels)
	}
	return nil
}

// animation is a GIF's frames composed to full frames, their delays in
// hundredths of a second and its loop count as image/gif reads it.
type animation struct {
	frames  []image.Image
	delays  []int
	loop    int
	comment string // the GIF's comment: a Count.cgi strip's segments
}

// decodeGIF decodes a GIF of at most maxW x maxH pixels and
// digitset.MaxFrames frames, composed, its pixels taken from budget.
func decodeGIF(data []byte, lim size, budget *int) (animation, error) {
	cfg, err := gif.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return animation{}, fmt.Errorf("not a GIF image (%v)", err)
	}
	if err := fits(cfg.Width, cfg.Height, lim); err != nil {
		return animation{}, err
	}
	w, err := walkGIF(data, digitset.MaxFrames)
	if err != nil {
		return animation{}, fmt.Errorf("a damaged GIF image (%v)", err)
	}
	n := w.frames
	if n > digitset.MaxFrames {
		return animation{}, fmt.Errorf("%d frames, too many: at most %d", n, digitset.MaxFrames)
	}
	if err := spend(budget, cfg.Width*cfg.Height*max(n, 1)); err != nil {
		return animation{}, err
	}
	g, err := gif.DecodeAll(bytes.NewReader(w.data))
	if err != nil {
		return animation{}, fmt.Errorf("a damaged GIF image (%v)", err)
	}
	if len(g.Image) > n {
		// walkGIF's copy holds n image descriptors and no other way to
		// one: a bug if ever seen.
		return animation{}, fmt.Errorf("%d frames decoded of %d counted", len(g.Image), n)
	}
	a := compose(g)
	a.comment = string(w.comment)
	return a, nil
}

// compose draws g's frames as a browser shows them, each a full image of
// the logical screen, transparent where no frame has drawn.
func compose(g *gif.GIF) animation {
	screen := image.Rect(0, 0, g.Config.Width, g.Config.Height)
	canvas := image.NewNRGBA(screen)
	a := animation{loop: g.LoopCount}
	for i, f := range g.Image {
		var before *image.NRGBA
		disposal := byte(0)
		if i < len(g.Disposal) {
			disposal = g.Disposal[i]
		}
		if disposal == gif.DisposalPrevious {
			before = clone(canvas)
		}
		draw.Draw(canvas, f.Bounds(), f, f.Bounds().Min, draw.Over)
		a.frames = append(a.frames, clone(canvas))
		delay := 0
		if i < len(g.Delay) {
			delay = g.Delay[i]
		}
		a.delays = append(a.delays, delay)
		switch disposal {
		case gif.DisposalBackground:
			// Browsers clear to transparent, not to the background
			// colour the GIF names.
			draw.Draw(canvas, f.Bounds(), image.Transparent, image.Point{}, draw.Src)
		case gif.DisposalPrevious:
			canvas = before
		}
	}
	if len(a.frames) == 1 {
		a.delays = nil // a still digit
	}
	return a
}

func clone(m *image.NRGBA) *image.NRGBA {
	c := image.NewNRGBA(m.Rect)
	copy(c.Pix, m.Pix)
	return c
}

// gifStream is a GIF as the decoder hands it to image/gif: the blocks
// walkGIF found, in the order found, and the frames among them.
type gifStream struct {
	data    []byte
	frames  int
	comment []byte // the comment extensions' text, joined, at most maxComment bytes
}

// maxComment bounds the comment kept of a GIF: Count.cgi's strip info,
// the only one read, is a few dozen bytes.
const maxComment = 1024

// walkGIF walks the blocks of a GIF as image/gif's reader does (Go 1.26,
// src/image/gif/reader.go: decode, readExtension, readGraphicControl,
// readImageDescriptor) and copies out what a set needs: the header and
// global colour table, the loop count (as one NETSCAPE2.0 extension), each
// graphic control extension and each image with its colour table and data
// sub-blocks, then the trailer. Comments, plain text and other application
// extensions are left out; image/gif draws none of them. An image
// descriptor reaches the copy only as walkGIF counted it, so that image/gif,
// given the copy, decodes no frame that was not counted, whatever a block
// it would read otherwise than walkGIF says of its length. Past maxFrames,
// it goes on counting but copies no more.
func walkGIF(data []byte, maxFrames int) (gifStream, error) {
	const (
		extension  = 0x21
		descriptor = 0x2c
		trailer    = 0x3b
		plainText  = 0x01
		control    = 0xf9
		comment    = 0xfe
		app        = 0xff
	)
	if len(data) < 13 {
		return gifStream{}, errors.New("no header")
	}
	p := 13
	if flags := data[10]; flags&0x80 != 0 {
		p += 3 << (flags&7 + 1) // global colour table
	}
	if p > len(data) {
		return gifStream{}, errors.New("cut short in the colour table")
	}
	head := data[:p]
	var body []byte
	loop := -1
	// take returns the next n bytes.
	take := func(n int) ([]byte, error) {
		if n > len(data)-p {
			return nil, errors.New("cut short")
		}
		b := data[p : p+n]
		p += n
		return b, nil
	}
	// subBlocks passes a chain of sub-blocks and its empty end, and
	// returns it.
	subBlocks := func() ([]byte, error) {
		from := p
		for {
			n, err := take(1)
			if err != nil {
				return nil, err
			}
			if n[0] == 0 {
				return data[from:p], nil
			}
			if _, err := take(int(n[0])); err != nil {
				return nil, err
			}
		}
	}
	frames := 0
	var note []byte // the comments' text
	for {
		b, err := take(1)
		if err != nil {
			return gifStream{}, errors.New("no trailer")
		}
		switch b[0] {
		case extension:
			label, err := take(1)
			if err != nil {
				return gifStream{}, err
			}
			switch label[0] {
			case plainText: // 13 bytes read whole, whatever the first says
				if _, err := take(13); err != nil {
					return gifStream{}, err
				}
			case control: // 6 bytes read whole: a block of 4 and the end
				gce, err := take(6)
				if err != nil {
					return gifStream{}, err
				}
				if gce[0] != 4 || gce[5] != 0 {
					return gifStream{}, errors.New("a bad graphic control extension")
				}
				if frames < maxFrames {
					body = append(append(body, extension, control), gce...)
				}
				continue
			case comment:
				sub, err := subBlocks()
				if err != nil {
					return gifStream{}, err
				}
				for len(sub) > 0 && sub[0] != 0 && len(note) < maxComment {
					n := min(int(sub[0]), len(sub)-1)
					note = append(note, sub[1:1+n]...)
					sub = sub[1+n:]
				}
				note = note[:min(len(note), maxComment)]
				continue
			case app:
				n, err := take(1)
				if err != nil {
					return gifStream{}, err
				}
				id, err := take(int(n[0]))
				if err != nil {
					return gifStream{}, err
				}
				if string(id) == "NETSCAPE2.0" {
					n, err := take(1)
					if err != nil {
						return gifStream{}, err
					}
					if n[0] == 0 {
						continue
					}
					sub, err := take(int(n[0]))
					if err != nil {
						return gifStream{}, err
					}
					if n[0] == 3 && sub[0] == 1 {
						loop = int(sub[1]) | int(sub[2])<<8
					}
				}
			default:
				return gifStream{}, fmt.Errorf("unknown extension 0x%02x", label[0])
			}
			if _, err := subBlocks(); err != nil {
				return gifStream{}, err
			}
		case descriptor:
			from := p - 1
			desc, err := take(9)
			if err != nil {
				return gifStream{}, err
			}
			if flags := desc[8]; flags&0x80 != 0 {
				if _, err := take(3 << (flags&7 + 1)); err != nil {
					return gifStream{}, err
				}
			}
			lit, err := take(1)
			if err != nil {
				return gifStream{}, err
			}
			if lit[0] < 2 || lit[0] > 8 {
				return gifStream{}, fmt.Errorf("an LZW code size of %d", lit[0])
			}
			if _, err := subBlocks(); err != nil {
				return gifStream{}, err
			}
			if frames < maxFrames {
				body = append(body, data[from:p]...)
			}
			frames++
		case trailer:
			out := make([]byte, 0, len(head)+19+len(body)+1)
			out = append(out, head...)
			if loop >= 0 {
				out = append(out, extension, app, 11)
				out = append(out, "NETSCAPE2.0"...)
				out = append(out, 3, 1, byte(loop), byte(loop>>8), 0)
			}
			out = append(append(out, body...), trailer)
			return gifStream{data: out, frames: frames, comment: note}, nil
		default:
			return gifStream{}, fmt.Errorf("unknown block 0x%02x", b[0])
		}
	}
}

// strip cuts a strip image into its digits: by the segments that
// Count.cgi's mkstrip writes in a GIF's comment (countSegments), which
// may differ in width and may hold a comma and a dash after the clock's
// pieces, else into ten of equal width. A strip that is a GIF keeps its
// frames, each cut the same way. It may be as wide as maxSegments pieces.
func strip(data []byte, budget *int) ([digitset.NumPieces]digitset.Source, error) {
	var src [digitset.NumPieces]digitset.Source
	lim := size{maxSegments * digitset.MaxSide, digitset.MaxSide, maxSegments * digitset.MaxPiecePixels}
	var a animation
	if bytes.HasPrefix(data, []byte("GIF8")) {
		var err error
		if a, err = decodeGIF(data, lim, budget); err != nil {
			return src, err
		}
	} else {
		f, ok := stillTypes[layoutOf(data)]
		if !ok {
			return src, errors.New("not an image: a strip is a PNG, GIF, JPEG or WebP")
		}
		img, err := decodeStill(f, data, lim, budget)
		if err != nil {
			return src, err
		}
		a.frames = []image.Image{img}
	}
	b := a.frames[0].Bounds()
	segs, ok := countSegments(a.comment, b.Dx())
	if !ok {
		if b.Dx()%10 != 0 {
			return src, fmt.Errorf("%d px wide: ten digits of equal width make a width that divides by ten (or a GIF's comment gives Count.cgi's segments)", b.Dx())
		}
		w := b.Dx() / 10
		for i := range 10 {
			segs[i] = [2]int{i * w, (i + 1) * w}
		}
	}
	for i, seg := range segs {
		if seg[1] <= seg[0] {
			continue // a piece the strip lacks
		}
		w := seg[1] - seg[0]
		frames := make([]image.Image, len(a.frames))
		for k, f := range a.frames {
			c := image.NewNRGBA(image.Rect(0, 0, w, b.Dy()))
			draw.Draw(c, c.Rect, f, image.Pt(b.Min.X+seg[0], b.Min.Y), draw.Src)
			frames[k] = c
		}
		piece, typ, err := pieceOf(frames, a.delays, a.loop)
		if err != nil {
			return src, &digitset.DigitError{Digit: i, Reason: err.Error()}
		}
		src[i] = digitset.Source{Frames: frames, Delays: a.delays, Loop: a.loop, Piece: piece, PieceType: typ}
	}
	return src, nil
}

// maxSegments bounds the segments of a strip that countSegments reads:
// Count.cgi's mkstrip writes at most 19 (ten digits, the clock's colon,
// am and pm, comma, dash and the countdown's D, H, M and S).
const maxSegments = 20

// countSegments reads the strip info that Count.cgi's mkstrip writes in
// a GIF's comment (utils/mkstrip/mkstrip.c; read in src/image.c): "N" and
// then N+1 x positions, colon-separated, segment i running from the i-th
// to the next, in the order 0..9, colon, am, pm, comma, dash (and the
// countdown's D, H, M, S). It returns the digits' segments and, when the
// strip has them, the comma's and the dash's, by digitset's piece index;
// not ok when the comment is not such info or does not fit width.
func countSegments(comment string, width int) (segs [digitset.NumPieces][2]int, ok bool) {
	fields := strings.Split(strings.TrimSpace(comment), ":")
	if len(fields) < 12 || len(fields) > maxSegments+2 {
		return segs, false
	}
	nums := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > width {
			return segs, false
		}
		nums[i] = n
	}
	n := nums[0]
	if n < 10 || len(nums) != n+2 {
		return segs, false
	}
	xs := nums[1:]
	for i := 1; i < len(xs); i++ {
		if xs[i] <= xs[i-1] {
			return segs, false
		}
	}
	for i := range 10 {
		segs[i] = [2]int{xs[i], xs[i+1]}
	}
	if n > 13 {
		segs[digitset.Comma] = [2]int{xs[13], xs[14]}
	}
	if n > 14 {
		segs[digitset.Dash] = [2]int{xs[14], xs[15]}
	}
	return segs, true
}

// layoutOf is the folder layout whose files are of data's image type, by
// its first bytes, or "".
func layoutOf(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return digitsetfile.PNGFolder
	case bytes.HasPrefix(data, []byte("GIF8")):
		return digitsetfile.GIFFolder
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return digitsetfile.JPEGFolder
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return digitsetfile.WebPFolder
	}
	return ""
}

// pieceOf makes the file an SVG embeds for a digit cut from a strip: a
// PNG of a still digit; a GIF of an animated one when its frames hold at
// most 256 colours (those of the GIF it was cut from, as a rule), else a
// PNG of its first frame.
func pieceOf(frames []image.Image, delays []int, loop int) ([]byte, string, error) {
	var buf bytes.Buffer
	if len(frames) > 1 {
		if pal, ok := paletteOf(frames); ok {
			g := &gif.GIF{LoopCount: loop, Delay: delays}
			for _, f := range frames {
				p := image.NewPaletted(f.Bounds(), pal)
				draw.Draw(p, p.Rect, f, image.Point{}, draw.Src)
				g.Image = append(g.Image, p)
				g.Disposal = append(g.Disposal, gif.DisposalNone)
			}
			if err := gif.EncodeAll(&buf, g); err != nil {
				return nil, "", err
			}
			return buf.Bytes(), digitset.TypeGIF, nil
		}
	}
	if err := png.Encode(&buf, frames[0]); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), digitset.TypePNG, nil
}

// paletteOf returns the colours of frames, transparent first, when they
// are at most 256.
func paletteOf(frames []image.Image) (color.Palette, bool) {
	pal := color.Palette{color.NRGBA{}}
	seen := map[color.NRGBA]bool{{}: true}
	for _, f := range frames {
		m := f.(*image.NRGBA)
		for i := 0; i < len(m.Pix); i += 4 {
			c := color.NRGBA{m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3]}
			if c.A == 0 {
				c = color.NRGBA{}
			}
			if !seen[c] {
				if len(pal) == 256 {
					return nil, false
				}
				seen[c] = true
				pal = append(pal, c)
			}
		}
	}
	return pal, true
}
