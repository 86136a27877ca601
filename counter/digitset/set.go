package digitset

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"slices"
)

// Bounds of a set, checked by New and by Parse. They bound what a set
// costs, not its shape: the pixels of a piece, of a set and of the image
// a count makes, frames and bytes, chosen from the sets real counters
// ship (deploy/bench/realsets measures them; the figures are in
// deploy/bench/RESULTS.md) with room to spare, so that every one of
// them fits at FitDigits digits.
const (
	// MaxDrawPixels bounds the image a count makes in a set, one frame's
	// pixels: the drawing (package draw) refuses a larger one, and a set
	// whose FitDigits widest digits at its own height would pass it is
	// refused when it is added. It is the font's bound (counter.MaxPixels):
	// the largest real set fits it at FitDigits digits, and twice as much
	// made a flood of hits in a digit set under CGI half as slow again.
	MaxDrawPixels = 1 << 19
	// FitDigits is how many digits of a set must fit in MaxDrawPixels at
	// the set's own size: a count of eight digits is a busy site's.
	FitDigits = 8
	// MaxPiecePixels bounds one frame of one digit: FitDigits of them
	// make MaxDrawPixels.
	MaxPiecePixels = MaxDrawPixels / FitDigits
	// MaxSide is the largest width and height of a digit, in pixels: a
	// sanity bound on its shape (a digit 1 px wide and MaxPiecePixels
	// high is no digit), well past any real one.
	MaxSide = 1024
	// MaxFrames is the most frames a digit may have.
	MaxFrames = 64
	// MaxPixels bounds the pixels of a set, every frame of every digit
	// counted: 4 MiB of palette indices in the database at most.
	MaxPixels = 1 << 22
	// MaxPieceBytes bounds the ten digits' files together.
	MaxPieceBytes = 1 << 20
	// MaxDelay is the longest frame delay, in hundredths of a second, as
	// a GIF can say it.
	MaxDelay = 1<<16 - 1
)

// The layouts a set is made from.
const (
	LayoutPNGFolder  = "png-folder"  // 0.png..9.png
	LayoutGIFFolder  = "gif-folder"  // 0.gif..9.gif
	LayoutJPEGFolder = "jpeg-folder" // 0.jpg..9.jpg or 0.jpeg..9.jpeg
	LayoutWebPFolder = "webp-folder" // 0.webp..9.webp, still
	LayoutStrip      = "strip"       // one image of ten digits, or Count.cgi's segments
	// LayoutNamedFolder is the classic "Digit Mania" folder that
	// Count.cgi reads: zero.gif..nine.gif, comma.gif and dash.gif.
	LayoutNamedFolder = "named-folder"
)

// The pieces of a set besides its ten digits, by their index in
// Set.Digits after the digits': Moe-Counter's _start and _end, drawn
// before and after the count, and Count.cgi's comma and dash, drawn for
// a thousands separator and for the dashes of a count not known.
const (
	Start = 10
	End   = 11
	Comma = 12
	Dash  = 13
	// NumPieces is the digits and the other pieces.
	NumPieces = 14
)

// PieceName names piece i for messages: "digit 3", "start".
func PieceName(i int) string {
	switch i {
	case Start:
		return "start"
	case End:
		return "end"
	case Comma:
		return "comma"
	case Dash:
		return "dash"
	}
	return fmt.Sprintf("digit %d", i)
}

// PieceOf returns the piece that character c of a count's text draws:
// a digit, ',' the comma, '-' the dash.
func PieceOf(c byte) (int, bool) {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0'), true
	case c == ',':
		return Comma, true
	case c == '-':
		return Dash, true
	}
	return 0, false
}

// The media types of a digit's Piece.
const (
	TypePNG  = "image/png"
	TypeGIF  = "image/gif"
	TypeJPEG = "image/jpeg"
	TypeWebP = "image/webp"
)

