package imagehit

import (
	"bytes"
	"testing"
)

// TestChunkedBody writes the same pieces to a chunkedBody and to a
// bytes.Buffer: the bytes are the same, across chunks, after a Grow and
// after a Reset.
func TestChunkedBody(t *testing.T) {
	piece := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	for _, tc := range []struct {
		name   string
		writes []int // a negative one is Grow(-n)
	}{
		{"none", nil},
		{"small", []int{3, 0, 200}},
		{"one chunk full", []int{firstChunk}},
		{"past one chunk", []int{firstChunk - 1, 2}},
		{"a large write", []int{5, 3 * lastChunk}},
		{"bufio's pieces", []int{4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 1234}},
		{"grown", []int{10, -100000, 90000, 20000}},
		{"grown first", []int{-300, 300, 1}},
	} {
		for _, reset := range []bool{false, true} {
			var got chunkedBody
			var want bytes.Buffer
			if reset {
				got.Write(piece(5000, 'x'))
				got.Reset()
			}
			for i, n := range tc.writes {
				if n < 0 {
					got.Grow(-n)
					continue
				}
				p := piece(n, byte('a'+i%26))
				if k, err := got.Write(p); k != n || err != nil {
					t.Fatalf("%s: Write of %d: %d, %v", tc.name, n, k, err)
				}
				want.Write(p)
			}
			if got.Len() != want.Len() || !bytes.Equal(bytes.Join(got.Chunks(), nil), want.Bytes()) {
				t.Errorf("%s (reset %v): %d bytes (Len %d), want %d the same", tc.name, reset, len(bytes.Join(got.Chunks(), nil)), got.Len(), want.Len())
			}
		}
	}
}
