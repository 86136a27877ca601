package main

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The digit sets of these tests are made here, in the three layouts theme
// add reads, with the standard library's encoders: digit i is filled with
// setColour(i, k) in its frame k, so that a pixel says which digit and
// which frame it shows.

func setColour(i, k int) color.NRGBA {
	return color.NRGBA{uint8(20 + 23*i), uint8(220 - 70*k), uint8(250 - 23*i), 0xff}
}

// filled is a w x h image of colour c.
func filled(w, h int, c color.Color) *image.Paletted {
	m := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{c})
	return m
}

// setWidth is digit i's width in the test sets: they differ, as in real
// sets.
func setWidth(i int) int { return 6 + i%4 }

const setHeight = 12

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func encodePNG(t *testing.T, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngFolder writes a folder of 0.png..9.png and returns it.
func pngFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 10 {
		writeFile(t, filepath.Join(dir, strconv.Itoa(i)+".png"), encodePNG(t, filled(setWidth(i), setHeight, setColour(i, 0))))
	}
	return dir
}

// gifFrames is how many frames digit i has in the animated test set, and
// gifDelay its frame k's delay in hundredths: frame counts and delays
// differ from digit to digit, and digits 0, 3, 6 and 9 are still.
func gifFrames(i int) int   { return 1 + i%3 }
func gifDelay(i, k int) int { return 10 * ((i+k)%3 + 1) }

// gifFolder writes a folder of 0.gif..9.gif, looping forever, and returns
// it.
func gifFolder(t *testing.T) string {
	return gifFolderOf(t, gifFrames, func(i, k int) *image.Paletted {
		return filled(setWidth(i), setHeight, setColour(i, k))
	})
}

// gifFolderOf writes a folder of 0.gif..9.gif, digit i's of frames(i)
// frames, frame k being frame(i, k) shown for gifDelay(i, k), each
// looping forever, and returns it.
func gifFolderOf(t *testing.T, frames func(i int) int, frame func(i, k int) *image.Paletted) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 10 {
		g := &gif.GIF{LoopCount: 0}
		for k := range frames(i) {
			g.Image = append(g.Image, frame(i, k))
			g.Delay = append(g.Delay, gifDelay(i, k))
		}
		var b bytes.Buffer
		if err := gif.EncodeAll(&b, g); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, strconv.Itoa(i)+".gif"), b.Bytes())
	}
	return dir
}

// stripWidth is each digit's width in the test strip.
const stripWidth = 7

// stripFile writes a strip PNG of ten digits and returns its path.
func stripFile(t *testing.T) string {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, 10*stripWidth, setHeight))
	for i := range 10 {
		draw.Draw(m, image.Rect(i*stripWidth, 0, (i+1)*stripWidth, setHeight), image.NewUniform(setColour(i, 0)), image.Point{}, draw.Src)
	}
	path := filepath.Join(t.TempDir(), "strip.png")
	writeFile(t, path, encodePNG(t, m))
	return path
}

// setHit runs a CGI hit on counter name of db for file (NAME.png, say)
// with query, and returns the answer.
func setHit(t *testing.T, db, file, query string) cgiAnswer {
	t.Helper()
	ans, stderr := runCGI(t, append(hitEnv(t, db), "PATH_INFO=/"+file, "REQUEST_URI=/cgi-bin/counter.cgi/"+file+"?"+query, "QUERY_STRING="+query))
	if ans.status != 200 {
		t.Fatalf("%s?%s: status %d, %s; stderr %q", file, query, ans.status, ans.header.Get("X-Counter-Error"), stderr)
	}
	return ans
}

// mustAdmin runs an admin command that must succeed.
func mustAdmin(t *testing.T, db string, args ...string) string {
	t.Helper()
	out, code := adminStdin(t, db, "", args...)
	if code != 0 {
		t.Fatalf("%s: exit %d, %s", strings.Join(args, " "), code, out)
	}
	return out
}

