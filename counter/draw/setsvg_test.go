package draw

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// TestDigitSetSVG checks that each digit drawn is embedded once, as its
// own file, and placed edge to edge at the output's scale.
func TestDigitSetSVG(t *testing.T) {
	s := animSet(t)
	var b bytes.Buffer
	if err := WriteDigitSet(&b, s, "0100", counter.SVG, SetOptions{Height: 20}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	images := regexp.MustCompile(`<image id="d(\d)" width="(\d+)" height="20" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:(image/\w+);base64,([^"]*)"/>`).FindAllStringSubmatch(svg, -1)
	if len(images) != 2 {
		t.Fatalf("got %d images, want 2: %s", len(images), svg)
	}
	for _, m := range images {
		k, _ := strconv.Atoi(m[1])
		piece, err := base64.StdEncoding.DecodeString(m[4])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(piece, s.Digits[k].Piece) || m[3] != s.Digits[k].PieceType {
			t.Errorf("digit %d: the embedded %s is not the digit's own file", k, m[3])
		}
		if w, _ := strconv.Atoi(m[2]); w != 2*setWidth(k) {
			t.Errorf("digit %d: got width %d, want %d", k, w, 2*setWidth(k))
		}
	}
	uses := regexp.MustCompile(`<use href="#d(\d)" x="(\d+)"/>`).FindAllStringSubmatch(svg, -1)
	x := 0
	for i, k := range []int{0, 1, 0, 0} {
		if i >= len(uses) || uses[i][1] != strconv.Itoa(k) || uses[i][2] != strconv.Itoa(x) {
			t.Fatalf("got uses %v, want digit %d at %d", uses, k, x)
		}
		x += 2 * setWidth(k)
	}
	if !strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="`+strconv.Itoa(x)+`" height="20" viewBox="0 0 `+strconv.Itoa(x)+` 20"`) {
		t.Errorf("got %.120s, want an SVG %d by 20", svg, x)
	}
	var smooth bytes.Buffer
	WriteDigitSet(&smooth, s, "1", counter.SVG, SetOptions{Height: 20, Smooth: true})
	if strings.Contains(smooth.String(), "pixelated") {
		t.Error("a smooth SVG asks for pixelated rendering")
	}
}

// TestDigitPNG: a strip's digits stored without files are embedded in an
// SVG as PNGs of their first frames, which DigitPNG makes.
func TestDigitPNG(t *testing.T) {
	s := stripSet(t)
	for k := range s.Digits {
		s.Digits[k].Piece, s.Digits[k].PieceType = nil, ""
	}
	s, err := digitset.Parse(s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	for k := range 10 {
		piece, err := DigitPNG(s, k)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(piece))
		if err != nil {
			t.Fatal(err)
		}
		if n := sameImage(img, digitFrame(k, 0, 7, setHeight)); n != 0 {
			t.Errorf("digit %d: %d pixels differ", k, n)
		}
	}
	var b bytes.Buffer
	if err := WriteDigitSet(&b, s, "3", counter.SVG, SetOptions{}); err != nil {
		t.Fatal(err)
	}
	want, _ := DigitPNG(s, 3)
	if !strings.Contains(b.String(), `href="data:image/png;base64,`+base64.StdEncoding.EncodeToString(want)+`"`) {
		t.Errorf("the SVG does not embed digit 3's PNG: %.200s", b.String())
	}
}

// TestDigitSetSVGSize: an SVG embeds the files of its distinct digits once,
// whatever the count's length, so that a stranger's answer is never much
// larger than the set's files (digitset.MaxPieceBytes); and it is written
// into a buffer grown once to its size, not doubled up to twice it.
func TestDigitSetSVGSize(t *testing.T) {
	s := animSet(t)
	for k := range s.Digits {
		// The set's files at their bound, a tenth a digit.
		s.Digits[k].Piece = bytes.Repeat([]byte{byte(k)}, digitset.MaxPieceBytes/10)
	}
	for _, text := range []string{"0", "00000000000000000000", "1234567890", "12345678900987654321"} {
		var b bytes.Buffer
		if err := WriteDigitSet(&b, s, text, counter.SVG, SetOptions{}); err != nil {
			t.Fatal(err)
		}
		distinct := 0
		for k := range 10 {
			if strings.ContainsRune(text, rune('0'+k)) {
				distinct++
			}
		}
		pieces := distinct * base64.StdEncoding.EncodedLen(digitset.MaxPieceBytes/10)
		bound := pieces + len(svgHead) + 2*len(text) + distinct*(len(svgImage)+len(s.Digits[0].PieceType)) + len(text)*len(svgUse) + len(svgTail)
		if n := strings.Count(b.String(), "<image "); n != distinct {
			t.Errorf("%s: %d images embedded, want %d, one a distinct digit", text, n, distinct)
		}
		if b.Len() > bound {
			t.Errorf("%s: an SVG of %d bytes, past %d: the files of its %d digits and their tags", text, b.Len(), bound, distinct)
		}
		if b.Cap() > b.Len()+b.Len()/16+8<<10 {
			t.Errorf("%s: an SVG of %d bytes in a buffer of %d", text, b.Len(), b.Cap())
		}
	}
}
