package test

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// digitFolder writes an owner's digit set as Moe-Counter's folders
// hold one, made here with the standard library: 0.png..9.png, or
// animated 0.gif..9.gif (digit i in 1 + i%3 frames), each digit a
// coloured block with a lighter bar, of widths that differ. It returns
// the folder.
func digitFolder(t testing.TB, animated bool) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 10 {
		w, h := 14+i%3*2, 24
		frameOf := func(k int) *image.Paletted {
			pal := color.Palette{
				color.NRGBA{uint8(30 + 20*i), uint8(60 + 15*k*3), uint8(200 - 15*i), 0xff},
				color.NRGBA{0xff, 0xf0, 0xc0, 0xff},
			}
			m := image.NewPaletted(image.Rect(0, 0, w, h), pal)
			for y := 3 + 4*k; y < 3+4*k+3 && y < h; y++ {
				for x := 2; x < w-2; x++ {
					m.SetColorIndex(x, y, 1)
				}
			}
			return m
		}
		var b bytes.Buffer
		name := strconv.Itoa(i) + ".png"
		if animated {
			g := &gif.GIF{}
			for k := range 1 + i%3 {
				g.Image = append(g.Image, frameOf(k))
				g.Delay = append(g.Delay, 20+10*k)
			}
			if err := gif.EncodeAll(&b, g); err != nil {
				t.Fatal(err)
			}
			name = strconv.Itoa(i) + ".gif"
		} else if err := png.Encode(&b, frameOf(0)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readableDigitFolder is digitFolder where www-data may read it.
func readableDigitFolder(t testing.TB) string {
	t.Helper()
	dir := digitFolder(t, false)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	letTraverse(t, dir)
	return dir
}