// checkDigits fails unless img shows text in the test set's colours of
// frame (frame(digit) for each digit), each digit width(digit) x scale
// wide and the whole scale x setHeight high, edge to edge.
func checkDigits(t *testing.T, img image.Image, text string, width func(int) int, scale int, frame func(int) int) {
	t.Helper()
	b := img.Bounds()
	want := 0
	for _, c := range text {
		want += width(int(c-'0')) * scale
	}
	if b.Dx() != want || b.Dy() != setHeight*scale {
		t.Fatalf("%q drawn %dx%d, want %dx%d", text, b.Dx(), b.Dy(), want, setHeight*scale)
	}
	x := b.Min.X
	for _, c := range text {
		d := int(c - '0')
		w := width(d) * scale
		wantC := setColour(d, frame(d))
		for _, px := range []int{x, x + w/2, x + w - 1} {
			for _, py := range []int{b.Min.Y, b.Min.Y + b.Dy()/2, b.Max.Y - 1} {
				if got := color.NRGBAModel.Convert(img.At(px, py)).(color.NRGBA); got != wantC {
					t.Fatalf("%q: pixel (%d,%d) of digit %c is %v, want %v", text, px, py, c, got, wantC)
				}
			}
		}
		x += w
	}
}

func first(int) int { return 0 }

// TestThemeCommandDigitSetAlias: "digitset" is the theme command under
// the name the documentation gives it; it says "digit set" where theme
// says "theme", and the two see the same sets.
func TestThemeCommandDigitSetAlias(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog")
	if out := mustAdmin(t, db, "digitset", "add", "pix", pngFolder(t)); !strings.HasPrefix(out, "added digit set pix: png-folder") {
		t.Errorf("digitset add said %q", out)
	}
	if out := mustAdmin(t, db, "theme", "list"); !strings.Contains(out, "\npix\tset: png-folder") {
		t.Errorf("theme list after digitset add:\n%s", out)
	}
	if out := mustAdmin(t, db, "digitset", "show", "pix"); !strings.HasPrefix(out, "pix: png-folder, ten digits 12 px high") {
		t.Errorf("digitset show said %q", out)
	}
	if out, code := adminStdin(t, db, "", "digitset", "show", "nope"); code != 1 || !strings.Contains(out, "digitset show: no such theme \"nope\" (digitset list shows them)") {
		t.Errorf("digitset show nope: exit %d, %q", code, out)
	}
	if out, code := adminStdin(t, db, "", "digitset", "add", "led", pngFolder(t)); code != 2 || !strings.Contains(out, "digitset add: digit set name \"led\" is a built-in look's") {
		t.Errorf("digitset add led: exit %d, %q; want a usage error", code, out)
	}
	if out := mustAdmin(t, db, "digitset", "remove", "pix"); out != "removed digit set pix\n" {
		t.Errorf("digitset remove said %q", out)
	}
	if out := mustAdmin(t, db, "digitset", "list"); strings.Contains(out, "pix") {
		t.Errorf("digitset list after remove:\n%s", out)
	}
}

// TestThemeAddPNGFolder adds a folder of PNGs and draws a known count
// with it in PNG, scaled, SVG and as the counter's default.
func TestThemeAddPNGFolder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "4071")
	out := mustAdmin(t, db, "theme", "add", "pix", pngFolder(t))
	if !strings.Contains(out, "added theme pix: png-folder") {
		t.Errorf("theme add said %q", out)
	}
	list := mustAdmin(t, db, "theme", "list")
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "led\t") || !strings.HasPrefix(lines[4], "pix\tset: png-folder, 12 px high") {
		t.Errorf("theme list:\n%s\nwant the four looks, then pix", list)
	}
	ans := setHit(t, db, "blog.png", "theme=pix&digits=6")
	img, err := png.Decode(bytes.NewReader(ans.body))
	if err != nil {
		t.Fatal(err)
	}
	checkDigits(t, img, "004072", setWidth, 1, first)

	ans = setHit(t, db, "blog.png", "theme=pix&digits=1&size=36&count=0")
	if img, err = png.Decode(bytes.NewReader(ans.body)); err != nil {
		t.Fatal(err)
	}
	checkDigits(t, img, "4072", setWidth, 3, first)

	ans = setHit(t, db, "blog.svg", "theme=pix&digits=1&count=0")
	if n := strings.Count(string(ans.body), "data:image/png;base64,"); n != 4 {
		t.Errorf("the SVG embeds %d PNGs, want 4 (one a digit of 4072)", n)
	}

	// The counter's own: a tag without theme= draws the set, one with a
	// colour scheme the font.
	if out := mustAdmin(t, db, "config", "blog", "theme=pix"); !strings.Contains(out, "theme=pix") {
		t.Errorf("config said %q", out)
	}
	ans = setHit(t, db, "blog.png", "digits=1&count=0")
	if img, err = png.Decode(bytes.NewReader(ans.body)); err != nil {
		t.Fatal(err)
	}
	checkDigits(t, img, "4072", setWidth, 1, first)
	ans = setHit(t, db, "blog.png", "theme=dark&count=0")
	if img, err = png.Decode(bytes.NewReader(ans.body)); err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dy() == setHeight {
		t.Errorf("theme=dark drew %v, the set's height: want the font", img.Bounds())
	}
	if out, code := adminStdin(t, db, "", "theme", "remove", "pix"); code != 1 || !strings.Contains(out, "default of blog") {
		t.Errorf("removing a counter's default: exit %d, %q; want it refused naming blog", code, out)
	}
	mustAdmin(t, db, "config", "blog", "theme=")
	mustAdmin(t, db, "theme", "remove", "pix")
	if out := mustAdmin(t, db, "theme", "list"); strings.Contains(out, "pix") {
		t.Errorf("theme list after remove:\n%s", out)
	}
}

