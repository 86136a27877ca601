// Command makeset writes three digit sets for deploy/bench/bench-theme.sh,
// made here (no third-party images): DIR/still, 0.png..9.png; DIR/anim,
// 0.gif..9.gif, whose digits have 4 to 7 frames and delays of 10 to 20
// hundredths, so that a count's digits animate at different paces (the
// composed GIF's worst case: 003200 is 84 frames of an 840-hundredth
// cycle); and DIR/step, 0.gif..9.gif, every digit 8 frames of 10
// hundredths, in step, as most animated Moe-Counter themes are. Each
// digit is 28 to 32 px wide and 48 high, a coloured block with a light
// bar that moves down frame by frame.
//
//	go run ./deploy/bench/makeset DIR
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
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: makeset DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "makeset:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	for _, kind := range []string{"still", "anim", "step"} {
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
