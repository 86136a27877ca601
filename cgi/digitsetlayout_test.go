package main

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"hitcounter/counter/digitset"
)

// The digit sets of these tests come in the layouts of the counters
// people copy sets from, made here by code (no real set is kept in the
// repository): Moe-Counter's folders (utils/themify.js and assets/theme/ of
// journey-ad/Moe-Counter at 8abee4defc7c10b8d82103a36d826a24416e5169:
// 0..9 and optional _start and _end, of any size), the "Digit Mania"
// folders that Count.cgi reads (zero.gif..nine.gif, comma.gif, dash.gif
// and clock pieces beside them: src/image.c of kadaokaduan/wwwcount at
// f6d0bf8d921cb6e923465e4efd0543b369206b67) and Count.cgi's strips, whose
// GIF comment gives the segments (utils/mkstrip/mkstrip.c there). Every
// piece is one colour, so a pixel says which piece it shows.

// pieceColour is the colour of piece k (digitset's numbering) in frame f.
func pieceColour(k, f int) color.NRGBA {
	return color.NRGBA{uint8(10 + 17*k), uint8(30 + 20*f), uint8(240 - 13*k), 0xff}
}

// box is where a piece is expected: its rectangle in the image, and its
// piece.
type box struct {
	k    int
	rect image.Rectangle
}

// layoutOf lays pieces of sizes out as themify.js does: left to right,
// offset apart, placed by align within the tallest; y is floored.
func layoutOf(seq []int, size func(k int) (int, int), offset int, align string) (boxes []box, w, h int) {
	for _, k := range seq {
		_, ph := size(k)
		h = max(h, ph)
	}
	x := 0
	for _, k := range seq {
		pw, ph := size(k)
		y := 0
		switch align {
		case "center":
			y = (h - ph) / 2
		case "bottom":
			y = h - ph
		}
		boxes = append(boxes, box{k, image.Rect(x, y, x+pw, y+ph)})
		x += pw + offset
	}
	return boxes, x - offset, h
}

// checkBoxes fails unless img is w x h and shows each box's piece in its
// colour of frame(k) at its corners and centre, and is clear above and
// below each box within its columns (the gaps of unequal heights).
func checkBoxes(t *testing.T, what string, img image.Image, boxes []box, w, h int, frame func(k int) int) {
	t.Helper()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s: drawn %dx%d, want %dx%d", what, b.Dx(), b.Dy(), w, h)
	}
	at := func(x, y int) color.NRGBA { return color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA) }
	// covered reports whether a box after the i-th covers p: with a
	// negative offset, a piece is drawn over the one before.
	covered := func(i int, p image.Point) bool {
		for _, b := range boxes[i+1:] {
			if p.In(b.rect) {
				return true
			}
		}
		return false
	}
	for i, b := range boxes {
		r := b.rect
		want := pieceColour(b.k, frame(b.k))
		for _, p := range []image.Point{r.Min, {r.Max.X - 1, r.Min.Y}, {r.Min.X, r.Max.Y - 1}, r.Max.Sub(image.Pt(1, 1)), {(r.Min.X + r.Max.X) / 2, (r.Min.Y + r.Max.Y) / 2}} {
			if covered(i, p) {
				continue
			}
			if got := at(p.X, p.Y); got != want {
				t.Fatalf("%s: %s at %v is %v, want %v (its box %v)", what, digitset.PieceName(b.k), p, got, want, r)
			}
		}
		mid := (r.Min.X + r.Max.X) / 2
		for _, y := range []int{r.Min.Y - 1, r.Max.Y} {
			if y >= 0 && y < h && !covered(-1, image.Pt(mid, y)) {
				if got := at(mid, y); got.A != 0 {
					t.Fatalf("%s: above or below %s, (%d,%d) is %v, want clear", what, digitset.PieceName(b.k), mid, y, got)
				}
			}
		}
	}
}