// TestThemeAddStrip adds one strip image and draws a known count.
func TestThemeAddStrip(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "1234566")
	mustAdmin(t, db, "theme", "add", "strip", stripFile(t))
	ans := setHit(t, db, "blog.png", "theme=strip")
	img, err := png.Decode(bytes.NewReader(ans.body))
	if err != nil {
		t.Fatal(err)
	}
	checkDigits(t, img, "1234567", func(int) int { return stripWidth }, 1, first)
	if out := mustAdmin(t, db, "theme", "show", "strip"); !strings.Contains(out, "strip: strip, ten digits 12 px high and 7 wide") {
		t.Errorf("theme show:\n%s", out)
	}
}

// TestThemeAddGIFFolder adds animated GIFs of different frame counts and
// delays and checks the GIF a hit draws: a digit alone keeps its frames
// and delays; digits together play in step, each at its own pace.
func TestThemeAddGIFFolder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "1")
	mustAdmin(t, db, "create", "both", "12")
	mustAdmin(t, db, "theme", "add", "anim", gifFolder(t))
	show := mustAdmin(t, db, "theme", "show", "anim")
	if !strings.Contains(show, "digit 2: 8x12 px, image/gif") || !strings.Contains(show, "3 frames, delays 300,100,200 ms") {
		t.Errorf("theme show:\n%s", show)
	}
	// The count is now 2: digit 2 alone.
	ans := setHit(t, db, "blog.gif", "theme=anim&digits=1")
	frames, delays, loop := composeGIF(t, ans.body)
	if want := []int{30, 10, 20}; !slices.Equal(delays, want) || loop != 0 {
		t.Fatalf("digit 2 alone: delays %v, loop %d; want %v, 0 (forever)", delays, loop, want)
	}
	for k, f := range frames {
		checkDigits(t, f, "2", setWidth, 1, func(int) int { return k })
	}
	// 12: digit 1 (20, 30) and digit 2 (30, 10, 20) in step.
	ans = setHit(t, db, "both.gif", "theme=anim&count=0&digits=2")
	frames, delays, _ = composeGIF(t, ans.body)
	times, want := schedule([]int{1, 2})
	if !slices.Equal(delays, want) {
		t.Fatalf("12: delays %v, want %v", delays, want)
	}
	for n, f := range frames {
		checkDigits(t, f, "12", setWidth, 1, func(d int) int { return frameAt(d, times[n]) })
	}
	// A PNG shows the first frames.
	ans = setHit(t, db, "blog.png", "theme=anim&digits=2&count=0")
	img, err := png.Decode(bytes.NewReader(ans.body))
	if err != nil {
		t.Fatal(err)
	}
	checkDigits(t, img, "02", setWidth, 1, first)
}

