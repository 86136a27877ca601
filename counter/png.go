package counter

import (
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"io"
)

// encodePNG writes a paletted image of at most 256 colours as a PNG with
// the smallest bit depth that holds its palette and a tRNS chunk when any
// colour is not opaque. It does what image/png does for such an image, with
// the compressor of deflate.go.
func encodePNG(w io.Writer, img *image.Paletted) error {
	width, height := img.Rect.Dx(), img.Rect.Dy()
	depth := 8
	switch n := len(img.Palette); {
	case n <= 2:
		depth = 1
	case n <= 4:
		depth = 2
	case n <= 16:
		depth = 4
	}
	out := []byte("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(width))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(height))
	ihdr = append(ihdr, byte(depth), 3, 0, 0, 0) // palette colour, no interlace
	out = appendChunk(out, "IHDR", ihdr)

	plte := make([]byte, 0, 3*len(img.Palette))
	trns := make([]byte, 0, len(img.Palette))
	lastAlpha := -1
	for i, c := range img.Palette {
		n := color.NRGBAModel.Convert(c).(color.NRGBA)
		plte = append(plte, n.R, n.G, n.B)
		trns = append(trns, n.A)
		if n.A != 0xff {
			lastAlpha = i
		}
	}
	out = appendChunk(out, "PLTE", plte)
	if lastAlpha >= 0 {
		out = appendChunk(out, "tRNS", trns[:lastAlpha+1])
	}

	// Each row: filter type 0, then the indices packed depth bits each.
	perByte := 8 / depth
	rowLen := 1 + (width+perByte-1)/perByte
	raw := make([]byte, rowLen*height)
	for y := 0; y < height; y++ {
		row := raw[y*rowLen+1 : (y+1)*rowLen]
		pix := img.Pix[y*img.Stride:]
		for x := 0; x < width; x++ {
			shift := uint(8 - depth*(x%perByte+1))
			row[x/perByte] |= pix[x] << shift
		}
	}
	out = appendChunk(out, "IDAT", zlibCompress(raw))
	out = appendChunk(out, "IEND", nil)
	_, err := w.Write(out)
	return err
}

func appendChunk(out []byte, kind string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, kind...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}
