package digitset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestMarshalRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		digits [NumPieces]Source
		layout string
	}{
		{"stills", stills(7, 30), LayoutPNGFolder},
		{"animated", animated(5, 12), LayoutGIFFolder},
		{"many colours", gradient(), LayoutStrip},
		{"strip without files", func() [NumPieces]Source {
			ds := stills(7, 30)
			for i := range 10 {
				ds[i].Piece, ds[i].PieceType = nil, ""
			}
			return ds
		}(), LayoutStrip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.digits, tc.layout)
			if err != nil {
				t.Fatal(err)
			}
			b := s.Marshal()
			got, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, s) {
				t.Errorf("got %+v, want %+v", got, s)
			}
			if again := got.Marshal(); !bytes.Equal(again, b) {
				t.Error("a parsed set marshals to other bytes")
			}
			// Record by record: a hit reads the header and the digits it draws.
			h, err := ParseHeader(s.MarshalHeader())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.Frames(4); err == nil {
				t.Error("a digit not read yet has frames")
			}
			rec := s.MarshalDigit(4)
			if err := h.ParseDigit(4, rec); err != nil {
				t.Fatal(err)
			}
			f, err := h.Frames(4)
			if err != nil || !reflect.DeepEqual(f, s.Digits[4].Frames) {
				t.Errorf("digit 4: got %v, %v, want its frames", f, err)
			}
			// The pixels alias the record.
			f[0].Pix[0] ^= 1
			if rec[digitFixed+2] != f[0].Pix[0] {
				t.Error("ParseDigit copied the pixels")
			}
			if err := h.ParseDigit(5, rec); err == nil {
				t.Error("digit 4's record was read as digit 5")
			}
		})
	}
}

// TestStoredBytes pins the bytes of a small set: a change to them is a
// change to the database's format.
func TestStoredBytes(t *testing.T) {
	s, err := New(stills(1, 2), LayoutStrip)
	if err != nil {
		t.Fatal(err)
	}
	s.Loop = -1
	want := "DSH\x02\x00\x02\xff\xff\xff\xff\x03\x00\x01\x00\x00\x00\x00" +
		strings.Repeat("\x00\x01\x00\x02", 10) + strings.Repeat("\x00\x00\x00\x00", 4)
	if got := string(s.MarshalHeader()); got != want {
		t.Errorf("header: got %q, want %q", got, want)
	}
	want = "DSD\x02\x07\x00\x01\x00\x02\x00\x01\x01\x00\x00\x00\x03" + "\x00\x00\x00\x00" + "png"
	if got := string(s.MarshalDigit(7)); got != want {
		t.Errorf("digit 7: got %q, want %q", got, want)
	}
}

// TestParseVersion1 reads a set as the file kept it before pieces and
// unequal heights (the bytes TestStoredBytes pinned then): every digit
// as high as the set, and no other piece.
func TestParseVersion1(t *testing.T) {
	s, err := Parse(version1Set())
	if err != nil {
		t.Fatal(err)
	}
	if s.Height != 2 || s.Layout != LayoutStrip || s.Loop != -1 {
		t.Errorf("got height %d, layout %s, loop %d; want 2, strip, -1", s.Height, s.Layout, s.Loop)
	}
	for i, d := range s.Digits {
		want := [2]int{1, 2}
		if i >= 10 {
			want = [2]int{}
		}
		if [2]int{d.Width, d.Height} != want || i < 10 && (len(d.Frames) != 1 || string(d.Piece) != "png") {
			t.Errorf("%s: %dx%d, %d frames, piece %q; want %dx%d", PieceName(i), d.Width, d.Height, len(d.Frames), d.Piece, want[0], want[1])
		}
	}
	// Written again, it is a set of today's version that reads the same.
	again, err := Parse(s.Marshal())
	if err != nil || again.Digits[7].Height != 2 || again.Has(Start) {
		t.Errorf("written again: %v, %+v", err, again)
	}
}