// frameAt is the frame digit d of the animated test set shows at time
// at (hundredths) from the start.
func frameAt(d, at int) int {
	if gifFrames(d) == 1 {
		return 0
	}
	cycle := 0
	for k := range gifFrames(d) {
		cycle += gifDelay(d, k)
	}
	at %= cycle
	for k := range gifFrames(d) {
		if at < gifDelay(d, k) {
			return k
		}
		at -= gifDelay(d, k)
	}
	return 0
}

// schedule is when the frames of digits drawn together begin, and their
// delays, as draw's setgif.go says: over the least common multiple of the
// animated digits' cycles, a frame from each change of any digit to the
// next; a still digit never changes.
func schedule(digits []int) (starts, delays []int) {
	cycle := 1
	var animated []int
	for _, d := range digits {
		if gifFrames(d) > 1 {
			animated = append(animated, d)
		}
	}
	for _, d := range animated {
		c := 0
		for k := range gifFrames(d) {
			c += gifDelay(d, k)
		}
		a, b := cycle, c
		for b != 0 {
			a, b = b, a%b
		}
		cycle = cycle / a * c
	}
	var times []int
	for _, d := range animated {
		at := 0
		for at < cycle {
			for k := range gifFrames(d) {
				times = append(times, at)
				at += gifDelay(d, k)
			}
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	for i, at := range times {
		next := cycle
		if i+1 < len(times) {
			next = times[i+1]
		}
		delays = append(delays, next-at)
	}
	return times, delays
}

// composeGIF decodes an animated GIF with the standard library and
// composes its frames as a browser shows them.
func composeGIF(t *testing.T, data []byte) (frames []image.Image, delays []int, loop int) {
	t.Helper()
	g, err := gif.DecodeAll(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	canvas := image.NewNRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	for i, f := range g.Image {
		before := image.NewNRGBA(canvas.Rect)
		copy(before.Pix, canvas.Pix)
		draw.Draw(canvas, f.Bounds(), f, f.Bounds().Min, draw.Over)
		shown := image.NewNRGBA(canvas.Rect)
		copy(shown.Pix, canvas.Pix)
		frames = append(frames, shown)
		switch g.Disposal[i] {
		case gif.DisposalBackground:
			draw.Draw(canvas, f.Bounds(), image.Transparent, image.Point{}, draw.Src)
		case gif.DisposalPrevious:
			canvas = before
		}
	}
	return frames, g.Delay, g.LoopCount
}

// TestThemeAddRefuses: a set that cannot be drawn says which digit and
// why, and stores nothing; a reserved name is a usage error.
func TestThemeAddRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, dir string) string // returns the PATH to add
		code  int
		want  string
	}{
		{"missing digit", func(t *testing.T, dir string) string {
			os.Remove(filepath.Join(dir, "4.png"))
			return dir
		}, 1, "digit 4: 4.png: missing"},
		{"too wide a digit", func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "7.png"), encodePNG(t, filled(1025, setHeight, setColour(7, 0))))
			return dir
		}, 1, "digit 7: 7.png: 1025x12 px, too big: at most 1024x1024"},
		// Bounded by its work: eight of these would pass the pixels an
		// image may have, though each side is well within bounds.
		{"too many pixels a digit", func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "7.png"), encodePNG(t, filled(400, 400, setColour(7, 0))))
			return dir
		}, 1, "digit 7: 7.png: 400x400 px, too big: 160000 pixels, at most 65536"},
		// The pieces besides the digits have the digits' bounds.
		{"too many pixels a start", func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "_start.jpg"), encodeJPEG(t, filled(300, 300, setColour(1, 0))))
			return dir
		}, 1, "start: _start.jpg: 300x300 px, too big: 90000 pixels, at most 65536"},
		{"too big a set", func(t *testing.T, dir string) string {
			f, err := os.OpenFile(filepath.Join(dir, "5.png"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(make([]byte, 1<<20))
			f.Close()
			return dir
		}, 1, "digit 5: 5.png: too big: the set passes 1048576 bytes (1 MB) with this file"},
		{"not an image", func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "6.png"), []byte("<html>not found</html>"))
			return dir
		}, 1, "digit 6: 6.png: not a PNG image"},
		{"a link in the folder", func(t *testing.T, dir string) string {
			os.Rename(filepath.Join(dir, "2.png"), filepath.Join(t.TempDir(), "2.png"))
			os.Symlink("/etc/hostname", filepath.Join(dir, "2.png"))
			return dir
		}, 1, "digit 2: 2.png: a symbolic link"},
		{"every digit a link", func(t *testing.T, dir string) string {
			elsewhere := t.TempDir()
			for i := range 10 {
				name := strconv.Itoa(i) + ".png"
				os.Rename(filepath.Join(dir, name), filepath.Join(elsewhere, name))
				os.Symlink(filepath.Join(elsewhere, name), filepath.Join(dir, name))
			}
			return dir
		}, 1, "0.png, 1.png, 2.png, 3.png, 4.png, 5.png, 6.png, 7.png, 8.png, 9.png are symbolic links: copy the images themselves"},
		{"a strip of uneven digits", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "strip.png")
			writeFile(t, path, encodePNG(t, filled(73, setHeight, setColour(0, 0))))
			return path
		}, 1, "strip.png: 73 px wide"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "counter.db")
			mustAdmin(t, db, "create", "blog")
			path := tc.spoil(t, pngFolder(t))
			out, code := adminStdin(t, db, "", "theme", "add", "bad", path)
			if code != tc.code || !strings.Contains(out, tc.want) || strings.Count(out, "\n") != 1 {
				t.Errorf("exit %d, %q; want %d and one line saying %q", code, out, tc.code, tc.want)
			}
			if list := mustAdmin(t, db, "theme", "list"); strings.Contains(list, "bad") {
				t.Errorf("a refused set is listed:\n%s", list)
			}
		})
	}
	db := filepath.Join(t.TempDir(), "counter.db")
	dir := pngFolder(t)
	for _, name := range []string{"light", "dark", "auto", "led", "odometer", "nixie", "retro", "../x"} {
		if out, code := adminStdin(t, db, "", "theme", "add", name, dir); code != 2 || !strings.Contains(out, "digit set name") {
			t.Errorf("theme add %s: exit %d, %q; want a usage error", name, code, out)
		}
	}
	// A hit naming a set not there: a 400 with the error image, nothing
	// counted.
	mustAdmin(t, db, "create", "blog")
	ans, _ := runCGI(t, append(hitEnv(t, db), "PATH_INFO=/blog.png", "QUERY_STRING=theme=nope"))
	if ans.status != 400 || ans.header.Get("X-Counter-Error") != "no such theme" || ans.header.Get("Content-Type") != "image/png" {
		t.Errorf("theme=nope: %d %q %q; want 400, no such theme, a PNG", ans.status, ans.header.Get("X-Counter-Error"), ans.header.Get("Content-Type"))
	}
	if out := mustAdmin(t, db, "list"); !strings.Contains(out, "blog  0 ") && !strings.Contains(out, "blog   0") {
		t.Errorf("a refused hit counted:\n%s", out)
	}
}