// svgBoxes reads an SVG of a set back into boxes, each piece's colour
// taken from the image it embeds; a piece centred half a pixel lower than
// a PNG can place it (y="2.5") is read at the PNG's pixel.
func svgBoxes(t *testing.T, svg []byte) (boxes []box, w, h int) {
	t.Helper()
	images := map[string]image.Image{}
	sizes := map[string][2]int{}
	for _, m := range regexp.MustCompile(`<image id="([a-z0-9]+)" width="(\d+)" height="(\d+)"[^>]* href="data:image/(?:png|gif|jpeg|webp);base64,([^"]+)"`).FindAllSubmatch(svg, -1) {
		data, err := base64.StdEncoding.DecodeString(string(m[4]))
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("image %s: %v", m[1], err)
		}
		wd, _ := strconv.Atoi(string(m[2]))
		ht, _ := strconv.Atoi(string(m[3]))
		images[string(m[1])], sizes[string(m[1])] = img, [2]int{wd, ht}
	}
	for _, m := range regexp.MustCompile(`<use href="#([a-z0-9]+)" x="(-?\d+)"(?: y="(\d+)(?:\.5)?")?/>`).FindAllSubmatch(svg, -1) {
		id := string(m[1])
		img := images[id]
		if img == nil {
			t.Fatalf("<use> of %s, which the SVG does not hold", id)
		}
		// The piece's colour says which it is, within JPEG's loss.
		c := color.NRGBAModel.Convert(img.At(img.Bounds().Dx()/2, img.Bounds().Dy()/2)).(color.NRGBA)
		k, best := -1, 13
		for i := range digitset.NumPieces {
			p := pieceColour(i, 0)
			if d := near(p.R, c.R) + near(p.G, c.G) + near(p.B, c.B); d < best && c.A == 0xff {
				k, best = i, d
			}
		}
		x, _ := strconv.Atoi(string(m[2]))
		y, _ := strconv.Atoi(string(m[3]))
		boxes = append(boxes, box{k, image.Rect(x, y, x+sizes[id][0], y+sizes[id][1])})
	}
	m := regexp.MustCompile(`^<svg [^>]*width="(\d+)" height="(\d+)"`).FindSubmatch(svg)
	if m == nil {
		t.Fatalf("no <svg> size: %.200s", svg)
	}
	w, _ = strconv.Atoi(string(m[1]))
	h, _ = strconv.Atoi(string(m[2]))
	return boxes, w, h
}

// sameBoxes fails unless got and want are the same boxes in order.
func sameBoxes(t *testing.T, what string, got, want []box) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d pieces %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: piece %d is %s at %v, want %s at %v", what, i, digitset.PieceName(got[i].k), got[i].rect, digitset.PieceName(want[i].k), want[i].rect)
		}
	}
}

// drawAll draws counter blog's count with query in PNG, GIF and SVG and
// checks each against the layout of seq.
func drawAll(t *testing.T, db, query string, seq []int, size func(k int) (int, int), offset int, align string) {
	t.Helper()
	boxes, w, h := layoutOf(seq, size, offset, align)
	ans := setHit(t, db, "blog.png", query)
	img, err := png.Decode(bytes.NewReader(ans.body))
	if err != nil {
		t.Fatal(err)
	}
	checkBoxes(t, "PNG "+query, img, boxes, w, h, func(int) int { return 0 })
	ans = setHit(t, db, "blog.gif", query)
	frames, _, _ := composeGIF(t, ans.body)
	checkBoxes(t, "GIF "+query, frames[0], boxes, w, h, func(int) int { return 0 })
	ans = setHit(t, db, "blog.svg", query)
	got, gw, gh := svgBoxes(t, ans.body)
	if gw != w || gh != h {
		t.Fatalf("SVG %s: %dx%d, want %dx%d", query, gw, gh, w, h)
	}
	sameBoxes(t, "SVG "+query, got, boxes)
}

// moeSizes are the test Moe-Counter set's pieces' sizes: digits of
// unequal widths, a short 1 and a tall 7, and _start and _end, the end
// the tallest.
func moeSizes(k int) (int, int) {
	switch k {
	case 1:
		return 6, 9
	case 7:
		return 9, 15
	case digitset.Start:
		return 11, 10
	case digitset.End:
		return 5, 17
	}
	return 7 + k%3, 12
}

// moeFolder writes a Moe-Counter folder: 0.png..9.png (digit 7 a GIF
// named .gif, as themify.js takes any image by its name, would be another
// layout: all PNG here) with _start.png and _end.png.
func moeFolder(t *testing.T) string {
	t.Helper()
	png := func(int) (string, func(image.Image) []byte) {
		return ".png", func(m image.Image) []byte { return encodePNG(t, m) }
	}
	return moeFolderAs(t, png)
}

// moeFolderAs writes the test Moe-Counter set with each piece k in the
// extension and encoding as(k) gives.
func moeFolderAs(t *testing.T, as func(k int) (string, func(image.Image) []byte)) string {
	t.Helper()
	dir := t.TempDir()
	for k := range 12 {
		w, h := moeSizes(k)
		ext, encode := as(k)
		name := strconv.Itoa(k) + ext
		switch k {
		case digitset.Start:
			name = "_start" + ext
		case digitset.End:
			name = "_end" + ext
		}
		writeFile(t, filepath.Join(dir, name), encode(filled(w, h, pieceColour(k, 0))))
	}
	return dir
}

