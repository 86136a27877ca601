package digitset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

func TestMarshalRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		digits [10]Source
		layout string
	}{
		{"stills", stills(7, 30), LayoutPNGFolder},
		{"animated", animated(5, 12), LayoutGIFFolder},
		{"many colours", gradient(), LayoutStrip},
		{"strip without files", func() [10]Source {
			ds := stills(7, 30)
			for i := range ds {
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
	want := "DSH\x01\x00\x02\xff\xff\xff\xff\x03\x00\x01\x00\x00\x00\x00" +
		"\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01"
	if got := string(s.MarshalHeader()); got != want {
		t.Errorf("header: got %q, want %q", got, want)
	}
	want = "DSD\x01\x07\x00\x01\x00\x01\x01\x00\x00\x00\x03" + "\x00\x00\x00\x00" + "png"
	if got := string(s.MarshalDigit(7)); got != want {
		t.Errorf("digit 7: got %q, want %q", got, want)
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
			for i := range ds {
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

// FuzzParse feeds damaged sets to Parse: it may refuse them, never panic,
// and what it takes must marshal back to the same bytes.
func FuzzParse(f *testing.F) {
	for _, ds := range [][10]Source{stills(3, 4), animated(2, 3)} {
		s, err := New(ds, LayoutGIFFolder)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s.Marshal())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		if got := s.Marshal(); !bytes.Equal(got, b) {
			t.Fatalf("parsed set marshals to %q, read from %q", got, b)
		}
	})
}
