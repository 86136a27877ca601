package digitset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image/color"
)

// The stored bytes, all integers big-endian. A header record:
//
//	"DSH\x02"  magic and version
//	u16        height: the tallest piece's
//	i32        loop count (-1 to 65535)
//	u8         layout: 1 png-folder, 2 gif-folder, 3 strip, 4 jpeg-folder,
//	           5 webp-folder, 6 named-folder
//	u16        palette length n (1 to 256)
//	n × 4      palette, non-premultiplied R, G, B, A
//	14 × (u16 width, u16 height)
//	           the ten digits', then start, end, comma and dash: 0x0 for
//	           a piece the set lacks
//
// and one record a piece the set has:
//
//	"DSD\x02"  magic and version
//	u8         which piece (0 to 13, as in the header)
//	u16        width, u16 height (as in the header)
//	u16        frame count f (1 to MaxFrames)
//	u8         piece type: 0 none (p is 0), 1 image/png, 2 image/gif,
//	           3 image/jpeg, 4 image/webp
//	u32        piece length p
//	f × (u16 delay, width×height palette indices)
//	p bytes    the piece
//
// Marshal joins them, each after its u32 length, header first. Version 1,
// which sets added before pieces and unequal heights were kept, is read
// still: its header has no heights and ten widths (every digit as high as
// the set), its digit records no height, and it has no other pieces.
const (
	headerMagic   = "DSH\x02"
	digitMagic    = "DSD\x02"
	headerMagicV1 = "DSH\x01"
	digitMagicV1  = "DSD\x01"
	headerFixed   = 4 + 2 + 4 + 1 + 2
	digitFixed    = 4 + 1 + 2 + 2 + 2 + 1 + 4
	digitFixedV1  = 4 + 1 + 2 + 2 + 1 + 4
)

// The codes of layouts and piece types: new ones are added at the end,
// so that a record written before them reads as it did.
var layoutCodes = []string{1: LayoutPNGFolder, 2: LayoutGIFFolder, 3: LayoutStrip, 4: LayoutJPEGFolder, 5: LayoutWebPFolder, 6: LayoutNamedFolder}
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
	b := make([]byte, 0, headerFixed+4*len(s.Palette)+4*NumPieces)
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
		b = binary.BigEndian.AppendUint16(b, uint16(d.Height))
	}
	return b
}

// MarshalDigit returns piece i's record, nil for a piece the set lacks.
func (s *Set) MarshalDigit(i int) []byte {
	d := &s.Digits[i]
	if d.Width == 0 {
		return nil
	}
	n := digitFixed + len(d.Piece)
	for _, f := range d.Frames {
		n += 2 + len(f.Pix)
	}
	b := make([]byte, 0, n)
	b = append(b, digitMagic...)
	b = append(b, byte(i))
	b = binary.BigEndian.AppendUint16(b, uint16(d.Width))
	b = binary.BigEndian.AppendUint16(b, uint16(d.Height))
	b = binary.BigEndian.AppendUint16(b, uint16(len(d.Frames)))
	b = append(b, code(pieceCodes, d.PieceType))
	b = binary.BigEndian.AppendUint32(b, uint32(len(d.Piece)))
	for _, f := range d.Frames {
		b = binary.BigEndian.AppendUint16(b, uint16(f.Delay))
		b = append(b, f.Pix...)
	}
	return append(b, d.Piece...)
}