// digits returns the pieces of text's digits.
func digits(text string) []int {
	var seq []int
	for _, c := range text {
		k, _ := digitset.PieceOf(byte(c))
		seq = append(seq, k)
	}
	return seq
}

// TestMoeCounterFolder adds a Moe-Counter folder with _start and _end and
// digits of unequal heights, and draws it with Moe-Counter's options in
// PNG, GIF and SVG: each piece at themify.js's place.
func TestMoeCounterFolder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "1717")
	out := mustAdmin(t, db, "digitset", "add", "moe", moeFolder(t))
	if !strings.Contains(out, "png-folder, ten digits 9 to 15 px high and 6 to 9 wide, with start, end") {
		t.Errorf("digitset add said %q", out)
	}
	seq := func(text string) []int {
		return append(append([]int{digitset.Start}, digits(text)...), digitset.End)
	}
	for _, tc := range []struct {
		query, text string
		offset      int
		align       string
	}{
		{"theme=moe&count=0&padding=7", "0001717", 0, "top"},
		{"theme=moe&count=0&padding=5&align=bottom&offset=3", "01717", 3, "bottom"},
		{"theme=moe&count=0&padding=1&align=center&prefix=70", "701717", 0, "center"},
		{"theme=moe&count=0&padding=4&align=bottom&offset=-2", "1717", -2, "bottom"},
	} {
		drawAll(t, db, tc.query, seq(tc.text), moeSizes, tc.offset, tc.align)
	}
	// scale=2 doubles every piece.
	double := func(k int) (int, int) { w, h := moeSizes(k); return 2 * w, 2 * h }
	drawAll(t, db, "theme=moe&count=0&padding=4&scale=2&align=bottom", seq("1717"), double, 0, "bottom")
}

// TestDigitManiaFolder adds a Count.cgi folder of zero.gif..nine.gif with
// comma.gif, dash.gif and the clock's colon.gif, am.gif and pm.gif: the
// digits, comma and dash are kept, the clock's pieces are not, and
// comma=1 draws 1,234,567 with the set's comma.
func TestDigitManiaFolder(t *testing.T) {
	names := strings.Fields("zero one two three four five six seven eight nine")
	size := func(k int) (int, int) {
		switch k {
		case digitset.Comma:
			return 4, 6
		case digitset.Dash:
			return 8, 3
		}
		return 9 + k%2, 14
	}
	dir := t.TempDir()
	writeGIF := func(name string, k int) {
		w, h := size(k)
		var b bytes.Buffer
		if err := gif.Encode(&b, filled(w, h, pieceColour(k, 0)), nil); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), b.Bytes())
	}
	for k, n := range names {
		writeGIF(n+".gif", k)
	}
	writeGIF("comma.gif", digitset.Comma)
	writeGIF("dash.gif", digitset.Dash)
	for _, n := range []string{"colon.gif", "am.gif", "pm.gif"} {
		writeGIF(n, 0) // the clock's: not kept
	}
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "1234567")
	out := mustAdmin(t, db, "digitset", "add", "mania", dir)
	if !strings.Contains(out, "named-folder, ten digits 14 px high and 9 to 10 wide, with comma, dash") {
		t.Errorf("digitset add said %q", out)
	}
	show := mustAdmin(t, db, "digitset", "show", "mania")
	if !strings.Contains(show, "comma: 4x6 px, image/gif") || !strings.Contains(show, "dash: 8x3 px") || strings.Contains(show, "colon") {
		t.Errorf("digitset show:\n%s", show)
	}
	drawAll(t, db, "theme=mania&count=0&comma=1", digits("1,234,567"), size, 0, "top")
	drawAll(t, db, "theme=mania&count=0&comma=1&align=bottom", digits("1,234,567"), size, 0, "bottom")
	// Without comma=1, the count padded as ever.
	drawAll(t, db, "theme=mania&count=0&digits=9", digits("001234567"), size, 0, "top")
}

