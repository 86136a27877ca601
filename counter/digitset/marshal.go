package digitset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image/color"
)

// The stored bytes, all integers big-endian. A header record:
//
//	"DSH\x01"  magic and version
//	u16        height
//	i32        loop count (-1 to 65535)
//	u8         layout: 1 png-folder, 2 gif-folder, 3 strip, 4 jpeg-folder,
//	           5 webp-folder
//	u16        palette length n (1 to 256)
//	n × 4      palette, non-premultiplied R, G, B, A
//	10 × u16   each digit's width
//
// and one record a digit:
//
//	"DSD\x01"  magic and version
//	u8         which digit (0 to 9)
//	u16        width (as in the header)
//	u16        frame count f (1 to MaxFrames)
//	u8         piece type: 0 none (p is 0), 1 image/png, 2 image/gif,
//	           3 image/jpeg, 4 image/webp
//	u32        piece length p
//	f × (u16 delay, width×height palette indices)
//	p bytes    the piece
//
// Marshal joins them, each after its u32 length, header first.
const (
	headerMagic = "DSH\x01"
	digitMagic  = "DSD\x01"
	headerFixed = 4 + 2 + 4 + 1 + 2
	digitFixed  = 4 + 1 + 2 + 2 + 1 + 4
)

// The codes of layouts and piece types: new ones are added at the end,
// so that a record written before them reads as it did.
var layoutCodes = []string{1: LayoutPNGFolder, 2: LayoutGIFFolder, 3: LayoutStrip, 4: LayoutJPEGFolder, 5: LayoutWebPFolder}
var pieceCodes = []string{1: TypePNG, 2: TypeGIF, 3: TypeJPEG, 4: TypeWebP}

func code(names []string, name string) byte {
	for i, n := range names {
		if n == name && n != "" {
			return byte(i)
		}
	}
	return 0
}

// ErrDamaged reports stored bytes that are not a digit set.
var ErrDamaged = errors.New("digitset: damaged record")

func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, args...))
}

// MarshalHeader returns the set's header record.
func (s *Set) MarshalHeader() []byte {
	b := make([]byte, 0, headerFixed+4*len(s.Palette)+20)
	b = append(b, headerMagic...)
	b = binary.BigEndian.AppendUint16(b, uint16(s.Height))
	b = binary.BigEndian.AppendUint32(b, uint32(int32(s.Loop)))
	b = append(b, code(layoutCodes, s.Layout))
	b = binary.BigEndian.AppendUint16(b, uint16(len(s.Palette)))
	for _, c := range s.Palette {
		n := color.NRGBAModel.Convert(c).(color.NRGBA)
		b = append(b, n.R, n.G, n.B, n.A)
	}
	for _, d := range s.Digits {
		b = binary.BigEndian.AppendUint16(b, uint16(d.Width))
	}
	return b
}

// MarshalDigit returns digit i's record.
func (s *Set) MarshalDigit(i int) []byte {
	d := &s.Digits[i]
	n := digitFixed + len(d.Piece)
	for _, f := range d.Frames {
		n += 2 + len(f.Pix)
	}
	b := make([]byte, 0, n)
	b = append(b, digitMagic...)
	b = append(b, byte(i))
	b = binary.BigEndian.AppendUint16(b, uint16(d.Width))
	b = binary.BigEndian.AppendUint16(b, uint16(len(d.Frames)))
	b = append(b, code(pieceCodes, d.PieceType))
	b = binary.BigEndian.AppendUint32(b, uint32(len(d.Piece)))
	for _, f := range d.Frames {
		b = binary.BigEndian.AppendUint16(b, uint16(f.Delay))
		b = append(b, f.Pix...)
	}
	return append(b, d.Piece...)
}

// Marshal returns the whole set as one record: the header and the ten
// digits, each after its length.
func (s *Set) Marshal() []byte {
	var b []byte
	b = appendRecord(b, s.MarshalHeader())
	for i := range s.Digits {
		b = appendRecord(b, s.MarshalDigit(i))
	}
	return b
}

func appendRecord(b, rec []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(rec)))
	return append(b, rec...)
}

// Parse reads a set that Marshal wrote. The set's pixels and pieces alias
// b: b must stay unchanged while the set is used (with bbolt, inside the
// transaction that read it).
func Parse(b []byte) (*Set, error) {
	rec, b, err := nextRecord(b)
	if err != nil {
		return nil, err
	}
	s, err := ParseHeader(rec)
	if err != nil {
		return nil, err
	}
	for i := range s.Digits {
		if rec, b, err = nextRecord(b); err != nil {
			return nil, err
		}
		if err := s.ParseDigit(i, rec); err != nil {
			return nil, err
		}
		if err := s.CheckPixels(i, MaxFrames); err != nil {
			return nil, err
		}
	}
	if len(b) != 0 {
		return nil, damaged("%d bytes after the last digit", len(b))
	}
	return s, nil
}

func nextRecord(b []byte) (rec, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, damaged("record cut short")
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, damaged("record of %d bytes in %d", n, len(b)-4)
	}
	return b[4 : 4+n], b[4+n:], nil
}