// Frame is one full frame of one digit: palette indices, Width*Height of
// them, row by row.
type Frame struct {
	Delay int     // hundredths of a second, as in GIF; 0 for a still digit
	Pix   []uint8 // indices into Set.Palette
}

// Digit is one of the ten digits, or another piece (Start, End, Comma,
// Dash), which a set may lack: then its Width is 0.
type Digit struct {
	Width  int
	Height int     // at most the set's
	Frames []Frame // at least one; nil in a set read by ParseHeader until ParseDigit
	// Piece is the digit as an image file an SVG embeds as a data: URI:
	// the owner's own file for a folder set; for a digit cut from a strip,
	// a PNG made at add time (draw.DigitPNG), or none, and an SVG then
	// embeds a PNG of its first frame made when it is drawn.
	Piece     []byte
	PieceType string // TypePNG or TypeGIF; "" when there is no Piece
}

// Set is an owner's digit set as stored.
type Set struct {
	Height  int              // the tallest piece's, which a drawing's height is
	Palette color.Palette    // of color.NRGBA, at most 256, shared by every digit and frame
	Loop    int              // as image/gif's LoopCount: 0 forever, -1 once, n > 0 n more times
	Digits  [NumPieces]Digit // the ten digits, then the pieces it has
	Layout  string           // one of the layouts above
}

// Source is one digit as the decoder hands it over: its frames already
// composed to the full digit (GIF disposal applied), their delays, and the
// file for SVG.
type Source struct {
	Frames    []image.Image
	Delays    []int  // one a frame, or none for a still digit
	Loop      int    // as image/gif's LoopCount
	Piece     []byte // none only for a strip's digit
	PieceType string
}

// DigitError is a set refused because of one digit.
type DigitError struct {
	Digit  int // a piece's index: Start, End, Comma, Dash past the digits
	Reason string
}

func (e *DigitError) Error() string { return PieceName(e.Digit) + ": " + e.Reason }

func digitErr(i int, format string, args ...any) error {
	return &DigitError{Digit: i, Reason: fmt.Sprintf(format, args...)}
}

// New checks ten digits and the other pieces a set has (a Source with no
// frames is a piece it lacks; every digit is needed) and converts them into
// a set: each piece has 1 to MaxFrames frames of one size, at most
// MaxSide pixels a side; heights and widths may differ from piece to
// piece, as real sets' do, the tallest setting the set's; each piece,
// as wide as it is and as high as the set, is at most MaxPiecePixels, and
// FitDigits of the widest digit between the start and the end fit in
// MaxDrawPixels; the set holds at most MaxPixels pixels and
// MaxPieceBytes of files. A piece that fails is named in a *DigitError.
//
// The set loops as its longest-looping animated piece does.
func New(pieces [NumPieces]Source, layout string) (*Set, error) {
	if !knownLayout(layout) {
		return nil, fmt.Errorf("digitset: unknown layout %q", layout)
	}
	s := &Set{Layout: layout}
	var present []Source
	pixels, files := 0, 0
	for i, d := range pieces {
		if i >= 10 && len(d.Frames) == 0 && len(d.Piece) == 0 {
			continue // a piece the set lacks
		}
		if err := checkSource(i, d, layout); err != nil {
			return nil, err
		}
		b := d.Frames[0].Bounds()
		pixels += b.Dx() * b.Dy() * len(d.Frames)
		if pixels > MaxPixels {
			return nil, digitErr(i, "the set passes %d pixels, every frame counted", MaxPixels)
		}
		if files += len(d.Piece); files > MaxPieceBytes {
			return nil, digitErr(i, "the set's files pass %d bytes", MaxPieceBytes)
		}
		s.Digits[i] = Digit{Width: b.Dx(), Height: b.Dy(), PieceType: d.PieceType}
		s.Height = max(s.Height, b.Dy())
		if len(d.Piece) > 0 {
			s.Digits[i].Piece = slices.Clone(d.Piece)
		}
		present = append(present, d)
	}
	// A piece is drawn in a column as high as the set: a short, wide
	// piece beside a tall one costs its width at the tallest's height.
	for i, d := range s.Digits {
		if w := d.Width; w*s.Height > MaxPiecePixels {
			return nil, digitErr(i, "%d px wide at the set's height of %d px is %d pixels, at most %d a piece, so that %d digits make an image of at most %d pixels",
				w, s.Height, w*s.Height, MaxPiecePixels, FitDigits, MaxDrawPixels)
		}
	}
	// Eight digits as wide as the widest, between the start and the end,
	// fit: each digit does by itself, so only those two can pass it.
	widest := 0
	for _, d := range s.Digits[:10] {
		widest = max(widest, d.Width)
	}
	if w := s.Digits[Start].Width + FitDigits*widest + s.Digits[End].Width; w*s.Height > MaxDrawPixels {
		k := Start
		if !s.Has(Start) {
			k = End
		}
		return nil, digitErr(k, "with it, %d digits as wide as the widest make an image of %dx%d px, %d pixels, at most %d", FitDigits, w, s.Height, w*s.Height, MaxDrawPixels)
	}
	s.Loop = loopOf(present)
	q := newQuantizer(present)
	s.Palette = q.palette
	for i, d := range pieces {
		if s.Digits[i].Width == 0 {
			continue
		}
		frames := make([]Frame, len(d.Frames))
		for k, img := range d.Frames {
			frames[k].Pix = q.indices(img)
			if len(d.Delays) > 0 {
				frames[k].Delay = d.Delays[k]
			}
		}
		s.Digits[i].Frames = frames
	}
	return s, nil
}