// countStrip makes a Count.cgi strip GIF: the segments of pieces (by
// Count.cgi's order: 0..9, colon, am, pm, comma, dash) of widths w, all h
// high, with mkstrip's comment "N:x0:x1:...:xN".
func countStrip(t *testing.T, w []int, h int) []byte {
	t.Helper()
	total := 0
	for _, x := range w {
		total += x
	}
	m := image.NewPaletted(image.Rect(0, 0, total, h), nil)
	var pal color.Palette
	comment := strconv.Itoa(len(w)) + ":0"
	x := 0
	for i, sw := range w {
		k := i
		switch i {
		case 13:
			k = digitset.Comma
		case 14:
			k = digitset.Dash
		}
		pal = append(pal, pieceColour(k, 0))
		x += sw
		comment += ":" + strconv.Itoa(x)
	}
	m.Palette = pal
	x = 0
	for i, sw := range w {
		draw.Draw(m, image.Rect(x, 0, x+sw, h), image.NewUniform(pal[i]), image.Point{}, draw.Src)
		x += sw
	}
	var b bytes.Buffer
	if err := gif.Encode(&b, m, &gif.Options{NumColors: 256}); err != nil {
		t.Fatal(err)
	}
	// The comment extension goes after the header and the global colour
	// table, as mkstrip's writer puts it before the image.
	data := b.Bytes()
	at := 13
	if data[10]&0x80 != 0 {
		at += 3 << (data[10]&7 + 1)
	}
	ext := []byte{0x21, 0xfe, byte(len(comment))}
	ext = append(append(ext, comment...), 0)
	return append(append(append([]byte{}, data[:at]...), ext...), data[at:]...)
}

// TestCountStrip adds a Count.cgi strip of fifteen segments of differing
// widths, its comma and dash kept, and draws a count with commas.
func TestCountStrip(t *testing.T) {
	widths := []int{8, 5, 8, 8, 9, 8, 8, 7, 8, 8, 3, 10, 10, 3, 6}
	size := func(k int) (int, int) {
		switch k {
		case digitset.Comma:
			return widths[13], 11
		case digitset.Dash:
			return widths[14], 11
		}
		return widths[k], 11
	}
	path := filepath.Join(t.TempDir(), "strip.gif")
	writeFile(t, path, countStrip(t, widths, 11))
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "98765")
	out := mustAdmin(t, db, "digitset", "add", "count", path)
	if !strings.Contains(out, "strip, ten digits 11 px high and 5 to 9 wide, with comma, dash") {
		t.Errorf("digitset add said %q", out)
	}
	drawAll(t, db, "theme=count&count=0&comma=1", digits("98,765"), size, 0, "top")
	drawAll(t, db, "theme=count&count=0&padding=7&offset=1", digits("0098765"), size, 1, "top")
}

// TestTallAndAnimatedFolder adds Moe-Counter's largest shapes: digits
// 300 px tall, and digits of 10 frames each, and checks every frame.
func TestTallAndAnimatedFolder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "51")
	dir := gifFolderOf(t, func(int) int { return 10 }, func(i, k int) *image.Paletted {
		return filled(setWidth(i), setHeight, pieceColour(i, k))
	})
	mustAdmin(t, db, "digitset", "add", "ten", dir)
	ans := setHit(t, db, "blog.gif", "theme=ten&count=0&digits=1")
	frames, delays, _ := composeGIF(t, ans.body)
	if len(frames) < 10 {
		t.Fatalf("%d frames (delays %v), want at least 10", len(frames), delays)
	}
	size := func(k int) (int, int) { return setWidth(k), setHeight }
	boxes, w, h := layoutOf(digits("51"), size, 0, "top")
	times, _ := tenFrameSchedule(delays)
	for n, f := range frames {
		checkBoxes(t, "frame "+strconv.Itoa(n), f, boxes, w, h, func(k int) int { return frameOfTen(k, times[n]) })
	}

	// Eight of yousa-ling's 200x300 digits: 1600x300 px, within the
	// image's bound.
	tall := t.TempDir()
	tallSize := func(k int) (int, int) { return 200, 300 - k%2 }
	for k := range 10 {
		w, h := tallSize(k)
		writeFile(t, filepath.Join(tall, strconv.Itoa(k)+".png"), encodePNG(t, filled(w, h, pieceColour(k, 0))))
	}
	mustAdmin(t, db, "digitset", "add", "tall", tall)
	drawAll(t, db, "theme=tall&count=0&digits=8&align=bottom", digits("00000051"), tallSize, 0, "bottom")
}

// tenFrameSchedule is when each frame of a GIF begins, from its delays.
func tenFrameSchedule(delays []int) (starts []int, cycle int) {
	for _, d := range delays {
		starts = append(starts, cycle)
		cycle += d
	}
	return starts, cycle
}

// frameOfTen is the frame digit k of the 10-frame set shows at time at.
func frameOfTen(k, at int) int {
	cycle := 0
	for f := range 10 {
		cycle += gifDelay(k, f)
	}
	at %= cycle
	for f := range 10 {
		if at < gifDelay(k, f) {
			return f
		}
		at -= gifDelay(k, f)
	}
	return 0
}