// ParseHeader reads a header record: the set's height, palette, loop,
// layout and digit widths, with no digit's frames (see ParseDigit), which
// is enough to lay a count out.
func ParseHeader(b []byte) (*Set, error) {
	if len(b) < headerFixed || string(b[:4]) != headerMagic {
		return nil, damaged("not a digit set header")
	}
	s := &Set{Height: int(binary.BigEndian.Uint16(b[4:]))}
	s.Loop = int(int32(binary.BigEndian.Uint32(b[6:])))
	if l := int(b[10]); l < len(layoutCodes) {
		s.Layout = layoutCodes[l]
	}
	n := int(binary.BigEndian.Uint16(b[11:]))
	switch {
	case s.Height < 1 || s.Height > MaxSide:
		return nil, damaged("height %d", s.Height)
	case s.Loop < -1 || s.Loop > 1<<16-1:
		return nil, damaged("loop count %d", s.Loop)
	case s.Layout == "":
		return nil, damaged("layout %d", b[10])
	case n < 1 || n > maxColors:
		return nil, damaged("%d colours", n)
	case len(b) != headerFixed+4*n+20:
		return nil, damaged("header of %d bytes for %d colours", len(b), n)
	}
	p := b[headerFixed:]
	s.Palette = make(color.Palette, n)
	for i := range s.Palette {
		s.Palette[i] = color.NRGBA{p[4*i], p[4*i+1], p[4*i+2], p[4*i+3]}
	}
	w := p[4*n:]
	for i := range s.Digits {
		s.Digits[i].Width = int(binary.BigEndian.Uint16(w[2*i:]))
		if w := s.Digits[i].Width; w < 1 || w > MaxSide || w*s.Height > MaxPiecePixels {
			return nil, damaged("digit %d: width %d", i, s.Digits[i].Width)
		}
	}
	return s, nil
}

// ParseDigit reads digit i's record into s, checking it against the
// header: its width, its frames' sizes and its piece. Whether its pixels
// index the palette is CheckPixels', for the frames a drawing uses. Its
// pixels and piece alias b, as Parse's do.
func (s *Set) ParseDigit(i int, b []byte) error {
	if i < 0 || i > 9 {
		return fmt.Errorf("digitset: no digit %d", i)
	}
	if len(b) < digitFixed || string(b[:4]) != digitMagic {
		return damaged("not a digit record")
	}
	if int(b[4]) != i {
		return damaged("record of digit %d read as digit %d", b[4], i)
	}
	d := Digit{Width: int(binary.BigEndian.Uint16(b[5:]))}
	frames := int(binary.BigEndian.Uint16(b[7:]))
	if int(b[9]) < len(pieceCodes) {
		d.PieceType = pieceCodes[b[9]]
	}
	pieceLen := uint64(binary.BigEndian.Uint32(b[10:]))
	size := d.Width * s.Height
	switch {
	case d.Width != s.Digits[i].Width:
		return damaged("digit %d: width %d, the header says %d", i, d.Width, s.Digits[i].Width)
	case frames < 1 || frames > MaxFrames:
		return damaged("digit %d: %d frames", i, frames)
	case d.PieceType == "" && (b[9] != 0 || pieceLen != 0 || s.Layout != LayoutStrip) || d.PieceType != "" && pieceLen == 0:
		return damaged("digit %d: piece type %d of %d bytes", i, b[9], pieceLen)
	case uint64(len(b)) != uint64(digitFixed)+uint64(frames*(2+size))+pieceLen:
		return damaged("digit %d: record of %d bytes", i, len(b))
	case pieceLen > MaxPieceBytes:
		return damaged("digit %d: piece of %d bytes", i, pieceLen)
	}
	d.Frames = make([]Frame, frames)
	p := b[digitFixed:]
	for k := range d.Frames {
		d.Frames[k] = Frame{Delay: int(binary.BigEndian.Uint16(p)), Pix: p[2 : 2+size : 2+size]}
		p = p[2+size:]
	}
	if len(p) > 0 {
		d.Piece = p[:len(p):len(p)]
	}
	s.Digits[i] = d
	return nil
}

// CheckPixels fails unless the first frames frames of digit i, read by
// ParseDigit, index only the palette's colours. ParseDigit leaves this to
// the frames a drawing uses, so that a PNG of an animated set reads its
// first frames only; Parse checks every frame.
func (s *Set) CheckPixels(i, frames int) error {
	if i < 0 || i > 9 {
		return fmt.Errorf("digitset: no digit %d", i)
	}
	n := len(s.Palette)
	if n >= maxColors {
		return nil
	}
	for k, f := range s.Digits[i].Frames[:min(frames, len(s.Digits[i].Frames))] {
		if m := maxIndex(f.Pix); int(m) >= n {
			return damaged("digit %d: frame %d: index %d past %d colours", i, k, m, n)
		}
	}
	return nil
}

func maxIndex(pix []uint8) uint8 {
	var m uint8
	for _, v := range pix {
		m = max(m, v)
	}
	return m
}
