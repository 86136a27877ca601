package main

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "golang.org/x/image/webp" // the SVGs' WebP pieces, read back

	"hitcounter/cgi/testfiles"
	"hitcounter/counter/digitset"
)

// The image types Moe-Counter's themify.js takes besides PNG and GIF: JPEG and
// WebP digits, decoded by counter-themedecode (image/jpeg and
// golang.org/x/image/webp), stored as any set is, and drawn by the hit
// binary, which links neither decoder.

func encodeJPEG(t *testing.T, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// folderAs writes the test set's digits as 0EXT..9EXT, each encoded by
// encode, and returns the folder.
func folderAs(t *testing.T, ext string, encode func(image.Image) []byte) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 10 {
		writeFile(t, filepath.Join(dir, strconv.Itoa(i)+ext), encode(filled(setWidth(i), setHeight, setColour(i, 0))))
	}
	return dir
}

// checkDigitsNear is checkDigits at the set's own size for an image type that
// loses a little: each digit's middle within a few levels of its colour.
func checkDigitsNear(t *testing.T, img image.Image, text string) {
	t.Helper()
	b := img.Bounds()
	want := 0
	for _, c := range text {
		want += setWidth(int(c - '0'))
	}
	if b.Dx() != want || b.Dy() != setHeight {
		t.Fatalf("%q drawn %dx%d, want %dx%d", text, b.Dx(), b.Dy(), want, setHeight)
	}
	x := b.Min.X
	for _, c := range text {
		d := int(c - '0')
		got := color.NRGBAModel.Convert(img.At(x+setWidth(d)/2, b.Min.Y+setHeight/2)).(color.NRGBA)
		w := setColour(d, 0)
		if near(got.R, w.R) > 4 || near(got.G, w.G) > 4 || near(got.B, w.B) > 4 || got.A != 0xff {
			t.Errorf("%q: digit %c is %v, want %v within 4", text, c, got, w)
		}
		x += setWidth(d)
	}
}

func near(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestDigitSetAddJPEGAndWebP adds folders of JPEG (.jpg and .jpeg) and WebP
// digits through the built binary, and draws a known count in each in
// PNG, GIF and SVG, the SVG embedding the owner's own files.
func TestDigitSetAddJPEGAndWebP(t *testing.T) {
	jpegOf := func(m image.Image) []byte { return encodeJPEG(t, m) }
	for _, tc := range []struct {
		name, ext, layout, media string
		encode                   func(image.Image) []byte
		exact                    bool
	}{
		{"jpg", ".jpg", "jpeg-folder", "image/jpeg", jpegOf, false},
		{"jpeg", ".jpeg", "jpeg-folder", "image/jpeg", jpegOf, false},
		{"webp", ".webp", "webp-folder", "image/webp", testfiles.WebP, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "counter.db")
			mustAdmin(t, db, "create", "blog", "4071")
			out := mustAdmin(t, db, "digitset", "add", "set", folderAs(t, tc.ext, tc.encode))
			if !strings.Contains(out, "set: "+tc.layout) {
				t.Errorf("digitset add said %q, want %s", out, tc.layout)
			}
			check := func(img image.Image, text string) {
				t.Helper()
				if tc.exact {
					checkDigits(t, img, text, setWidth, 1, first)
				} else {
					checkDigitsNear(t, img, text)
				}
			}
			ans := setHit(t, db, "blog.png", "theme=set&digits=6")
			img, err := png.Decode(bytes.NewReader(ans.body))
			if err != nil {
				t.Fatal(err)
			}
			check(img, "004072")
			ans = setHit(t, db, "blog.gif", "theme=set&digits=1&count=0")
			g, err := gif.DecodeAll(bytes.NewReader(ans.body))
			if err != nil {
				t.Fatal(err)
			}
			check(g.Image[0], "4072")
			ans = setHit(t, db, "blog.svg", "theme=set&digits=1&count=0")
			if n := strings.Count(string(ans.body), "data:"+tc.media+";base64,"); n != 4 {
				t.Errorf("the SVG embeds %d files of %s, want 4 (one a digit of 4072)", n, tc.media)
			}
			if !strings.Contains(ans.header.Get("Content-Security-Policy"), "img-src data:") {
				t.Errorf("the SVG's Content-Security-Policy %q lets no data: image load", ans.header.Get("Content-Security-Policy"))
			}
		})
	}
}

