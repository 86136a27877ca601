package draw

import (
	"hitcounter/counter"

	"bytes"
	"compress/zlib"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenDir holds the images the drawing code must keep making.
const goldenDir = "../../testdata/golden"

var goldenCases = []struct {
	file  string
	text  string
	query string
}{
	{"default.png", counter.Digits(42, 6), ""},
	{"default.gif", counter.Digits(42, 6), ""},
	{"default.svg", counter.Digits(42, 6), ""},
	{"green-on-black.png", "12345678", "digits=8&fg=0f0&bg=000&size=32&font=mono-bold"},
	{"transparent.png", "9876", "fg=c00&bg=ffffff00&font=bold&digits=4"},
	{"transparent.gif", "9876", "fg=c00&bg=ffffff00&font=bold&digits=4"},
	{"translucent.svg", "505", "fg=0000ff80&bg=ffff0040&font=regular&digits=3"},
	{"smallest.png", "0", "size=8&digits=1&font=regular"},
	{"largest.png", "18446744073709551615", "size=128&digits=12"},
	{"placeholder.png", counter.Placeholder(6), ""},
	{"badge.png", "1234", "style=badge"},
	{"badge.gif", "1234", "style=badge"},
	{"badge.svg", "1234", "style=badge"},
	{"badge-own.png", "48213", "style=badge&label=Besucher%20%C3%BCberall&color=green&labelColor=%23333&size=28"},
	{"badge-own.svg", "48213", "style=badge&label=Besucher%20%C3%BCberall&color=green&labelColor=%23333&size=28"},
	{"badge-count-alone.png", "7", "style=badge&label=&color=rebeccapurple&digits=3"},
	{"badge-markup.svg", "5", "style=badge&label=%3Ca%20href%3D%22x%22%3E%26%27"},
	{"look-led.png", "0123456789", "theme=led&digits=10"},
	{"look-led-green.gif", counter.Digits(42, 6), "theme=led&fg=lime&bg=black&size=32"},
	{"look-odometer.png", "0123456789", "theme=odometer&digits=10"},
	{"look-nixie.png", "0123456789", "theme=nixie&digits=10&size=32"},
	{"look-retro.png", "0123456789", "theme=retro&digits=10"},
	{"look-retro.svg", counter.Digits(42, 6), "theme=retro"},
	{"look-odometer-small.png", counter.Placeholder(6), "theme=odometer&size=8"},
	{"theme-auto.svg", counter.Digits(42, 6), "theme=auto"},
	{"theme-auto-transparent.svg", counter.Digits(42, 6), "theme=auto&bg=transparent&fg=navy&darkfg=gold"},
}

func typeOf(t *testing.T, file string) counter.ImageType {
	t.Helper()
	f, ok := counter.ParseImageType(filepath.Ext(file)[1:])
	if !ok {
		t.Fatalf("no image type for %s", file)
	}
	return f
}

// TestGolden draws each case and compares it with its golden file: raster
// images pixel by pixel after decoding, SVG as text. go test ./counter/draw
// -update rewrites the files.
//
// The cached run draws every case three times through one GlyphCache, as a
// long-lived process does, and checks the last: cells taken from the cache
// must give the same pixels as cells drawn afresh.
func TestGolden(t *testing.T) {
	for _, v := range []struct {
		name  string
		cache *GlyphCache
		draws int
	}{{"fresh", nil, 1}, {"cached", new(GlyphCache), 3}} {
		for _, tc := range goldenCases {
			t.Run(v.name+"/"+tc.file, func(t *testing.T) {
				testGolden(t, tc.file, tc.text, tc.query, v.cache, v.draws)
			})
		}
	}
}

func testGolden(t *testing.T, file, text, query string, cache *GlyphCache, draws int) {
	s, err := counter.ParseStyle(query)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	for range draws {
		d, err := cache.NewDrawing(text, s)
		if err != nil {
			t.Fatal(err)
		}
		got.Reset()
		if err := d.Encode(&got, typeOf(t, file)); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, file, got.Bytes())
}

// checkGolden compares got with the golden file, or with -update writes
// it; on a mismatch it writes got to a temporary file and says where.
func checkGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, file)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./counter/draw -update to make it)", err)
	}
	if msg := compareImages(t, file, got, want); msg != "" {
		// Outside t.TempDir, which is gone when the test ends.
		out, err := os.CreateTemp("", "golden-*-"+file)
		if err == nil {
			out.Write(got)
			out.Close()
		}
		t.Errorf("%s: %s; drawn image written to %s", file, msg, out.Name())
	}
}

