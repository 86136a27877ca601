// Package digitsetfile is an owner's digit set as its files hold it,
// before it is decoded: a folder of 0.png..9.png, 0.gif..9.gif,
// 0.jpg..9.jpg (or .jpeg) or 0.webp..9.webp (Moe-Counter's theme layout,
// with the extensions its themify.js takes), or one strip image of ten digits of equal
// width, left to right (Count.cgi's). digitset add reads the files into a
// Bundle and hands its bytes to counter-themedecode, a process of its own
// (package digitsetfile/decode does the decoding there), so that the
// binary every hit starts links no image decoder.
//
// It decodes nothing itself: it bounds the files and carries them.
package digitsetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// MaxSetBytes bounds the files of one set together, as they are read.
const MaxSetBytes = 1 << 20

// Layouts of a set's files: the layouts of package digitset.
const (
	PNGFolder = "png-folder" // 0.png..9.png
	GIFFolder = "gif-folder" // 0.gif..9.gif
	// JPEGFolder is 0.jpg..9.jpg, or 0.jpeg..9.jpeg (Ext gives the
	// first; digitset add reads either).
	JPEGFolder = "jpeg-folder"
	WebPFolder = "webp-folder" // 0.webp..9.webp, still images
	Strip      = "strip"       // one image, ten digits of equal width
)

// Bundle is a set's files: ten, digit 0's first, for a folder; one for a
// strip.
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
	case GIFFolder:
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
	want := 10
	if bu.Layout == Strip {
		want = 1
	} else if Ext(bu.Layout) == "" {
		return bu, fmt.Errorf("%w: layout %q", ErrBundle, bu.Layout)
	}
	if files != want {
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
