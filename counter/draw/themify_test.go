package draw

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// moeCommit is the commit of journey-ad/Moe-Counter whose utils/themify.js
// moeLayout follows.
const moeCommit = "8abee4defc7c10b8d82103a36d826a24416e5169"

// moePiece is one <use> of Moe-Counter's SVG: the image it places
// (themify.js's char: "0".."9", "_start", "_end"), its size and where.
type moePiece struct {
	char       string
	w, h, x, y float64
}

// moeLayout is getCountImage of utils/themify.js at moeCommit, step by
// step, without the SVG text: sizes are each image's width and height as
// image-size reads them, by char; params are the query's, as strings,
// with themify.js's defaults for those not given (padding 7, prefix -1,
// offset 0, align top, scale 1). It returns each <use>, and the width and
// height of the <svg>.
func moeLayout(sizes map[string][2]int, count uint64, params map[string]string) (uses []moePiece, width, height float64) {
	get := func(k, def string) string {
		if v, ok := params[k]; ok {
			return v
		}
		return def
	}
	// padding = parseInt(Number(padding), 10) etc.
	padding, _ := strconv.Atoi(get("padding", "7"))
	prefix, _ := strconv.Atoi(get("prefix", "-1"))
	offset, _ := strconv.ParseFloat(get("offset", "0"), 64)
	scale, _ := strconv.ParseFloat(get("scale", "1"), 64)
	align := get("align", "top")

	// count.toString().padStart(padding, '0').split('')
	s := strconv.FormatUint(count, 10)
	for len(s) < padding {
		s = "0" + s
	}
	countArray := strings.Split(s, "")
	// if (prefix >= 0) countArray.unshift(...String(prefix).split(''))
	if prefix >= 0 {
		countArray = append(strings.Split(strconv.Itoa(prefix), ""), countArray...)
	}
	// _start and _end if the theme has them
	if _, ok := sizes["_start"]; ok {
		countArray = append([]string{"_start"}, countArray...)
	}
	if _, ok := sizes["_end"]; ok {
		countArray = append(countArray, "_end")
	}
	// y = max height of the unique chars, scaled
	y := 0.0
	for _, c := range countArray {
		y = math.Max(y, float64(sizes[c][1])*scale)
	}
	x := 0.0
	for _, c := range countArray {
		w, h := float64(sizes[c][0])*scale, float64(sizes[c][1])*scale
		yOffset := 0.0
		switch align {
		case "center":
			yOffset = (y - h) / 2
		case "bottom":
			yOffset = y - h
		}
		uses = append(uses, moePiece{c, w, h, x, yOffset})
		x += w + offset
	}
	x -= offset // "Fix the last image offset"
	return uses, x, y
}

// themifySet makes a set of the sizes given, in digitset's pieces: the
// digits and Moe-Counter's _start and _end.
func themifySet(t *testing.T, sizes map[string][2]int) *digitset.Set {
	t.Helper()
	var src [digitset.NumPieces]digitset.Source
	for c, wh := range sizes {
		k := digitset.Start
		switch c {
		case "_end":
			k = digitset.End
		case "_start":
		default:
			k = int(c[0] - '0')
		}
		img := digitFrame(k%10, 0, wh[0], wh[1])
		piece, typ := encodePiece(t, []image.Image{img}, nil)
		src[k] = digitset.Source{Frames: []image.Image{img}, Piece: piece, PieceType: typ}
	}
	s, err := digitset.New(src, digitset.LayoutPNGFolder)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	svgImageRE = regexp.MustCompile(`<image id="([a-z0-9]+)" width="(\d+)" height="(\d+)"`)
	svgUseRE   = regexp.MustCompile(`<use href="#([a-z0-9]+)" x="(-?\d+)"(?: y="(\d+(?:\.5)?)")?/>`)
	svgSizeRE  = regexp.MustCompile(`^<svg [^>]*width="(\d+)" height="(\d+)"`)
)

// ourLayout reads back what our SVG places: each <use>, by Moe-Counter's
// names of the images, and the SVG's size.
func ourLayout(t *testing.T, svg string) (uses []moePiece, width, height float64) {
	t.Helper()
	num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	name := func(id string) string {
		if id == "start" || id == "end" {
			return "_" + id
		}
		return strings.TrimPrefix(id, "d")
	}
	size := map[string][2]float64{}
	for _, m := range svgImageRE.FindAllStringSubmatch(svg, -1) {
		size[name(m[1])] = [2]float64{num(m[2]), num(m[3])}
	}
	for _, m := range svgUseRE.FindAllStringSubmatch(svg, -1) {
		c := name(m[1])
		uses = append(uses, moePiece{c, size[c][0], size[c][1], num(m[2]), num(m[3])})
	}
	m := svgSizeRE.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no <svg> size in %.200s", svg)
	}
	return uses, num(m[1]), num(m[2])
}