func compareImages(t *testing.T, file string, got, want []byte) string {
	t.Helper()
	if filepath.Ext(file) == ".svg" {
		if !bytes.Equal(got, want) {
			return "SVG differs"
		}
		return ""
	}
	gi, _, err := image.Decode(bytes.NewReader(got))
	if err != nil {
		return "drawn image does not decode: " + err.Error()
	}
	wi, _, err := image.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("golden %s does not decode: %v", file, err)
	}
	if gi.Bounds() != wi.Bounds() {
		return "size " + gi.Bounds().String() + ", want " + wi.Bounds().String()
	}
	diff := 0
	b := gi.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r1, g1, b1, a1 := gi.At(x, y).RGBA()
			r2, g2, b2, a2 := wi.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				diff++
			}
		}
	}
	if diff > 0 {
		return fmt.Sprintf("%d pixels differ", diff)
	}
	return ""
}

// TestDefaultPNGSize keeps the default counter small on the wire: a
// paletted image compresses far better than RGBA (PHP's GD writes 750 bytes
// for six digits), over a spread of 6-digit counts.
func TestDefaultPNGSize(t *testing.T) {
	worst, total, n := 0, 0, 0
	for count := uint64(0); count < 1000000; count += 7919 {
		d, err := NewDrawing(counter.Digits(count, counter.DefaultStyle().Digits), counter.DefaultStyle())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		d.Encode(&b, counter.PNG)
		if b.Len() > 800 {
			t.Errorf("default PNG of %d is %d bytes, want at most 800", count, b.Len())
		}
		worst, total, n = max(worst, b.Len()), total+b.Len(), n+1
	}
	t.Logf("default 6-digit PNG: mean %d bytes, largest %d, over %d counts", total/n, worst, n)
}

// TestTransparency checks which pixels come out clear: the background
// where bg is transparent, never an opaque bg, in PNG and GIF alike.
func TestTransparency(t *testing.T) {
	tests := []struct {
		query       string
		cornerClear bool // the background, where no digit is drawn
		digitOpaque bool // some pixel of the digit
	}{
		{"bg=ffffff00&fg=000", true, true},
		{"bg=fff&fg=0000ff40", false, false},
		{"bg=fff&fg=00000000", false, false},
		{"bg=fff&fg=000", false, true},
	}
	for _, tc := range tests {
		s, _ := counter.ParseStyle(tc.query)
		d, err := NewDrawing("1", s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []counter.ImageType{counter.PNG, counter.GIF} {
			var b bytes.Buffer
			if err := d.Encode(&b, f); err != nil {
				t.Fatal(err)
			}
			img, _, err := image.Decode(&b)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, _, a := img.At(0, 0).RGBA(); (a == 0) != tc.cornerClear {
				t.Errorf("%s, image type %d: corner alpha %d, want clear=%v", tc.query, f, a, tc.cornerClear)
			}
			opaque, clear := false, 0
			bb := img.Bounds()
			for y := bb.Min.Y; y < bb.Max.Y; y++ {
				for x := bb.Min.X; x < bb.Max.X; x++ {
					_, _, _, a := img.At(x, y).RGBA()
					opaque = opaque || a == 0xffff
					if a == 0 {
						clear++
					}
				}
			}
			if tc.digitOpaque && !opaque {
				t.Errorf("%s, image type %d: no opaque pixel, the digit is missing", tc.query, f)
			}
			if !tc.cornerClear && clear > 0 {
				t.Errorf("%s, image type %d: %d clear pixels on an opaque background", tc.query, f, clear)
			}
		}
	}
}

func TestEncodeBlank(t *testing.T) {
	for _, f := range []counter.ImageType{counter.PNG, counter.GIF} {
		var b bytes.Buffer
		if err := EncodeBlank(&b, f); err != nil {
			t.Fatal(err)
		}
		var img image.Image
		var err error
		if f == counter.PNG {
			img, err = png.Decode(&b)
		} else {
			img, err = gif.Decode(&b)
		}
		if err != nil || img.Bounds().Dx() != 1 || img.Bounds().Dy() != 1 {
			t.Errorf("image type %d: blank image %v, %v; want a 1x1 image", f, img, err)
		}
	}
}

// TestZlibRoundTrip checks the deflate writer against the standard
// library's decoder on data shaped like image rows and on noise.
func TestZlibRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 70000)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	rows := bytes.Repeat(append([]byte{0}, bytes.Repeat([]byte{0x0f, 0xf0, 0}, 40)...), 300)
	long := bytes.Repeat([]byte{7}, 1000) // runs longer than 258
	inputs := map[string][]byte{
		"empty": {}, "one": {9}, "two": {1, 2}, "three": {1, 2, 3},
		"noise": noise, "rows": rows, "long run": long,
		"far match": append(append(bytes.Clone(noise[:33000]), noise[:300]...), noise[:300]...),
	}
	// One set of buffers for all, as a long-lived process reuses them:
	// what an earlier input left in them must not leak into the next.
	var z []byte
	var chain []int32
	for name, in := range inputs {
		z = zlibCompress(z[:0], &chain, in)
		r, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		if !bytes.Equal(out, in) {
			t.Errorf("%s: round trip changed %d bytes into %d", name, len(in), len(out))
		}
	}
}