func knownLayout(l string) bool {
	return code(layoutCodes, l) != 0
}

// Has reports whether the set has piece i (every set has its digits).
func (s *Set) Has(i int) bool { return i >= 0 && i < NumPieces && s.Digits[i].Width > 0 }

func checkSource(i int, d Source, layout string) error {
	switch {
	case len(d.Frames) == 0:
		return digitErr(i, "no image")
	case len(d.Frames) > MaxFrames:
		return digitErr(i, "%d frames, at most %d", len(d.Frames), MaxFrames)
	case len(d.Delays) != 0 && len(d.Delays) != len(d.Frames):
		return digitErr(i, "%d delays for %d frames", len(d.Delays), len(d.Frames))
	case d.Loop < -1:
		return digitErr(i, "loop count %d", d.Loop)
	case len(d.Piece) == 0 && layout != LayoutStrip:
		return digitErr(i, "no file")
	case len(d.Piece) == 0 && d.PieceType != "":
		return digitErr(i, "file type %q of no file", d.PieceType)
	case len(d.Piece) > 0 && code(pieceCodes, d.PieceType) == 0:
		return digitErr(i, "file type %q, want %s, %s, %s or %s", d.PieceType, TypePNG, TypeGIF, TypeJPEG, TypeWebP)
	}
	if d.Frames[0] == nil {
		return digitErr(i, "frame 0 is missing")
	}
	b := d.Frames[0].Bounds()
	w, h := b.Dx(), b.Dy()
	switch {
	case w < 1 || h < 1:
		return digitErr(i, "empty image")
	case w > MaxSide || h > MaxSide:
		return digitErr(i, "%dx%d px, at most %d px a side", w, h, MaxSide)
	case w*h > MaxPiecePixels:
		return digitErr(i, "%dx%d px is %d pixels, at most %d a piece, so that %d digits make an image of at most %d pixels", w, h, w*h, MaxPiecePixels, FitDigits, MaxDrawPixels)
	}
	for k, f := range d.Frames {
		if f == nil {
			return digitErr(i, "frame %d is missing", k)
		}
		if fb := f.Bounds(); fb.Dx() != w || fb.Dy() != h {
			return digitErr(i, "frame %d is %dx%d px, frame 0 %dx%d", k, fb.Dx(), fb.Dy(), w, h)
		}
	}
	for k, delay := range d.Delays {
		if delay < 0 || delay > MaxDelay {
			return digitErr(i, "frame %d: delay %d", k, delay)
		}
	}
	return nil
}

