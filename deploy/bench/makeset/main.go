// Command makeset writes three digit sets for deploy/bench/bench-theme.sh,
// made here (no third-party images): DIR/still, 0.png..9.png; DIR/anim,
// 0.gif..9.gif, whose digits have 4 to 7 frames and delays of 10 to 20
// hundredths, so that a count's digits animate at different paces (the
// composed GIF's worst case: 003200 is 84 frames of an 840-hundredth
// cycle); and DIR/step, 0.gif..9.gif, every digit 8 frames of 10
// hundredths, in step, as most animated Moe-Counter digit sets are. Each
// digit is 28 to 32 px wide and 48 high, a coloured block with a light
// bar that moves down frame by frame.
//
// Named after DIR, it writes those instead, among them sets of the shapes
// of the largest real ones (deploy/bench/realsets measured Moe-Counter's
// assets/theme at 8abee4d) and the worst the bounds allow:
//
//   - moe: 0.gif..9.gif of 45x100 px in 16 colours on a clear ground,
//     each digit with the frames and delays of Moe-Counter's booru-lewd
//     (and rule34): 6 to 12 frames of mixed timings, cycles of 1 to 6.5 s;
//
//   - moestep: the same digits, 10 frames of 10 hundredths each, in step;
//
//   - tall: 0.png..9.png of 200x300 px, yousa-ling's shape, the tallest;
//
//   - noise: 0.png..9.png of 240x270 px of noise in 256 colours, near
//     the most pixels a digit may have, so that eight of them (1920x270)
//     come near the largest drawing;
//
//   - frames: 0.gif..9.gif of 6 frames of 256x256 px (the most pixels a
//     digit may have, and near the set's pixels with them), each
//     frame a new pattern over the whole digit, with delays of a prime
//     number of hundredths, 2 to 29, so that every digit changes at a
//     different time: the composed GIF's worst case.
//
//     go run ./deploy/bench/makeset DIR [KIND...]
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: makeset DIR [still|anim|step|moe|moestep|tall|noise|frames...]")
		os.Exit(2)
	}
	kinds := os.Args[2:]
	if len(kinds) == 0 {
		kinds = []string{"still", "anim", "step"}
	}
	if err := write(os.Args[1], kinds); err != nil {
		fmt.Fprintln(os.Stderr, "makeset:", err)
		os.Exit(1)
	}
}

func write(dir string, kinds []string) error {
	for _, kind := range kinds {
		if w, ok := shaped[kind]; ok {
			if err := writeShaped(filepath.Join(dir, kind), w); err != nil {
				return err
			}
			continue
		}
		if kind != "still" && kind != "anim" && kind != "step" {
			return fmt.Errorf("no set kind %q", kind)
		}
		set := filepath.Join(dir, kind)
		animated := kind != "still"
		if err := os.MkdirAll(set, 0o755); err != nil {
			return err
		}
		for i := range 10 {
			var b bytes.Buffer
			name := strconv.Itoa(i) + ".png"
			if animated {
				g := &gif.GIF{}
				frames, delay := 4+i%4, 10+5*(i%3)
				if kind == "step" {
					frames, delay = 8, 10
				}
				for k := range frames {
					g.Image = append(g.Image, digit(i, k))
					g.Delay = append(g.Delay, delay)
				}
				if err := gif.EncodeAll(&b, g); err != nil {
					return err
				}
				name = strconv.Itoa(i) + ".gif"
			} else if err := png.Encode(&b, digit(i, 0)); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(set, name), b.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// digit is frame k of digit i.
func digit(i, k int) *image.Paletted {
	w, h := 28+i%3*2, 48
	pal := color.Palette{
		color.NRGBA{uint8(30 + 20*i), uint8(60 + 45*k), uint8(200 - 15*i), 0xff},
		color.NRGBA{0xff, 0xf0, 0xc0, 0xff},
	}
	m := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for y := 3 + 6*k; y < 3+6*k+5 && y < h; y++ {
		for x := 2; x < w-2; x++ {
			m.SetColorIndex(x, y, 1)
		}
	}
	return m
}
