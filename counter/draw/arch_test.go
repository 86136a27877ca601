package draw

import (
	"hitcounter/counter"

	"crypto/sha256"
	"encoding/hex"
	"image/color"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// everyGlyphFile holds the SHA-256 of every glyph drawn in every font at
// every size, and of the palettes of many colour pairs.
const everyGlyphFile = "every-glyph.sha256"

// TestSameOnEveryArchitecture draws far more than the golden images do and
// compares one hash of it all, so that a compiler fusing multiply-adds (as
// Go does on arm64, and on amd64 with GOAMD64=v3) cannot move an edge pixel
// or a palette colour by one step unnoticed. Before flatten.go, arm64
// changed 12 of the 34 million coverage cells and 1 in 70,000 palette
// bytes, none of them in a golden image. deploy/test/arm_test.go runs this under
// qemu on arm64 and 32-bit ARM; go test ./counter/draw -update rewrites the file.
func TestSameOnEveryArchitecture(t *testing.T) {
	h := sha256.New()
	for _, font := range counter.FontNames() {
		for size := counter.MinSize; size <= counter.MaxSize; size++ {
			s := counter.DefaultStyle()
			s.Font, s.Size = font, size
			d, err := NewDrawing("0", s)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(glyphRunes); i++ {
				h.Write(d.rasterise(glyphRunes[i]))
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	rgba := func() color.NRGBA {
		v := r.Uint32()
		return color.NRGBA{uint8(v), uint8(v >> 8), uint8(v >> 16), uint8(v >> 24)}
	}
	for i := 0; i < 50000; i++ {
		d := Drawing{style: counter.Style{FG: rgba(), BG: rgba()}}
		for _, c := range d.palette() {
			n := c.(color.NRGBA)
			h.Write([]byte{n.R, n.G, n.B, n.A})
		}
	}
	got := hex.EncodeToString(h.Sum(nil))
	path := filepath.Join(goldenDir, everyGlyphFile)
	if *update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./counter/draw -update to make it)", err)
	}
	if w := strings.TrimSpace(string(want)); got != w {
		t.Errorf("every glyph and palette hash to %s, want %s", got, w)
	}
}
