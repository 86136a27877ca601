// Package testfiles makes the files that tests feed the decoders of an
// owner's digit sets: written byte by byte, to hold what no encoder
// writes, and the shapes of real sets. It imports nothing of the house,
// and only tests and benches import it.
package testfiles

import (
	"bytes"
	"compress/lzw"
	"testing"
)

// DesyncedGIF makes a GIF of a w x h screen whose frames (1 x 1 pixel
// each, frames of them) follow a Plain Text extension as image/gif reads
// one (Go 1.26.8, src/image/gif/reader.go, readExtension: 13 bytes read
// whole, whatever the first says, then sub-blocks). The first of the 13
// is 0 and the second 0x3b: a walk that reads them as sub-blocks sees the
// extension end there, then the trailer, and counts no frame, while
// image/gif decodes every one.
func DesyncedGIF(tb testing.TB, w, h, frames int) []byte {
	tb.Helper()
	b := []byte("GIF89a")
	b = append(b, byte(w), byte(w>>8), byte(h), byte(h>>8), 0x80, 0, 0) // a global table of 2
	b = append(b, 0xff, 0, 0, 0, 0, 0xff)
	b = append(b, 0x21, 0x01, 0, 0x3b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) // 13 bytes, then the end
	var lz bytes.Buffer
	zw := lzw.NewWriter(&lz, lzw.LSB, 2)
	zw.Write([]byte{0})
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	for range frames {
		b = append(b, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, byte(lz.Len()))
		b = append(append(b, lz.Bytes()...), 0)
	}
	return append(b, 0x3b)
}