// TestDigitSetAddRefusesAnimatedWebP: an animated WebP digit is refused with
// a message that says so (golang.org/x/image/webp decodes no animation),
// and nothing is stored.
func TestDigitSetAddRefusesAnimatedWebP(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog")
	dir := folderAs(t, ".webp", testfiles.WebP)
	frames := []image.Image{filled(setWidth(5), setHeight, setColour(5, 0)), filled(setWidth(5), setHeight, setColour(5, 1))}
	writeFile(t, filepath.Join(dir, "5.webp"), testfiles.AnimatedWebP(frames, 100))
	out, code := adminStdin(t, db, "", "digitset", "add", "anim", dir)
	if code != 1 || !strings.Contains(out, "digit 5: 5.webp: an animated WebP image, which is not read here") {
		t.Errorf("exit %d, %q; want digit 5 refused as an animated WebP", code, out)
	}
	if out := mustAdmin(t, db, "digitset", "list"); strings.Contains(out, "anim") {
		t.Errorf("digitset list after the refusal:\n%s", out)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

// TestMoeFolderJPEGAndWebP adds Moe-Counter folders whose digits and
// _start and _end are JPEG and WebP, as themify.js takes them (its
// imgExts), in mixed extensions, through the built binary: WebP, which
// keeps colours exactly, is drawn with each piece at themify.js's place
// in PNG, GIF and SVG; JPEG's places are checked in the SVG and its
// sizes in the PNG, and each SVG embeds each piece's own file.
func TestMoeFolderJPEGAndWebP(t *testing.T) {
	jpegOf := func(m image.Image) []byte { return encodeJPEG(t, m) }
	seq := append(append([]int{digitset.Start}, digits("0001717")...), digitset.End)
	t.Run("webp", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "counter.db")
		mustAdmin(t, db, "create", "blog", "1717")
		dir := moeFolderAs(t, func(int) (string, func(image.Image) []byte) { return ".webp", testfiles.WebP })
		out := mustAdmin(t, db, "digitset", "add", "moe", dir)
		if !strings.Contains(out, "webp-folder, ten digits 9 to 15 px high and 6 to 9 wide, with start, end") {
			t.Errorf("digitset add said %q", out)
		}
		drawAll(t, db, "theme=moe&count=0&padding=7&align=bottom", seq, moeSizes, 0, "bottom")
		ans := setHit(t, db, "blog.svg", "theme=moe&count=0&padding=7")
		if n := strings.Count(string(ans.body), "data:image/webp;base64,"); n != 5 {
			t.Errorf("the SVG embeds %d WebP files, want 5 (start, 0, 1, 7, end)", n)
		}
	})
	t.Run("jpeg", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "counter.db")
		mustAdmin(t, db, "create", "blog", "1717")
		// .jpeg digits, a .jpg start and a .webp end.
		dir := moeFolderAs(t, func(k int) (string, func(image.Image) []byte) {
			switch k {
			case digitset.Start:
				return ".jpg", jpegOf
			case digitset.End:
				return ".webp", testfiles.WebP
			}
			return ".jpeg", jpegOf
		})
		out := mustAdmin(t, db, "digitset", "add", "moe", dir)
		if !strings.Contains(out, "jpeg-folder, ten digits 9 to 15 px high and 6 to 9 wide, with start, end") {
			t.Errorf("digitset add said %q", out)
		}
		want, w, h := layoutOf(seq, moeSizes, 0, "center")
		ans := setHit(t, db, "blog.svg", "theme=moe&count=0&padding=7&align=center")
		got, gw, gh := svgBoxes(t, ans.body)
		if gw != w || gh != h {
			t.Fatalf("SVG: %dx%d, want %dx%d", gw, gh, w, h)
		}
		sameBoxes(t, "SVG", got, want)
		if j, p := strings.Count(string(ans.body), "data:image/jpeg;base64,"), strings.Count(string(ans.body), "data:image/webp;base64,"); j != 4 || p != 1 {
			t.Errorf("the SVG embeds %d JPEG and %d WebP files, want 4 (start, 0, 1, 7) and 1 (end)", j, p)
		}
		for _, f := range []string{"blog.png", "blog.gif"} {
			ans := setHit(t, db, f, "theme=moe&count=0&padding=7&align=center")
			img, _, err := image.Decode(bytes.NewReader(ans.body))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
				t.Errorf("%s: %dx%d, want %dx%d", f, b.Dx(), b.Dy(), w, h)
			}
		}
	})
}
