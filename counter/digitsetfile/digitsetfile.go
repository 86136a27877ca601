// Package digitsetfile is an owner's digit set as its files hold it,
// before it is decoded: a folder of 0.png..9.png, 0.gif..9.gif,
// 0.jpg..9.jpg (or .jpeg) or 0.webp..9.webp with Moe-Counter's _start
// and _end (its folder layout, with the extensions its themify.js takes),
// a folder of zero.gif..nine.gif with comma and dash ("Digit Mania", as
// Count.cgi reads it), or one strip image of ten digits of equal width,
// left to right, or of the segments Count.cgi's mkstrip notes. digitset
// add reads the files into a Bundle and hands its bytes to
// counter-themedecode, a process of its own (package digitsetfile/decode
// does the decoding there), so that the binary every hit starts links no
// image decoder.
//
// It decodes nothing itself: it bounds the files and carries them.
package digitsetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MaxSetBytes bounds the files of one set together, as they are read.
const MaxSetBytes = 1 << 20

// Layouts of a set's files: the layouts of package digitset.
const (
	PNGFolder = "png-folder" // 0.png..9.png, and Moe-Counter's _start and _end
	GIFFolder = "gif-folder" // 0.gif..9.gif, the same
	// JPEGFolder is 0.jpg..9.jpg, or 0.jpeg..9.jpeg (Ext gives the
	// first; digitset add reads either), the same.
	JPEGFolder  = "jpeg-folder"
	WebPFolder  = "webp-folder"  // 0.webp..9.webp, still images, the same
	NamedFolder = "named-folder" // zero.gif..nine.gif, comma.gif, dash.gif ("Digit Mania", Count.cgi's)
	Strip       = "strip"        // one image of ten digits of equal width, or Count.cgi's segments
)

// digitNames are the digits' names in a named folder, as Count.cgi's
// ImagePrefix (src/image.c) has them.
const digitNames = "zero one two three four five six seven eight nine"

// DigitFile is the file name of digit i in a folder layout: the first
// of DigitFiles.
func DigitFile(layout string, i int) string { return DigitFiles(layout, i)[0] }

// DigitFiles are the names digit i may have in a folder of layout: one,
// but for a JPEG folder's 0.jpg or 0.jpeg.
func DigitFiles(layout string, i int) []string {
	d := string(rune('0' + i))
	switch layout {
	case NamedFolder:
		return []string{strings.Fields(digitNames)[i] + ".gif"}
	case JPEGFolder:
		return []string{d + ".jpg", d + ".jpeg"}
	}
	return []string{d + Ext(layout)}
}

// PieceFiles are the names of the files of the pieces besides the digits
// that a folder of layout may hold, by piece (digitset.Start, End, Comma,
// Dash; the index past the digits), each in the extensions it is looked
// for: Moe-Counter's themify.js takes any image a folder holds by its
// name, so _start and _end are looked for in each extension it takes,
// whatever the digits' are; clock pieces (colon, am, pm) are not looked
// for, since nothing draws them.
func PieceFiles(layout string) map[int][]string {
	if layout == NamedFolder {
		return map[int][]string{12: {"comma.gif", "comma.png"}, 13: {"dash.gif", "dash.png"}}
	}
	names := func(base string) []string {
		var n []string
		for _, ext := range strings.Fields(MoeExts) {
			n = append(n, base+ext)
		}
		return n
	}
	return map[int][]string{10: names("_start"), 11: names("_end")}
}

// MoeExts are the file name endings Moe-Counter's themify.js takes
// (its imgExts), in the order a piece is looked for.
const MoeExts = ".png .gif .jpg .jpeg .webp"

// PieceOf returns the piece (as PieceFiles numbers it, digits 0 to 9) a
// file of a folder of layout holds, by its name.
func PieceOf(layout, name string) (int, bool) {
	for i := range 10 {
		if slices.Contains(DigitFiles(layout, i), name) {
			return i, true
		}
	}
	for k, names := range PieceFiles(layout) {
		for _, n := range names {
			if n == name {
				return k, true
			}
		}
	}
	return 0, false
}

// Bundle is a set's files: ten, digit 0's first, then the other pieces
// it has, for a folder; one for a strip.
type Bundle struct {
	Layout string
	Names  []string // file names as the owner has them, for errors
	Data   [][]byte
}

// Ext is the file name ending of a folder layout's digits, "" for a strip.
func Ext(layout string) string {
	switch layout {
	case PNGFolder:
		return ".png"
	case GIFFolder, NamedFolder:
		return ".gif"
	case JPEGFolder:
		return ".jpg"
	case WebPFolder:
		return ".webp"
	}
	return ""
}

// maxName bounds a file name in a bundle.
const maxName = 255

// Marshal writes the bundle as Unmarshal reads it: the layout, then each
// file's name and bytes, each after its length (a byte for the layout and
// the names, four big-endian bytes for the data).
func (b Bundle) Marshal() []byte {
	n := 1 + len(b.Layout) + 1
	for i := range b.Names {
		n += 1 + len(b.Names[i]) + 4 + len(b.Data[i])
	}
	out := make([]byte, 0, n)
	out = append(append(out, byte(len(b.Layout))), b.Layout...)
	out = append(out, byte(len(b.Names)))
	for i, name := range b.Names {
		if len(name) > maxName {
			name = name[:maxName]
		}
		out = append(append(out, byte(len(name))), name...)
		out = binary.BigEndian.AppendUint32(out, uint32(len(b.Data[i])))
		out = append(out, b.Data[i]...)
	}
	return out
}

// ErrBundle reports bytes that are not a bundle Marshal wrote.
var ErrBundle = errors.New("digitsetfile: not a bundle of a set's files")

// Unmarshal reads a bundle that Marshal wrote, holding at most
// MaxSetBytes of files; the files alias b.
func Unmarshal(b []byte) (Bundle, error) {
	var bu Bundle
	short := func(what string) error { return fmt.Errorf("%w: %s cut short", ErrBundle, what) }
	if len(b) < 1 || len(b) < 1+int(b[0])+1 {
		return bu, short("layout")
	}
	bu.Layout, b = string(b[1:1+b[0]]), b[1+b[0]:]
	files := int(b[0])
	b = b[1:]
	lo, hi := 10, 14
	if bu.Layout == Strip {
		lo, hi = 1, 1
	} else if Ext(bu.Layout) == "" {
		return bu, fmt.Errorf("%w: layout %q", ErrBundle, bu.Layout)
	}
	if files < lo || files > hi {
		return bu, fmt.Errorf("%w: %d files for a %s", ErrBundle, files, bu.Layout)
	}
	total := 0
	for range files {
		if len(b) < 1 || len(b) < 1+int(b[0])+4 {
			return bu, short("file name")
		}
		name := string(b[1 : 1+b[0]])
		b = b[1+b[0]:]
		n := binary.BigEndian.Uint32(b)
		b = b[4:]
		if total += int(n); n > MaxSetBytes || total > MaxSetBytes {
			return bu, fmt.Errorf("%w: more than %d bytes of files", ErrBundle, MaxSetBytes)
		}
		if uint32(len(b)) < n {
			return bu, short(name)
		}
		if strings.ContainsAny(name, "\x00\n") {
			return bu, fmt.Errorf("%w: file name %q", ErrBundle, name)
		}
		bu.Names = append(bu.Names, name)
		bu.Data, b = append(bu.Data, b[:n:n]), b[n:]
	}
	if len(b) != 0 {
		return bu, fmt.Errorf("%w: %d bytes after the files", ErrBundle, len(b))
	}
	return bu, nil
}
