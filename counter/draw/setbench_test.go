package draw

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"testing"

	"hitcounter/cgi/testfiles"
	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// sampleSet is a set the size of a typical Moe-Counter digit set's digits:
// 24 to 28 by 48 px, shaded in 32 colours on a clear ground, each digit
// with frames frames 10 hundredths apart (1 for a still set). A mixed
// set has deploy/bench/makeset's timings instead: digit k has 4+k%4
// frames of 10+5*(k%3) hundredths, so that 123456 has a cycle of 4,200
// hundredths and is cut at MaxSetFrames.
func sampleSet(tb testing.TB, frames int, mixed bool) *digitset.Set {
	tb.Helper()
	var src [digitset.NumPieces]digitset.Source
	for k := range 10 {
		w, h := 24+k%5, 48
		d := digitset.Source{Piece: make([]byte, 1500), PieceType: digitset.TypePNG}
		n, delay := frames, 10
		if mixed {
			n, delay = 4+k%4, 10+5*(k%3)
		}
		for f := range n {
			img := image.NewNRGBA(image.Rect(0, 0, w, h))
			for y := range h {
				for x := range w {
					// A ring whose shading turns with the frame.
					dx, dy := 2*x-w, 2*y-h
					r := dx*dx + dy*dy
					if r < (w-2)*(w-2) && r > (w-10)*(w-10)/2 || (x+y+k)%7 == 0 && r < w*w {
						shade := (x + y + 4*f + 3*k) % 32
						img.SetNRGBA(x, y, color.NRGBA{uint8(8 * shade), uint8(255 - 6*shade), 0x40 + uint8(k*8), 0xff})
					}
				}
			}
			d.Frames = append(d.Frames, img)
			if n > 1 {
				d.Delays = append(d.Delays, delay)
				d.PieceType = digitset.TypeGIF
			}
		}
		src[k] = d
	}
	s, err := digitset.New(src, digitset.LayoutPNGFolder)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// drawStored is a hit's work: read the header and the digits the count
// needs from the stored records, compose and encode.
func drawStored(header []byte, digits *[10][]byte, text string, f counter.ImageType, opt SetOptions, buf *bytes.Buffer) error {
	s, err := digitset.ParseHeader(header)
	if err != nil {
		return err
	}
	for i := 0; i < len(text); i++ {
		k := int(text[i] - '0')
		if _, err := s.Frames(k); err == nil {
			continue
		}
		if err := s.ParseDigit(k, digits[k]); err != nil {
			return err
		}
	}
	buf.Reset()
	return WriteDigitSet(buf, s, text, f, opt)
}

// BenchmarkDigitSet draws a 6-digit count in a still set, an animated
// one whose digits are in step and one of mixed timings, in each image type, from the stored bytes: compare with
// BenchmarkDefaultPNG, a hit in the default font.
func BenchmarkDigitSet(b *testing.B) {
	for _, set := range []struct {
		name   string
		frames int
		mixed  bool
	}{{"still", 1, false}, {"animated", 8, false}, {"mixed", 0, true}} {
		s := sampleSet(b, set.frames, set.mixed)
		header := s.MarshalHeader()
		var digits [10][]byte
		for k := range digits {
			digits[k] = s.MarshalDigit(k)
		}
		for _, f := range []counter.ImageType{counter.PNG, counter.GIF, counter.SVG} {
			for _, opt := range []SetOptions{{}, {Height: 32}, {Height: 32, Smooth: true}} {
				name := fmt.Sprintf("%s/%s/height=%d", set.name, f.ContentType()[6:], opt.Height)
				if opt.Smooth {
					name += "/smooth"
				}
				b.Run(name, func(b *testing.B) {
					var buf bytes.Buffer
					for b.Loop() {
						if err := drawStored(header, &digits, "123456", f, opt, &buf); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(buf.Len()), "bytes/image")
				})
			}
		}
	}
}

// moeSet is a set of the shape of those: 45x100 px digits in 16 colours
// with testfiles.MoeDelays' frames, or, inStep, 10 frames of 10 hundredths each,
// each frame a figure that moves and changes its shading.
func moeSet(tb testing.TB, inStep bool) *digitset.Set {
	tb.Helper()
	var src [digitset.NumPieces]digitset.Source
	for k := range 10 {
		delays := testfiles.MoeDelays(k)
		if inStep {
			delays = []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}
		}
		d := digitset.Source{Piece: make([]byte, 7000), PieceType: digitset.TypeGIF, Delays: delays}
		for f := range delays {
			d.Frames = append(d.Frames, moeFrame(k, f))
		}
		src[k] = d
	}
	s, err := digitset.New(src, digitset.LayoutGIFFolder)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// moeFrame is frame f of digit k: a clear ground, a body that sways by
// frame and a shaded face, in 16 colours.
func moeFrame(k, f int) image.Image {
	w, h := 45, 100
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			dx, dy := 2*x-w+(f%4)*3, 2*(y-60)
			if dx*dx+dy*dy < 30*30 || y > 20 && y < 40 && x > 10+f%3 && x < 35 {
				shade := (x/4 + y/8 + f + k) % 16
				img.SetNRGBA(x, y, color.NRGBA{uint8(16 * shade), uint8(200 - 8*shade), uint8(0x40 + 12*k), 0xff})
			}
		}
	}
	return img
}

// BenchmarkMoeSetGIF draws counts in sets of the largest real animated
// shape as a GIF, mixed and in step, beside the default digits' GIF.
func BenchmarkMoeSetGIF(b *testing.B) {
	for _, set := range []struct {
		name   string
		inStep bool
	}{{"mixed", false}, {"step", true}} {
		s := moeSet(b, set.inStep)
		header := s.MarshalHeader()
		var digits [10][]byte
		for k := range digits {
			digits[k] = s.MarshalDigit(k)
		}
		for _, text := range []string{"003200", "12345678"} {
			b.Run(set.name+"/"+text, func(b *testing.B) {
				var buf bytes.Buffer
				for b.Loop() {
					if err := drawStored(header, &digits, text, counter.GIF, SetOptions{}, &buf); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(buf.Len()), "bytes/image")
			})
		}
	}
}