func TestParseRefuses(t *testing.T) {
	s, err := New(animated(5, 12), LayoutGIFFolder)
	if err != nil {
		t.Fatal(err)
	}
	good := s.Marshal()
	header := s.MarshalHeader()
	at := func(off int, v byte) []byte {
		b := bytes.Clone(good)
		b[off] = v
		return b
	}
	digit0 := 4 + len(header) + 4 // where digit 0's record starts
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"cut short", good[:len(good)-1]},
		{"trailing bytes", append(bytes.Clone(good), 0)},
		{"magic", at(4, 'X')},
		{"height 0", at(4+5, 0)},
		{"no colours", func() []byte { b := bytes.Clone(good); binary.BigEndian.PutUint16(b[4+11:], 0); return b }()},
		{"layout", at(4+10, 9)},
		{"loop", at(4+6, 0x80)},
		{"record length", func() []byte { b := bytes.Clone(good); binary.BigEndian.PutUint32(b, 1<<31); return b }()},
		{"digit index", at(digit0+4, 3)},
		{"digit width", at(digit0+6, 9)},
		{"no frames", at(digit0+8, 0)},
		{"piece type", at(digit0+9, 7)},
		{"pixel past palette", at(digit0+digitFixed+2, 200)},
		{"no file in a folder set", func() []byte {
			ds := stills(3, 4)
			for i := range 10 {
				ds[i].Piece, ds[i].PieceType = nil, ""
			}
			s, err := New(ds, LayoutStrip)
			if err != nil {
				t.Fatal(err)
			}
			b := s.Marshal()
			b[4+10] = 1 // png-folder
			return b
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse(tc.b); !errors.Is(err, ErrDamaged) {
				t.Errorf("got %v, want ErrDamaged", err)
			}
		})
	}
}

// version1Set is a set as version 1 wrote it: a 1x2 strip of one-frame
// digits.
func version1Set() []byte {
	head := "DSH\x01\x00\x02\xff\xff\xff\xff\x03\x00\x01\x00\x00\x00\x00" +
		"\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01"
	b := binary.BigEndian.AppendUint32(nil, uint32(len(head)))
	b = append(b, head...)
	for i := range 10 {
		rec := "DSD\x01" + string(rune(i)) + "\x00\x01\x00\x01\x01\x00\x00\x00\x03" + "\x00\x00\x00\x00" + "png"
		b = binary.BigEndian.AppendUint32(b, uint32(len(rec)))
		b = append(b, rec...)
	}
	return b
}

// FuzzParse feeds damaged sets to Parse: it may refuse them, never panic,
// and what it takes must marshal back to the same bytes; a version 1 set,
// which Marshal writes in today's version, to bytes that read back as
// themselves.
func FuzzParse(f *testing.F) {
	for _, ds := range [][NumPieces]Source{stills(3, 4), animated(2, 3)} {
		s, err := New(ds, LayoutGIFFolder)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s.Marshal())
	}
	f.Add(version1Set())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		got := s.Marshal()
		if bytes.Equal(got, b) {
			return
		}
		if !bytes.Contains(b[:min(len(b), 8)], []byte(headerMagicV1)) {
			t.Fatalf("parsed set marshals to %q, read from %q", got, b)
		}
		again, err := Parse(got)
		if err != nil {
			t.Fatalf("a version 1 set, written in today's version, does not read back: %v", err)
		}
		if b2 := again.Marshal(); !bytes.Equal(b2, got) {
			t.Fatalf("a version 1 set, written in today's version, marshals to %q, read from %q", b2, got)
		}
	})
}

// TestBelow checks the word-at-a-time palette check against the plain
// one: every index at every place of slices of each length up to 70 (two
// blocks of 32 and a rest), and each palette size.
func TestBelow(t *testing.T) {
	for n := 1; n < maxColors; n++ {
		for size := range 70 {
			for at := range size {
				for _, v := range []uint8{0, uint8(n - 1), uint8(n), 255} {
					pix := make([]uint8, size)
					pix[at] = v
					if got, want := below(pix, n), maxIndex(pix) < uint8(n); got != want {
						t.Fatalf("below(%v, %d) = %v, want %v", pix, n, got, want)
					}
				}
			}
		}
	}
}
