package draw

import (
	"encoding/binary"
	"image"
	"image/color"
	"io"
	"sync"
)

// encodePNG writes a paletted image of at most 256 colours as a PNG with
// the smallest bit depth that holds its palette and a tRNS chunk when any
// colour is not opaque. It does what image/png does for such an image, with
// the compressor of deflate.go.
func encodePNG(w io.Writer, img *image.Paletted) error {
	width, height := img.Rect.Dx(), img.Rect.Dy()
	depth := indexBits(len(img.Palette))
	for depth&(depth-1) != 0 {
		depth++ // PNG's depths are 1, 2, 4 and 8
	}
	sc := scratchPool.Get().(*pngScratch)
	defer scratchPool.Put(sc)
	out := append(sc.out[:0], "\x89PNG\r\n\x1a\n"...)
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
	raw := grow(sc.raw, rowLen*height)
	sc.raw = raw
	for y := 0; y < height; y++ {
		row := raw[y*rowLen+1 : (y+1)*rowLen]
		pix := img.Pix[y*img.Stride:]
		for x := 0; x < width; x++ {
			shift := uint(8 - depth*(x%perByte+1))
			row[x/perByte] |= pix[x] << shift
		}
	}
	sc.z = zlibCompress(sc.z[:0], &sc.chain, raw)
	out = appendChunk(out, "IDAT", sc.z)
	out = appendChunk(out, "IEND", nil)
	sc.out = out
	_, err := w.Write(out)
	return err
}

// pngScratch holds an encoder's buffers, which a long-lived process reuses
// from one image to the next.
type pngScratch struct {
	out, raw, z []byte
	chain       []int32
}

var scratchPool = sync.Pool{New: func() any { return new(pngScratch) }}

// grow returns b resized to n zeroed bytes, reusing its array when it is
// large enough.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	b = b[:n]
	clear(b)
	return b
}

func appendChunk(out []byte, kind string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, kind...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, chunkCRC(out[start:]))
}

// chunkCRC is the CRC-32 (IEEE) of a chunk's type and data, half a byte
// at a time from a table of 16 constants. hash/crc32 builds a table of
// 8 KiB at the first sum on amd64 and 32-bit ARM, which a CGI hit would
// build for the few hundred bytes of a counter's PNG (bench-breakdown.sh
// shows it).
func chunkCRC(p []byte) uint32 {
	crc := ^uint32(0)
	for _, b := range p {
		crc ^= uint32(b)
		crc = crc>>4 ^ crcNibble[crc&15]
		crc = crc>>4 ^ crcNibble[crc&15]
	}
	return ^crc
}

// crcNibble is the CRC-32 (IEEE, reversed polynomial 0xedb88320) of each
// half byte.
var crcNibble = [16]uint32{
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
}
