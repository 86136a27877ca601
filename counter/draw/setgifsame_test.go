package draw

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

var updateSetGIF = flag.Bool("update-setgif", false, "rewrite testdata/setgif.sha256 from the GIFs drawn now")

// shortFrame is digitFrame with digit k k%3 px shorter: pieces of
// unequal heights, which Align places.
func shortFrame(k, f, w, h int) *image.NRGBA { return dotFrame(k, f, w, h-k%3) }

// TestDigitSetGIFSame draws sets of every shape the tests and the
// benchmarks know, over counts that change one digit or many at once,
// with offsets (gaps and overlaps), alignments, scales, smoothing and
// dimming, and checks each GIF's bytes against the SHA-256 the drawing
// gave before its boxes were found from each digit's frames rather than
// from whole composed frames (testdata/setgif.sha256, written by
// -update-setgif at c13b1c9): a faster drawing must
// give the very same bytes.
func TestDigitSetGIFSame(t *testing.T) {
	sets := []struct {
		name string
		s    *digitset.Set
	}{
		{"moe", moeSet(t, false)},
		{"moestep", moeSet(t, true)},
		{"anim", animSet(t)},
		{"dots", animSetOf(t, dotFrame)},
		{"short", animSetOf(t, shortFrame)},
		{"still", stillSet(t)},
	}
	opts := []struct {
		name string
		opt  SetOptions
	}{
		{"plain", SetOptions{}},
		{"gap3", SetOptions{Offset: 3}},
		{"overlap", SetOptions{Offset: -2}},
		{"center", SetOptions{Align: counter.AlignCenter, Offset: 1}},
		{"bottom", SetOptions{Align: counter.AlignBottom}},
		{"scaled", SetOptions{Height: 23}},
		{"smooth", SetOptions{Height: 17, Smooth: true, Align: counter.AlignCenter}},
		{"dim", SetOptions{Dim: counter.DimAlways, Offset: 2}},
	}
	counts := []string{"0", "7", "003200", "12345678", "99999", "1999999", "9876543210"}
	var got strings.Builder
	for _, set := range sets {
		for _, o := range opts {
			for _, text := range counts {
				if set.name == "moe" && len(text) > 8 && o.name != "plain" {
					continue // the longest moe counts once: they take the most time
				}
				var buf bytes.Buffer
				if err := WriteDigitSet(&buf, set.s, text, counter.GIF, o.opt); err != nil {
					t.Fatalf("%s %s %s: %v", set.name, o.name, text, err)
				}
				fmt.Fprintf(&got, "%s %s %s %x\n", set.name, o.name, text, sha256.Sum256(buf.Bytes()))
			}
		}
	}
	file := filepath.Join("testdata", "setgif.sha256")
	if *updateSetGIF {
		if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d GIFs drawn, %s has %d", len(gl)-1, file, len(wl)-1)
	}
	for i := range gl {
		if gl[i] != wl[i] {
			t.Errorf("got  %s\nwant %s", gl[i], wl[i])
		}
	}
}