// TestThemifyLayout draws sets in our SVG with Moe-Counter's options and
// compares every piece's width, height, x and y, and the image's size,
// with what utils/themify.js (journey-ad/Moe-Counter at moeCommit) lays
// out for the same set, count and options. The sets have digits of
// unequal widths and heights, a short "1" and a tall "7", and _start and
// _end of their own sizes; sizes are even so that scale=0.5 and 1.5 give
// whole pixels, which our drawing keeps to (a piece centred half a pixel
// down is placed so in the SVG, as themify.js places it, and on the
// pixel above in a PNG or GIF).
func TestThemifyLayout(t *testing.T) {
	withEnds := map[string][2]int{
		"0": {20, 30}, "1": {12, 24}, "2": {20, 30}, "3": {22, 30}, "4": {20, 30},
		"5": {20, 30}, "6": {18, 30}, "7": {20, 36}, "8": {20, 30}, "9": {20, 30},
		"_start": {32, 40}, "_end": {14, 20},
	}
	digitsOnly := map[string][2]int{}
	for c, wh := range withEnds {
		if !strings.HasPrefix(c, "_") {
			digitsOnly[c] = wh
		}
	}
	// Real themes' sizes, as image-size reads assets/theme/NAME/* at
	// moeCommit: capoo-2 has _start and _end; the others have digits of
	// unequal heights.
	capoo2 := map[string][2]int{"0": {36, 115}, "1": {36, 115}, "2": {36, 115}, "3": {36, 115}, "4": {36, 115}, "5": {36, 115},
		"6": {36, 115}, "7": {36, 115}, "8": {36, 115}, "9": {36, 115}, "_end": {66, 115}, "_start": {87, 115}}
	helltaker := map[string][2]int{"0": {92, 134}, "1": {86, 131}, "2": {84, 150}, "3": {63, 139}, "4": {91, 124},
		"5": {81, 140}, "6": {90, 132}, "7": {113, 132}, "8": {82, 120}, "9": {147, 147}}
	minecraft := map[string][2]int{"0": {112, 112}, "1": {128, 128}, "2": {110, 110}, "3": {115, 115}, "4": {127, 127},
		"5": {114, 114}, "6": {128, 128}, "7": {109, 109}, "8": {117, 117}, "9": {110, 110}}
	tests := []struct {
		name  string
		sizes map[string][2]int
		count uint64
		query string
	}{
		{"capoo-2", capoo2, 1234, "padding=7"},
		{"capoo-2 scaled, spaced", capoo2, 1234, "padding=5&scale=2&offset=-8"},
		{"booru-helltaker centred", helltaker, 9472, "padding=7&align=center"},
		{"booru-helltaker bottom", helltaker, 1234567890, "padding=7&align=bottom&offset=4"},
		{"minecraft", minecraft, 16, "padding=4&align=center&prefix=3"},
		{"themify's defaults", withEnds, 1710, "padding=7"},
		{"bottom", withEnds, 1710, "padding=7&align=bottom"},
		{"center", withEnds, 91, "padding=5&align=center"},
		{"offset", withEnds, 1234567, "padding=7&offset=6"},
		{"negative offset", withEnds, 7, "padding=3&offset=-4&align=bottom"},
		{"prefix", withEnds, 42, "padding=3&prefix=1977"},
		{"scale down", withEnds, 1710, "padding=4&scale=0.5&align=center"},
		{"scale up", digitsOnly, 3071, "padding=4&scale=1.5&align=bottom&offset=2"},
		{"no ends", digitsOnly, 1117, "padding=6&align=center"},
		{"longer than padding", digitsOnly, 98765432, "padding=3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]string{}
			for _, kv := range strings.Split(tc.query, "&") {
				k, v, _ := strings.Cut(kv, "=")
				params[k] = v
			}
			wantUses, wantW, wantH := moeLayout(tc.sizes, tc.count, params)

			s := themifySet(t, tc.sizes)
			style, err := counter.ParseStyle(tc.query + "&theme=moe")
			if err != nil {
				t.Fatal(err)
			}
			text := style.CountText(tc.count, func(string) bool { return false })
			var b bytes.Buffer
			if err := WriteDigitSet(&b, s, text, counter.SVG, SetOptionsOf(s, style)); err != nil {
				t.Fatal(err)
			}
			gotUses, gotW, gotH := ourLayout(t, b.String())
			if gotW != wantW || gotH != wantH {
				t.Errorf("size %vx%v, themify.js %vx%v", gotW, gotH, wantW, wantH)
			}
			if fmt.Sprint(gotUses) != fmt.Sprint(wantUses) {
				t.Errorf("pieces (char w h x y):\n got %v\nwant %v", gotUses, wantUses)
			}
		})
	}
}
