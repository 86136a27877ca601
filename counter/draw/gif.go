package draw

import (
	"bufio"
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
	depth := indexBits(len(img.Palette)) // the colour table has 1<<depth entries
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

	e := new(lzwEncoder)
	e.reset(litWidth)
	for y := range height {
		e.write(img.Pix[y*img.Stride : y*img.Stride+width])
	}
	data, err := e.close()
	if err != nil {
		return err
	}
	writeSubBlocks(bw, data)
	bw.WriteByte(0x3b) // trailer
	return bw.Flush()
}
