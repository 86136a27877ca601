package counter

import (
	"errors"
	"fmt"
	"image/color"
	"strings"
	"testing"

	"golang.org/x/image/colornames"
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
		{"bg RRGGBBAA", "bg=ffffff00", with(func(s *Style) { s.BG, s.DarkBG = color.NRGBA{0xff, 0xff, 0xff, 0}, color.NRGBA{0xff, 0xff, 0xff, 0} }), ""},
		{"escaped hash", "fg=%23000", with(func(s *Style) { s.FG = color.NRGBA{0, 0, 0, 0xff} }), ""},
		{"font", "font=bold", with(func(s *Style) { s.Font = "bold" }), ""},
		{"all", "digits=3&size=10&fg=fff&bg=000&font=regular", with(func(s *Style) {
			s.Digits, s.Size, s.FG, s.BG, s.Font = 3, 10, color.NRGBA{255, 255, 255, 255}, color.NRGBA{0, 0, 0, 255}, "regular"
		}), ""},
		{"empty pairs", "&&digits=2&", with(func(s *Style) { s.Digits = 2 }), ""},
		{"named colour", "fg=RebeccaPurple", with(func(s *Style) { s.FG = color.NRGBA{0x66, 0x33, 0x99, 0xff} }), ""},
		{"transparent", "bg=transparent", with(func(s *Style) { s.BG, s.DarkBG = color.NRGBA{}, color.NRGBA{} }), ""},
		{"transparent, dark given", "bg=transparent&darkbg=000", with(func(s *Style) { s.BG, s.DarkBG = color.NRGBA{}, color.NRGBA{0, 0, 0, 0xff} }), ""},
		{"theme auto", "theme=auto&darkfg=white", with(func(s *Style) { s.Scheme, s.DarkFG = SchemeAuto, color.NRGBA{0xff, 0xff, 0xff, 0xff} }), ""},
		{"theme dark", "theme=dark", with(func(s *Style) { s.Scheme, s.FG, s.BG = SchemeDark, def.DarkFG, def.DarkBG }), ""},
		{"badge", "style=badge", with(func(s *Style) { s.Badge, s.Digits, s.FG = true, 1, color.NRGBA{0xff, 0xff, 0xff, 0xff} }), ""},
		{"badge of our own", "style=badge&label=Besucher%20%C3%BCberall&color=green&labelColor=%23333&fg=yellow&digits=4", with(func(s *Style) {
			s.Badge, s.Digits, s.Label = true, 4, "Besucher überall"
			s.ValueBG, s.LabelBG, s.FG = color.NRGBA{0, 0x80, 0, 0xff}, color.NRGBA{0x33, 0x33, 0x33, 0xff}, color.NRGBA{0xff, 0xff, 0, 0xff}
		}), ""},
		{"badge, labelcolor", "style=badge&labelcolor=red", with(func(s *Style) {
			s.Badge, s.Digits, s.FG, s.LabelBG = true, 1, color.NRGBA{0xff, 0xff, 0xff, 0xff}, color.NRGBA{0xff, 0, 0, 0xff}
		}), ""},
		{"badge, no label", "style=badge&label=", with(func(s *Style) {
			s.Badge, s.Digits, s.FG, s.NoLabel = true, 1, color.NRGBA{0xff, 0xff, 0xff, 0xff}, true
		}), ""},
		{"label of 32", "label=" + strings.Repeat("x", MaxLabel), with(func(s *Style) { s.Label = strings.Repeat("x", MaxLabel) }), ""},
		{"style digits", "style=digits", def, ""},
		{"look led", "theme=led", with(func(s *Style) {
			s.Look, s.FG, s.BG = LookLED, color.NRGBA{0xff, 0x30, 0x20, 0xff}, color.NRGBA{0x12, 0x08, 0x08, 0xff}
		}), ""},
		{"look retro, own colours", "theme=retro&fg=red&bg=navy", with(func(s *Style) {
			s.Look, s.FG, s.BG = LookRetro, color.NRGBA{0xff, 0, 0, 0xff}, color.NRGBA{0, 0, 0x80, 0xff}
		}), ""},
		{"a digit set", "theme=moe", with(func(s *Style) { s.Set = "moe" }), ""},
		{"a digit set at 200", "size=200&theme=moe&smooth=1", with(func(s *Style) { s.Set, s.Size, s.SetHeight, s.Smooth = "moe", 200, 200, true }), ""},
		{"a font at 200", "size=200", def, "size"},
		{"a set at 1025", "theme=moe&size=1025", def, "size"},
		{"a set as a badge", "theme=moe&style=badge", def, "theme"},
		{"smooth not 0 or 1", "smooth=yes", def, "smooth"},
		{"look as a badge", "theme=nixie&style=badge", def, "theme"},

		{"label of 33", "label=" + strings.Repeat("x", MaxLabel+1), def, "label"},
		{"label with a newline", "label=a%0Ab", def, "label"},
		{"label with markup is fine, an emoji is not", "label=%F0%9F%98%80", def, "label"},
		{"label not UTF-8", "label=%FF", def, "label"},
		{"label with a control", "label=%7F", def, "label"},
		{"label twice", "label=a&label=b", def, "label"},
		{"labelColor and labelcolor", "labelColor=red&labelcolor=blue", def, "labelcolor"},
		{"style unknown", "style=plastic", def, "style"},
		{"theme no name", "theme=se%2Fpia", def, "theme"},
		{"colour name too long", "color=lightgoldenrodyellowish", def, "color"},
		{"colour name unknown", "darkbg=bluish", def, "darkbg"},

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
		{"fg name", "fg=red", with(func(s *Style) { s.FG = color.NRGBA{0xff, 0, 0, 0xff} }), ""},
		{"fg name in capitals", "fg=RED", with(func(s *Style) { s.FG = color.NRGBA{0xff, 0, 0, 0xff} }), ""},
		{"bg RGBA", "bg=fff0", with(func(s *Style) { s.BG, s.DarkBG = color.NRGBA{0xff, 0xff, 0xff, 0}, color.NRGBA{0xff, 0xff, 0xff, 0} }), ""},
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
		// Moe-Counter's options, under its names.
		{"padding", "padding=7", with(func(s *Style) { s.Digits = 7 }), ""},
		{"offset", "offset=-5", with(func(s *Style) { s.Offset = -5 }), ""},
		{"offset max", "offset=100", with(func(s *Style) { s.Offset = 100 }), ""},
		{"align", "align=center", with(func(s *Style) { s.Align = AlignCenter }), ""},
		{"scale of a font", "scale=1.5", with(func(s *Style) { s.Scale, s.Size = 1500, 30 }), ""},
		{"scale least, a font's least size", "scale=0.1", with(func(s *Style) { s.Scale, s.Size = 100, MinSize }), ""},
		{"scale of a set", "scale=.5&theme=pix", with(func(s *Style) { s.Scale, s.Set = 500, "pix" }), ""},
		{"pixelated=0 is smooth", "pixelated=0&theme=pix", with(func(s *Style) { s.Smooth, s.Set = true, "pix" }), ""},
		{"darkmode auto", "darkmode=auto", with(func(s *Style) { s.Dim = DimAuto }), ""},
		{"darkmode 1", "darkmode=1", with(func(s *Style) { s.Dim = DimAlways }), ""},
		{"prefix", "prefix=2024", with(func(s *Style) { s.Prefix = "2024" }), ""},
		{"comma", "comma=1", with(func(s *Style) { s.Comma = true }), ""},
		{"padding and digits", "padding=3&digits=4", def, "digits,padding"},
		{"scale and size", "size=30&scale=2", def, "size,scale"},
		{"pixelated and smooth", "smooth=1&pixelated=1", def, "smooth,pixelated"},
		{"offset past", "offset=101", def, "offset"},
		{"offset past, negative", "offset=-101", def, "offset"},
		{"offset a fraction", "offset=1.5", def, "offset"},
		{"align other", "align=middle", def, "align"},
		{"scale past", "scale=2.001", def, "scale"},
		{"scale under", "scale=0.099", def, "scale"},
		{"scale signed", "scale=-1", def, "scale"},
		{"scale exponent", "scale=1e0", def, "scale"},
		{"scale long", "scale=1.0000", def, "scale"},
		{"darkmode other", "darkmode=2", def, "darkmode"},
		{"prefix not a number", "prefix=-1", def, "prefix"},
		{"prefix long", "prefix=12345678901", def, "prefix"},
		{"comma other", "comma=yes", def, "comma"},
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

// TestNamedColours checks the table against golang.org/x/image/colornames,
// the SVG 1.1 names, which the binary does not link.
func TestNamedColours(t *testing.T) {
	want := map[string]color.NRGBA{"rebeccapurple": {0x66, 0x33, 0x99, 0xff}, "transparent": {}}
	for name, c := range colornames.Map {
		want[name] = color.NRGBA(c)
	}
	if len(namedColours) != len(want) {
		t.Errorf("%d names, want %d", len(namedColours), len(want))
	}
	for i, e := range namedColours {
		if i > 0 && namedColours[i-1].name >= e.name {
			t.Errorf("%s after %s: the table must be sorted", e.name, namedColours[i-1].name)
		}
		if c, ok := want[e.name]; !ok || c != e.c {
			t.Errorf("%s = %v, want %v (known: %v)", e.name, e.c, c, ok)
		}
		if len(e.name) > maxColourName {
			t.Errorf("%s is longer than maxColourName", e.name)
		}
	}
	for name, c := range want {
		for _, spelling := range []string{name, strings.ToUpper(name)} {
			if got, ok := lookupColour(spelling); !ok || got != c {
				t.Errorf("lookupColour(%q) = %v, %v; want %v", spelling, got, ok, c)
			}
		}
	}
}

// TestEveryLabelRuneIsAccepted checks that CheckLabel takes every character
// that LabelRune says a label has a glyph for.
func TestEveryLabelRuneIsAccepted(t *testing.T) {
	var all strings.Builder
	for r := rune(0x20); r <= 0xff; r++ {
		if LabelRune(r) {
			all.WriteRune(r)
		}
	}
	for text := all.String(); text != ""; {
		n := min(MaxLabel, len([]rune(text)))
		chunk := string([]rune(text)[:n])
		text = string([]rune(text)[n:])
		if err := CheckLabel(chunk); err != nil {
			t.Errorf("%q: %v", chunk, err)
		}
	}
}

func TestThemeNeedsSVG(t *testing.T) {
	s, err := ParseStyle("theme=auto")
	if err != nil {
		t.Fatal(err)
	}
	for f, ok := range map[ImageType]bool{PNG: false, GIF: false, SVG: true} {
		var pe *ParamError
		if err := s.CheckImageType(f); (err == nil) != ok || (!ok && (!errors.As(err, &pe) || pe.Param != "theme")) {
			t.Errorf("format %d: %v", f, err)
		}
	}
}

func TestLookNames(t *testing.T) {
	for i, name := range LookNames() {
		l, ok := lookupLook(name)
		if !ok || l != Look(i+1) || l.String() != name {
			t.Errorf("look %q: lookupLook = %d, %v; String %q", name, l, ok, l.String())
		}
		for _, reserved := range []string{"light", "dark", "auto"} {
			if name == reserved {
				t.Errorf("look %q takes a colour scheme's name", name)
			}
		}
	}
	if len(LookNames()) < 4 {
		t.Errorf("%d looks, want at least 4", len(LookNames()))
	}
}

// TestCountTextMoe writes a count with prefix= and comma=1: a set takes
// the comma whatever it has (the drawing leaves out a comma it lacks), a
// font only where it can draw one.
func TestCountTextMoe(t *testing.T) {
	yes := func(string) bool { return true }
	no := func(string) bool { return false }
	tests := []struct {
		query string
		n     uint64
		can   func(string) bool
		want  string
	}{
		{"prefix=7&digits=3", 42, no, "042"},
		{"prefix=7&digits=3", 42, yes, "7042"},
		{"prefix=7&digits=3&theme=pix", 42, no, "7042"},
		{"comma=1&theme=pix", 1234567, no, "1,234,567"},
		{"comma=1&theme=pix&digits=9", 999, no, "999"},
		{"comma=1&prefix=1&theme=pix", 1000, no, "11,000"},
		{"comma=1", 1234567, no, "1234567"},
		{"comma=1", 1234567, yes, "1,234,567"},
	}
	for _, tc := range tests {
		s, err := ParseStyle(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.CountText(tc.n, tc.can); got != tc.want {
			t.Errorf("%s: CountText(%d) = %q, want %q", tc.query, tc.n, got, tc.want)
		}
	}
}

// TestOnOffParams reads the on-off parameters: smooth= and pixelated=
// take 1 or 0, comma= and abbreviated= true and false too, as komarev's
// tags write them; anything else is refused with the parameter's reason.
func TestOnOffParams(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  string // Smooth, Comma, Abbreviated; or the error
	}{
		{"smooth=1", "true false false"},
		{"smooth=0", "false false false"},
		{"pixelated=0", "true false false"},
		{"pixelated=1", "false false false"},
		{"comma=1", "false true false"},
		{"comma=true", "false true false"},
		{"comma=false", "false false false"},
		{"abbreviated=true", "false false true"},
		{"abbreviated=0", "false false false"},
		{"smooth=true", "smooth: must be 1 (scale a digit set smoothly) or 0"},
		{"pixelated=false", "pixelated: must be 1 (hard pixels, the default) or 0 (smooth)"},
		{"comma=yes", "comma: must be 1 (1,234,567) or 0"},
		{"abbreviated=2", "abbreviated: must be 1 (1.2K for 1,234) or 0"},
	} {
		s, err := ParseStyle("theme=moe&" + tc.query)
		got := fmt.Sprint(s.Smooth, s.Comma, s.Abbreviated)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.query, got, tc.want)
		}
	}
}
