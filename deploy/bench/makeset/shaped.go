package main

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"hitcounter/cgi/testfiles"
)

// shapedSet writes digit i's frames and their delays (none for a still
// PNG digit).
type shapedSet func(i int) (frames []*image.Paletted, delays []int)

var shaped = map[string]shapedSet{
	"moe": func(i int) ([]*image.Paletted, []int) {
		var fs []*image.Paletted
		for k := range testfiles.MoeDelays(i) {
			fs = append(fs, moeFrame(i, k))
		}
		return fs, testfiles.MoeDelays(i)
	},
	"moestep": func(i int) ([]*image.Paletted, []int) {
		var fs []*image.Paletted
		var ds []int
		for k := range 10 {
			fs, ds = append(fs, moeFrame(i, k)), append(ds, 10)
		}
		return fs, ds
	},
	"tall": func(i int) ([]*image.Paletted, []int) {
		m := image.NewPaletted(image.Rect(0, 0, 200, 300), moePalette(i))
		for y := range 300 {
			for x := range 200 {
				if (x-100)*(x-100)/4+(y-150)*(y-150)/9 < 900 && (x+y)%9 > 2 {
					m.SetColorIndex(x, y, uint8(1+(x/12+y/20)%15))
				}
			}
		}
		return []*image.Paletted{m}, nil
	},
	"noise": func(i int) ([]*image.Paletted, []int) {
		return []*image.Paletted{noise(i, 0, 240, 270)}, nil
	},
	"frames": func(i int) ([]*image.Paletted, []int) {
		primes := []int{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}
		var fs []*image.Paletted
		var ds []int
		for k := range 6 {
			m := image.NewPaletted(image.Rect(0, 0, 256, 256), moePalette(i))
			for p := range m.Pix {
				m.Pix[p] = uint8(1 + (p/(7+k)+p%(256+i+k))%15)
			}
			fs, ds = append(fs, m), append(ds, primes[i])
		}
		return fs, ds
	},
}

// moePalette is digit i's 16 colours, clear first.
func moePalette(i int) color.Palette {
	pal := color.Palette{color.NRGBA{}}
	for s := range 15 {
		pal = append(pal, color.NRGBA{uint8(16 * s), uint8(200 - 8*s), uint8(0x40 + 12*i), 0xff})
	}
	return pal
}

// moeFrame is frame k of digit i of the moe sets: a clear ground, a body
// that sways by frame and a shaded face.
func moeFrame(i, k int) *image.Paletted {
	w, h := 45, 100
	m := image.NewPaletted(image.Rect(0, 0, w, h), moePalette(i))
	for y := range h {
		for x := range w {
			dx, dy := 2*x-w+(k%4)*3, 2*(y-60)
			if dx*dx+dy*dy < 30*30 || y > 20 && y < 40 && x > 10+k%3 && x < 35 {
				m.SetColorIndex(x, y, uint8(1+(x/4+y/8+k+i)%15))
			}
		}
	}
	return m
}

// noise is a w x h frame k of digit i of random colours from 256.
func noise(i, k, w, h int) *image.Paletted {
	rng := rand.New(rand.NewPCG(uint64(i), uint64(k)))
	pal := make(color.Palette, 256)
	for c := range pal {
		pal[c] = color.NRGBA{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32()), 0xff}
	}
	m := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for p := range m.Pix {
		m.Pix[p] = uint8(rng.Uint32())
	}
	return m
}

// writeShaped writes the set mk makes into dir: GIFs when it has
// delays, else PNGs.
func writeShaped(dir string, mk shapedSet) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range 10 {
		frames, delays := mk(i)
		var b bytes.Buffer
		name := strconv.Itoa(i) + ".png"
		if delays != nil {
			name = strconv.Itoa(i) + ".gif"
			g := &gif.GIF{Image: frames, Delay: delays}
			for range frames {
				g.Disposal = append(g.Disposal, gif.DisposalBackground)
			}
			if err := gif.EncodeAll(&b, g); err != nil {
				return err
			}
		} else if err := png.Encode(&b, frames[0]); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