// TestThemeKeptAcrossBackup: a set and a counter's default survive backup
// and a restore of the copy.
func TestThemeKeptAcrossBackup(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	mustAdmin(t, db, "create", "blog", "41")
	mustAdmin(t, db, "theme", "add", "anim", gifFolder(t))
	mustAdmin(t, db, "config", "blog", "theme=anim")
	backup := filepath.Join(t.TempDir(), "backup.db")
	mustAdmin(t, db, "backup", backup)
	mustAdmin(t, db, "theme", "add", "-replace", "anim", pngFolder(t))
	// Restore as the manual says: the copy beside the live file, moved
	// into place.
	data, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, db+".new", data)
	if err := os.Rename(db+".new", db); err != nil {
		t.Fatal(err)
	}
	if out := mustAdmin(t, db, "check"); !strings.Contains(out, ", 1 digit set(s)") {
		t.Errorf("check: %q", out)
	}
	if out := mustAdmin(t, db, "theme", "show", "anim"); !strings.Contains(out, "gif-folder") || !strings.Contains(out, "default theme of blog") {
		t.Errorf("theme show after restore:\n%s", out)
	}
	ans := setHit(t, db, "blog.gif", "digits=2")
	frames, delays, _ := composeGIF(t, ans.body)
	if _, want := schedule([]int{4, 2}); !slices.Equal(delays, want) {
		t.Errorf("42 after restore: delays %v, want %v", delays, want)
	}
	checkDigits(t, frames[0], "42", setWidth, 1, first)
}