// TestGIFRoundTrip decodes what encodeGIF writes with image/gif, for
// palettes of every bit depth, odd sizes and a transparent colour.
func TestGIFRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, colours := range []int{1, 2, 3, 8, 16, 100, 256} {
		for _, size := range []image.Point{{1, 1}, {7, 3}, {300, 2}, {17, 260}} {
			pal := make(color.Palette, colours)
			for i := range pal {
				pal[i] = color.NRGBA{uint8(i * 7), uint8(i * 13), uint8(i * 29), 0xff}
			}
			pal[colours-1] = color.NRGBA{} // transparent
			img := image.NewPaletted(image.Rect(0, 0, size.X, size.Y), pal)
			for i := range img.Pix {
				img.Pix[i] = uint8(rng.IntN(colours))
			}
			var b bytes.Buffer
			if err := encodeGIF(&b, img); err != nil {
				t.Fatal(err)
			}
			got, err := gif.Decode(&b)
			if err != nil {
				t.Fatalf("%d colours, %v: %v", colours, size, err)
			}
			for y := 0; y < size.Y; y++ {
				for x := 0; x < size.X; x++ {
					r1, g1, b1, a1 := got.At(x, y).RGBA()
					r2, g2, b2, a2 := img.At(x, y).RGBA()
					if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
						t.Fatalf("%d colours, %v: pixel %d,%d differs", colours, size, x, y)
					}
				}
			}
		}
	}
}

// TestGlyphCacheBound asks for every size in every font, as a hostile
// visitor could, and checks the cache keeps no more than its bound while
// every drawing is still made.
func TestGlyphCacheBound(t *testing.T) {
	var c GlyphCache
	for _, font := range counter.FontNames() {
		for size := counter.MinSize; size <= counter.MaxSize; size++ {
			s := counter.DefaultStyle()
			s.Font, s.Size = font, size
			if _, err := c.NewDrawing("0", s); err != nil {
				t.Fatalf("%s at %d: %v", font, size, err)
			}
		}
	}
	if n := len(c.sets); n != maxGlyphSets {
		t.Errorf("cache holds %d glyph sets, want the bound %d", n, maxGlyphSets)
	}
}

// TestChunkCRC checks the PNG chunks' own CRC-32 against hash/crc32's.
func TestChunkCRC(t *testing.T) {
	for _, s := range []string{"", "IEND", "IHDR\x00\x00\x00\x06\x00\x00\x00\x02\x04\x03\x00\x00\x00", strings.Repeat("\xff\x00\x7f", 300)} {
		if got, want := chunkCRC([]byte(s)), crc32.ChecksumIEEE([]byte(s)); got != want {
			t.Errorf("chunkCRC(%q): got %08x, want %08x", s, got, want)
		}
	}
}
