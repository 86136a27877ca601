package draw

import (
	"bufio"
	"compress/lzw"
	"encoding/binary"
	"image"
	"image/color"
	"io"
)

// encodeGIF writes a paletted image of at most 256 colours as a GIF89a,
// its first fully transparent colour (if any) as the transparent index.
// It does what image/gif's encoder does for such an image; image/gif is not
// linked because its init registers a decoder too, and every CGI hit pays
// for the size of the binary.
func encodeGIF(w io.Writer, img *image.Paletted) error {
	width, height := img.Rect.Dx(), img.Rect.Dy()
	depth := 1 // bits per index; the colour table has 1<<depth entries
	for 1<<depth < len(img.Palette) {
		depth++
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("GIF89a")
	b := binary.LittleEndian.AppendUint16(nil, uint16(width))
	b = binary.LittleEndian.AppendUint16(b, uint16(height))
	b = append(b, 0x80|0x70|byte(depth-1), 0, 0) // global table, 8-bit colour
	for i := range 1 << depth {
		var c color.NRGBA
		if i < len(img.Palette) {
			c = color.NRGBAModel.Convert(img.Palette[i]).(color.NRGBA)
		}
		b = append(b, c.R, c.G, c.B)
	}
	for i, c := range img.Palette {
		if _, _, _, a := c.RGBA(); a == 0 {
			// Graphic control extension: transparent index i.
			b = append(b, 0x21, 0xf9, 4, 1, 0, 0, byte(i), 0)
			break
		}
	}
	b = append(b, 0x2c, 0, 0, 0, 0) // image descriptor at 0,0
	b = binary.LittleEndian.AppendUint16(b, uint16(width))
	b = binary.LittleEndian.AppendUint16(b, uint16(height))
	litWidth := max(2, depth) // GIF's smallest LZW code size is 2
	b = append(b, 0, byte(litWidth))
	bw.Write(b)

	blocks := &subBlocks{w: bw}
	lw := lzw.NewWriter(blocks, lzw.LSB, litWidth)
	for y := range height {
		if _, err := lw.Write(img.Pix[y*img.Stride : y*img.Stride+width]); err != nil {
			return err
		}
	}
	if err := lw.Close(); err != nil {
		return err
	}
	blocks.flush()
	bw.Write([]byte{0, 0x3b}) // end of image data, trailer
	return bw.Flush()
}

// subBlocks cuts the LZW stream into GIF's sub-blocks of up to 255 bytes.
type subBlocks struct {
	w   *bufio.Writer
	buf [255]byte
	n   int
}

func (s *subBlocks) Write(p []byte) (int, error) {
	for _, c := range p {
		s.buf[s.n] = c
		if s.n++; s.n == len(s.buf) {
			s.flush()
		}
	}
	return len(p), nil
}

// WriteByte and Flush make subBlocks the writer compress/lzw writes to
// directly; without them it would put a bufio.Writer of its own in
// between, allocated again at every Reset. Flush leaves the last block
// for flush, after the LZW stream ends.
func (s *subBlocks) WriteByte(c byte) error {
	s.buf[s.n] = c
	if s.n++; s.n == len(s.buf) {
		s.flush()
	}
	return nil
}

func (s *subBlocks) Flush() error { return nil }

func (s *subBlocks) flush() {
	if s.n > 0 {
		s.w.WriteByte(byte(s.n))
		s.w.Write(s.buf[:s.n])
		s.n = 0
	}
}