// Marshal returns the whole set as one record: the header and the
// pieces it has, digits first, each after its length.
func (s *Set) Marshal() []byte {
	var b []byte
	b = appendRecord(b, s.MarshalHeader())
	for i := range s.Digits {
		if s.Has(i) {
			b = appendRecord(b, s.MarshalDigit(i))
		}
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
		if !s.Has(i) {
			continue
		}
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
// layout and pieces' sizes, with no piece's frames (see ParseDigit),
// which is enough to lay a count out.
func ParseHeader(b []byte) (*Set, error) {
	v1 := len(b) >= 4 && string(b[:4]) == headerMagicV1
	if len(b) < headerFixed || string(b[:4]) != headerMagic && !v1 {
		return nil, damaged("not a digit set header")
	}
	s := &Set{Height: int(binary.BigEndian.Uint16(b[4:]))}
	s.Loop = int(int32(binary.BigEndian.Uint32(b[6:])))
	if l := int(b[10]); l < len(layoutCodes) {
		s.Layout = layoutCodes[l]
	}
	n := int(binary.BigEndian.Uint16(b[11:]))
	sizes := 4 * NumPieces
	if v1 {
		sizes = 2 * 10
	}
	switch {
	case s.Height < 1 || s.Height > MaxSide:
		return nil, damaged("height %d", s.Height)
	case s.Loop < -1 || s.Loop > 1<<16-1:
		return nil, damaged("loop count %d", s.Loop)
	case s.Layout == "":
		return nil, damaged("layout %d", b[10])
	case n < 1 || n > maxColors:
		return nil, damaged("%d colours", n)
	case len(b) != headerFixed+4*n+sizes:
		return nil, damaged("header of %d bytes for %d colours", len(b), n)
	}
	p := b[headerFixed:]
	s.Palette = make(color.Palette, n)
	for i := range s.Palette {
		s.Palette[i] = color.NRGBA{p[4*i], p[4*i+1], p[4*i+2], p[4*i+3]}
	}
	w := p[4*n:]
	tallest := 0
	for i := range s.Digits {
		d := &s.Digits[i]
		switch {
		case v1 && i >= 10:
			continue
		case v1:
			d.Width, d.Height = int(binary.BigEndian.Uint16(w[2*i:])), s.Height
		default:
			d.Width, d.Height = int(binary.BigEndian.Uint16(w[4*i:])), int(binary.BigEndian.Uint16(w[4*i+2:]))
		}
		if i >= 10 && d.Width == 0 && d.Height == 0 {
			continue // a piece the set lacks
		}
		if d.Width < 1 || d.Width > MaxSide || d.Height < 1 || d.Height > s.Height || d.Width*s.Height > MaxPiecePixels {
			return nil, damaged("%s: %dx%d in a set %d px high", PieceName(i), d.Width, d.Height, s.Height)
		}
		tallest = max(tallest, d.Height)
	}
	if tallest != s.Height {
		return nil, damaged("height %d, the tallest piece %d", s.Height, tallest)
	}
	return s, nil
}

// ParseDigit reads piece i's record into s, checking it against the
// header: its size, its frames' sizes and its file. Whether its pixels
// index the palette is CheckPixels', for the frames a drawing uses. Its
// pixels and piece alias b, as Parse's do.
func (s *Set) ParseDigit(i int, b []byte) error {
	if i < 0 || i >= NumPieces {
		return fmt.Errorf("digitset: no piece %d", i)
	}
	fixed, v1 := digitFixed, len(b) >= 4 && string(b[:4]) == digitMagicV1
	if v1 {
		fixed = digitFixedV1
	}
	if len(b) < fixed || string(b[:4]) != digitMagic && !v1 {
		return damaged("not a digit record")
	}
	if !s.Has(i) {
		return damaged("a record of %s, which the header says the set lacks", PieceName(i))
	}
	if int(b[4]) != i {
		return damaged("record of piece %d read as piece %d", b[4], i)
	}
	d := Digit{Width: int(binary.BigEndian.Uint16(b[5:])), Height: s.Height}
	p := b[7:]
	if !v1 {
		d.Height, p = int(binary.BigEndian.Uint16(p)), p[2:]
	}
	frames := int(binary.BigEndian.Uint16(p))
	typ := p[2]
	if int(typ) < len(pieceCodes) {
		d.PieceType = pieceCodes[typ]
	}
	pieceLen := uint64(binary.BigEndian.Uint32(p[3:]))
	size := d.Width * d.Height
	switch {
	case d.Width != s.Digits[i].Width || d.Height != s.Digits[i].Height:
		return damaged("%s: %dx%d, the header says %dx%d", PieceName(i), d.Width, d.Height, s.Digits[i].Width, s.Digits[i].Height)
	case frames < 1 || frames > MaxFrames:
		return damaged("%s: %d frames", PieceName(i), frames)
	case d.PieceType == "" && (typ != 0 || pieceLen != 0 || s.Layout != LayoutStrip) || d.PieceType != "" && pieceLen == 0:
		return damaged("%s: piece type %d of %d bytes", PieceName(i), typ, pieceLen)
	case uint64(len(b)) != uint64(fixed)+uint64(frames*(2+size))+pieceLen:
		return damaged("%s: record of %d bytes", PieceName(i), len(b))
	case pieceLen > MaxPieceBytes:
		return damaged("%s: piece of %d bytes", PieceName(i), pieceLen)
	}
	d.Frames = make([]Frame, frames)
	p = b[fixed:]
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
	if i < 0 || i >= NumPieces {
		return fmt.Errorf("digitset: no piece %d", i)
	}
	n := len(s.Palette)
	if n >= maxColors {
		return nil
	}
	for k, f := range s.Digits[i].Frames[:min(frames, len(s.Digits[i].Frames))] {
		if !below(f.Pix, n) {
			return damaged("%s: frame %d: index %d past %d colours", PieceName(i), k, maxIndex(f.Pix), n)
		}
	}
	return nil
}

// below reports whether every index of pix is under n (1 to 255): eight
// in a word, each in a 16-bit lane to which 256-n is added, so that the
// lane's bit 8 is set when its index is n or more. A GIF hit checks every
// frame of the digits it draws, each time.
func below(pix []uint8, n int) bool {
	const lanes, carry = 0x00ff00ff00ff00ff, 0x0100010001000100
	add := uint64(256-n) * 0x0001000100010001
	var over uint64
	for len(pix) >= 32 {
		a, b := binary.LittleEndian.Uint64(pix), binary.LittleEndian.Uint64(pix[8:])
		c, d := binary.LittleEndian.Uint64(pix[16:]), binary.LittleEndian.Uint64(pix[24:])
		over |= (a&lanes + add) | (a>>8&lanes + add) | (b&lanes + add) | (b>>8&lanes + add) |
			(c&lanes + add) | (c>>8&lanes + add) | (d&lanes + add) | (d>>8&lanes + add)
		pix = pix[32:]
	}
	if over&carry != 0 {
		return false
	}
	for _, v := range pix {
		if int(v) >= n {
			return false
		}
	}
	return true
}

func maxIndex(pix []uint8) uint8 {
	var m uint8
	for _, v := range pix {
		m = max(m, v)
	}
	return m
}