// loopOf is the loop count of the digit that plays longest: forever if
// any animated digit loops forever. Still digits have no say.
func loopOf(digits []Source) int {
	plays := 0 // 0 is forever; else how many times the animation plays
	found := false
	for _, d := range digits {
		if len(d.Frames) < 2 {
			continue
		}
		p := d.Loop + 1 // -1 (once) plays 1 time, n plays n+1 times
		if d.Loop == 0 {
			return 0
		}
		if !found || p > plays {
			plays, found = p, true
		}
	}
	if !found {
		return 0
	}
	return plays - 1
}

// Animated reports whether any digit has more than one frame.
func (s *Set) Animated() bool {
	for _, d := range s.Digits {
		if len(d.Frames) > 1 {
			return true
		}
	}
	return false
}

// errNotLoaded reports a digit that ParseDigit has not read.
var errNotLoaded = errors.New("digit not loaded")

// Frames returns digit i's frames, or an error for a digit that a set
// read by ParseHeader has not been given by ParseDigit.
func (s *Set) Frames(i int) ([]Frame, error) {
	if i < 0 || i >= NumPieces {
		return nil, fmt.Errorf("digitset: no piece %d", i)
	}
	if len(s.Digits[i].Frames) == 0 {
		return nil, fmt.Errorf("digitset: %s: %w", PieceName(i), errNotLoaded)
	}
	return s.Digits[i].Frames, nil
}

// Uses returns the pieces that text (a count's digits, ',' and '-')
// draws in s: those of its characters, and the set's start and end.
func (s *Set) Uses(text string) (use [NumPieces]bool) {
	for i := 0; i < len(text); i++ {
		if k, ok := PieceOf(text[i]); ok {
			use[k] = true
		}
	}
	use[Start], use[End] = s.Has(Start), s.Has(End)
	return use
}

// Detach returns a copy of s that shares no bytes with it and holds, of
// each piece that text draws (Uses) that s has read, its first frames
// frames and, with pieces, its file. A set parsed where a file maps it
// is read, so detached, in a transaction as short as the copy, and drawn
// after the transaction is closed; frames and pieces are what the
// drawing reads, no more.
func (s *Set) Detach(text string, frames int, pieces bool) *Set {
	c := &Set{Height: s.Height, Palette: slices.Clone(s.Palette), Loop: s.Loop, Layout: s.Layout}
	want := s.Uses(text)
	size := 0
	for k := range want {
		d := &s.Digits[k]
		if !want[k] {
			continue
		}
		for _, f := range d.Frames[:min(frames, len(d.Frames))] {
			size += len(f.Pix)
		}
		if pieces {
			size += len(d.Piece)
		}
	}
	// One allocation for all the bytes copied.
	buf := make([]byte, 0, size)
	keep := func(b []byte) []byte {
		buf = append(buf, b...)
		return buf[len(buf)-len(b) : len(buf) : len(buf)]
	}
	for k, d := range s.Digits {
		c.Digits[k].Width, c.Digits[k].Height = d.Width, d.Height
		if !want[k] || len(d.Frames) == 0 {
			continue
		}
		fs := make([]Frame, min(frames, len(d.Frames)))
		for n := range fs {
			fs[n] = Frame{Delay: d.Frames[n].Delay, Pix: keep(d.Frames[n].Pix)}
		}
		c.Digits[k].Frames = fs
		if pieces && len(d.Piece) > 0 {
			c.Digits[k].Piece, c.Digits[k].PieceType = keep(d.Piece), d.PieceType
		}
	}
	return c
}
