package draw

import (
	"bytes"
	"compress/lzw"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// stdlibLZW is what compress/lzw writes for the writes in chunks.
func stdlibLZW(tb testing.TB, litWidth int, chunks [][]byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	w := lzw.NewWriter(&b, lzw.LSB, litWidth)
	for _, c := range chunks {
		if _, err := w.Write(c); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// checkLZW encodes chunks with e, reset for litWidth, and compares the
// bytes with compress/lzw's, and what compress/lzw's reader makes of them
// with the input.
func checkLZW(t *testing.T, e *lzwEncoder, litWidth int, chunks [][]byte) {
	t.Helper()
	e.reset(litWidth)
	for _, c := range chunks {
		e.write(c)
	}
	got, err := e.close()
	if err != nil {
		t.Fatal(err)
	}
	if want := stdlibLZW(t, litWidth, chunks); !bytes.Equal(got, want) {
		t.Fatalf("litWidth %d, %d bytes in: got %d bytes, want compress/lzw's %d (first difference at %d)",
			litWidth, len(bytes.Join(chunks, nil)), len(got), len(want), firstDiff(got, want))
	}
	back, err := io.ReadAll(lzw.NewReader(bytes.NewReader(got), lzw.LSB, litWidth))
	if err != nil {
		t.Fatal(err)
	}
	if in := bytes.Join(chunks, nil); !bytes.Equal(back, in) {
		t.Fatalf("decoded %d bytes, want the %d written", len(back), len(in))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestLZW compares the encoder with compress/lzw's on inputs that reach
// its corners: empty, one index, long runs, the table filling (and being
// cleared) mid-stream and at the very end, every width; one encoder
// reused for all, as a GIF's frames reuse it.
func TestLZW(t *testing.T) {
	var e lzwEncoder
	r := rand.New(rand.NewPCG(1, 2))
	random := func(n, colours int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(colours))
		}
		return b
	}
	runs := func(n, colours int) []byte {
		var b []byte
		for len(b) < n {
			b = append(b, bytes.Repeat([]byte{byte(r.IntN(colours))}, 1+r.IntN(40))...)
		}
		return b[:n]
	}
	for _, tc := range []struct {
		name     string
		litWidth int
		chunks   [][]byte
	}{
		{"empty", 2, nil},
		{"empty write", 8, [][]byte{{}}},
		{"one index", 2, [][]byte{{3}}},
		{"one run", 4, [][]byte{bytes.Repeat([]byte{5}, 100000)}},
		{"runs in rows", 5, [][]byte{runs(155, 32), runs(155, 32), runs(155, 32), {}, runs(155, 32)}},
		{"random 2 colours", 2, [][]byte{random(20000, 4)}},
		{"random 256 colours", 8, [][]byte{random(30000, 256)}},
		{"random runs 256", 8, [][]byte{runs(200000, 256)}},
		{"random 16 colours", 4, [][]byte{random(50000, 16)}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkLZW(t, &e, tc.litWidth, tc.chunks) })
	}
	// The table fills on the last index, or on the one before it, of
	// some length: every length near the first fill is tried.
	in := random(6000, 256)
	fill := -1
	for n := 3000; n < len(in) && fill < 0; n++ {
		e.reset(8)
		e.write(in[:n])
		if e.hi < 0x200 {
			fill = n // the shortest input whose table was full
		}
	}
	if fill < 0 {
		t.Fatal("no input length filled the table")
	}
	for n := fill - 3; n <= fill+3; n++ {
		t.Run(fmt.Sprintf("full table at %d of %d", fill, n), func(t *testing.T) { checkLZW(t, &e, 8, [][]byte{in[:n]}) })
	}
}

// TestLZWIndexPastTable: an index over litWidth's bits is an error, as
// compress/lzw's.
func TestLZWIndexPastTable(t *testing.T) {
	var e lzwEncoder
	e.reset(2)
	e.write([]byte{0, 1, 4, 2})
	if _, err := e.close(); err != errLZWIndex {
		t.Fatalf("got %v, want %v", err, errLZWIndex)
	}
	e.reset(2)
	e.write([]byte{0, 1, 3, 2})
	if _, err := e.close(); err != nil {
		t.Fatalf("after reset: %v", err)
	}
}

// FuzzLZW compares the encoder with compress/lzw's on any input, cut
// into writes and encoded twice by one encoder (a reset between).
func FuzzLZW(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x01\x01\x02"), uint8(2), uint8(3))
	f.Add(bytes.Repeat([]byte{7, 7, 7, 7, 1}, 900), uint8(8), uint8(40))
	var runs []byte
	for n := range 300 {
		runs = append(runs, bytes.Repeat([]byte{byte(n % 3)}, n%37)...)
	}
	f.Add(runs, uint8(0), uint8(154))
	f.Fuzz(func(t *testing.T, in []byte, width, cut uint8) {
		litWidth := 2 + int(width)%7
		for i := range in {
			in[i] &= 1<<litWidth - 1
		}
		var chunks [][]byte
		for step := 1 + int(cut); len(in) > 0; {
			n := min(step, len(in))
			chunks, in = append(chunks, in[:n]), in[n:]
		}
		var e lzwEncoder
		checkLZW(t, &e, litWidth, chunks)
		checkLZW(t, &e, 8, chunks)
	})
}

// BenchmarkLZW encodes a 155x48 frame of a diagonal 32-colour gradient
// (the worst of sampleSet's digits) and one of runs, as rows.
func BenchmarkLZW(b *testing.B) {
	grad := make([]byte, 155*48)
	for i := range grad {
		grad[i] = byte((i%155 + i/155) % 32)
	}
	runs := make([]byte, 155*48)
	for i := range runs {
		runs[i] = byte(i % 155 / 28)
	}
	for _, tc := range []struct {
		name string
		in   []byte
	}{{"gradient", grad}, {"runs", runs}} {
		b.Run(tc.name+"/ours", func(b *testing.B) {
			e := new(lzwEncoder)
			b.SetBytes(int64(len(tc.in)))
			for b.Loop() {
				e.reset(6)
				for y := range 48 {
					e.write(tc.in[y*155 : (y+1)*155])
				}
				if _, err := e.close(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/compress-lzw", func(b *testing.B) {
			var buf bytes.Buffer
			b.SetBytes(int64(len(tc.in)))
			for b.Loop() {
				buf.Reset()
				w := lzw.NewWriter(&buf, lzw.LSB, 6)
				for y := range 48 {
					w.Write(tc.in[y*155 : (y+1)*155])
				}
				w.Close()
			}
		})
	}
}
