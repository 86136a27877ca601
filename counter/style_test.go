package counter

import (
	"errors"
	"image/color"
	"strings"
	"testing"
)

func TestParseStyle(t *testing.T) {
	def := DefaultStyle()
	with := func(f func(*Style)) Style { s := def; f(&s); return s }
	tests := []struct {
		name  string
		query string
		want  Style
		param string // the refused parameter, "" when the query is fine
	}{
		{"empty", "", def, ""},
		{"cache buster ignored", "v=123&_=x", def, ""},
		{"digits", "digits=8", with(func(s *Style) { s.Digits = 8 }), ""},
		{"digits min", "digits=1", with(func(s *Style) { s.Digits = 1 }), ""},
		{"digits max", "digits=12", with(func(s *Style) { s.Digits = 12 }), ""},
		{"digits leading zero", "digits=007", with(func(s *Style) { s.Digits = 7 }), ""},
		{"size bounds", "size=8", with(func(s *Style) { s.Size = 8 }), ""},
		{"size max", "size=128", with(func(s *Style) { s.Size = 128 }), ""},
		{"fg RGB", "fg=f00", with(func(s *Style) { s.FG = color.NRGBA{0xff, 0, 0, 0xff} }), ""},
		{"fg RRGGBB", "fg=12AbEf", with(func(s *Style) { s.FG = color.NRGBA{0x12, 0xab, 0xef, 0xff} }), ""},
		{"bg RRGGBBAA", "bg=ffffff00", with(func(s *Style) { s.BG = color.NRGBA{0xff, 0xff, 0xff, 0} }), ""},
		{"escaped hash", "fg=%23000", with(func(s *Style) { s.FG = color.NRGBA{0, 0, 0, 0xff} }), ""},
		{"font", "font=bold", with(func(s *Style) { s.Font = "bold" }), ""},
		{"all", "digits=3&size=10&fg=fff&bg=000&font=regular", Style{3, 10, color.NRGBA{255, 255, 255, 255}, color.NRGBA{0, 0, 0, 255}, "regular"}, ""},
		{"empty pairs", "&&digits=2&", with(func(s *Style) { s.Digits = 2 }), ""},

		{"digits zero", "digits=0", def, "digits"},
		{"digits 13", "digits=13", def, "digits"},
		{"digits negative", "digits=-1", def, "digits"},
		{"digits NaN", "digits=NaN", def, "digits"},
		{"size Inf", "size=Inf", def, "size"},
		{"size 1e309", "size=1e309", def, "size"},
		{"size hex", "size=0x10", def, "size"},
		{"size underscore", "size=1_000", def, "size"},
		{"size plus", "size=%2B20", def, "size"},
		{"size space", "size=+20", def, "size"},
		{"size overflow", "size=99999999999999999999999", def, "size"},
		{"size float", "size=20.0", def, "size"},
		{"size empty", "size=", def, "size"},
		{"size 7", "size=7", def, "size"},
		{"size 129", "size=129", def, "size"},
		{"fg name", "fg=red", def, "fg"},
		{"bg RGBA", "bg=fff0", with(func(s *Style) { s.BG = color.NRGBA{0xff, 0xff, 0xff, 0} }), ""},
		{"fg RGBA half", "fg=%23c008", with(func(s *Style) { s.FG = color.NRGBA{0xcc, 0, 0, 0x88} }), ""},
		{"fg 5 digits", "fg=fffff", def, "fg"},
		{"fg 7 digits", "fg=fffffff", def, "fg"},
		{"fg 9 digits", "fg=fffffffff", def, "fg"},
		{"bg not hex", "bg=ggg", def, "bg"},
		{"font unknown", "font=comic", def, "font"},
		{"font path", "font=../../etc/passwd", def, "font"},
		{"repeated", "digits=3&digits=4", def, "digits"},
		{"semicolon", "digits=3;size=20", def, "query"},
		{"bad escape", "fg=%zz", def, "query"},
		{"too long", "x=" + strings.Repeat("a", MaxQueryLen), def, "query"},
		{"too many", strings.Repeat("a=1&", MaxParams+1), def, "query"},
		{"10001 parameters", strings.Repeat("a=1&", 10001), def, "query"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStyle(tc.query)
			if tc.param == "" {
				if err != nil {
					t.Fatalf("ParseStyle(%.40q) = %v, want no error", tc.query, err)
				}
				if got != tc.want {
					t.Errorf("ParseStyle(%.40q) = %+v, want %+v", tc.query, got, tc.want)
				}
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseStyle(%.40q) = %v, want a ParamError", tc.query, err)
			}
			if pe.Param != tc.param {
				t.Errorf("ParseStyle(%.40q) refused %q, want %q", tc.query, pe.Param, tc.param)
			}
			if strings.ContainsAny(pe.Error(), "\r\n") || len(pe.Error()) > 120 {
				t.Errorf("reason %q is not one short line", pe.Error())
			}
		})
	}
}

// TestStyleBounds draws the largest style with the longest count and
// checks it stays within the pixel budget.
func TestStyleBounds(t *testing.T) {
	for _, font := range FontNames() {
		s := Style{Digits: MaxDigits, Size: MaxSize, FG: DefaultStyle().FG, BG: DefaultStyle().BG, Font: font}
		d, err := NewDrawing(Digits(^uint64(0), s.Digits), s)
		if err != nil {
			t.Fatalf("%s: largest drawing refused: %v", font, err)
		}
		w, h := d.Size()
		if w*h > MaxPixels {
			t.Errorf("%s: %dx%d is over the budget of %d pixels", font, w, h, MaxPixels)
		}
	}
}

func TestNewDrawingRefuses(t *testing.T) {
	tests := []struct {
		name string
		text string
		s    Style
	}{
		{"empty text", "", DefaultStyle()},
		{"letters", "12a", DefaultStyle()},
		{"too long", strings.Repeat("1", MaxTextLen+1), DefaultStyle()},
		{"unknown font", "1", Style{Digits: 1, Size: 20, Font: "nope"}},
		{"size too big", "1", Style{Digits: 1, Size: MaxSize + 1, Font: "mono"}},
	}
	for _, tc := range tests {
		if _, err := NewDrawing(tc.text, tc.s); err == nil {
			t.Errorf("%s: NewDrawing(%q) succeeded, want an error", tc.name, tc.text)
		}
	}
}
