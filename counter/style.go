package counter

import (
	"image/color"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of a style. Together with MaxTextLen they keep every image under
// MaxPixels, whatever a visitor sends.
const (
	MinDigits = 1
	MaxDigits = 12
	MinSize   = 8
	MaxSize   = 128

	// MaxQueryLen and MaxParams bound the work spent on a query string
	// before any of it is looked at.
	MaxQueryLen = 1024
	MaxParams   = 16
)

// Style is how a count is drawn.
type Style struct {
	Digits int         // the number format: at least this many digits, zero-padded
	Size   int         // digit height in pixels; a badge's height
	FG, BG color.NRGBA // a BG with alpha 0 gives a transparent image
	Font   string      // one of FontNames
	// Scheme says which colours an SVG takes: FG and BG, DarkFG and
	// DarkBG, or the first in the viewer's light mode and the second in
	// his dark mode (SchemeAuto, SVG only: see CheckImageType).
	Scheme         ColourScheme
	DarkFG, DarkBG color.NRGBA
	// Badge draws a label beside the count, in the flat look of README
	// badges, in Go Regular: the label on LabelBG at the left, the count
	// on ValueBG at the right, both in FG.
	Badge            bool
	Label            string // "" for the caller's default (BadgeLabel)
	NoLabel          bool   // label= given empty: the count alone
	LabelBG, ValueBG color.NRGBA
	// Look is a built-in look (theme=led, say) or LookFont: a look draws
	// the digits its own way, in FG and BG, at Size.
	Look Look
	// Set is an owner's digit set (theme=NAME, a name that is no look
	// and no colour scheme), "" for none: its own images are drawn, and
	// the colours and the font are not used. SetHeight is the height
	// size= asks of it (up to MaxSetSize), 0 for the set's own; Smooth
	// (smooth=1) scales it with a smooth filter, not nearest neighbour.
	Set       string
	SetHeight int
	Smooth    bool
	// Abbreviated (abbreviated=1, komarev's key) draws the count short
	// (Abbreviate: 1.2K), without Digits' padding, where the drawing has
	// the pieces; else the full number.
	Abbreviated bool
}

// MaxSetSize bounds size= for a digit set: the height of its output, whose
// pixels the drawing bounds (draw.MaxSetHeight, digitset.MaxDrawPixels).
const MaxSetSize = 1024

// ColourScheme is which colours a drawing takes: theme=light, dark or auto.
type ColourScheme uint8

const (
	SchemeLight ColourScheme = iota // FG and BG
	SchemeDark                      // DarkFG and DarkBG
	SchemeAuto                      // the viewer's: an SVG's prefers-color-scheme
)

// MaxLabel bounds a badge's label, in characters.
const MaxLabel = 32

// BadgeLabel is a badge's label when neither the style nor the caller
// says one.
const BadgeLabel = "views"

// DefaultStyle returns the style of a counter image without parameters.
func DefaultStyle() Style {
	return Style{
		Digits:  6,
		Size:    20,
		FG:      color.NRGBA{0x22, 0x22, 0x22, 0xff},
		BG:      color.NRGBA{0xff, 0xff, 0xff, 0xff},
		Font:    "mono",
		DarkFG:  color.NRGBA{0xe6, 0xed, 0xf3, 0xff},
		DarkBG:  color.NRGBA{0x0d, 0x11, 0x17, 0xff},
		LabelBG: color.NRGBA{0x55, 0x55, 0x55, 0xff},
		ValueBG: color.NRGBA{0x00, 0x7e, 0xc6, 0xff},
	}
}

// CheckImageType refuses a style that image type f cannot draw: only an SVG can
// follow the viewer's dark mode.
func (s Style) CheckImageType(f ImageType) error {
	if s.Scheme == SchemeAuto && f != SVG {
		return &ParamError{"theme", "auto needs .svg: only an SVG can follow the viewer's dark mode"}
	}
	return nil
}

// ParamError reports a query parameter that was refused, with a reason
// short and safe enough to send back to the visitor.
type ParamError struct {
	Param  string
	Reason string
}

func (e *ParamError) Error() string { return e.Param + ": " + e.Reason }

// ParseStyle reads a style from a raw query string such as
// "digits=7&fg=f00". Parameters it does not know (a cache-busting "v=3",
// say) are ignored; known ones must be valid and given at most once.
func ParseStyle(rawQuery string) (Style, error) {
	return parseStyle(rawQuery, "", nil)
}

// parseStyle is ParseStyle, handing each parameter that is not a
// style's to other when it is not nil (ParseImageQuery); theme, when not
// "", is taken as the value of theme= when the query gives none (a
// counter's default theme).
func parseStyle(rawQuery, theme string, other func(rawKey, key, value string) error) (Style, error) {
	s := DefaultStyle()
	if len(rawQuery) > MaxQueryLen {
		return s, &ParamError{"query", "longer than " + strconv.Itoa(MaxQueryLen) + " bytes"}
	}
	if strings.IndexByte(rawQuery, ';') >= 0 {
		return s, &ParamError{"query", "';' is not a separator, use '&'"}
	}
	var seen [len(styleParams)]bool
	params := 0
	for rest := rawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if pair == "" {
			continue
		}
		if params++; params > MaxParams {
			return s, &ParamError{"query", "more than " + strconv.Itoa(MaxParams) + " parameters"}
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err1 := url.QueryUnescape(rawKey)
		value, err2 := url.QueryUnescape(rawValue)
		if err1 != nil || err2 != nil {
			return s, &ParamError{"query", "bad %-escape"}
		}
		slot := paramSlot(key)
		if slot < 0 {
			if other != nil {
				if err := other(rawKey, key, value); err != nil {
					return s, err
				}
			}
			continue // not a style's
		}
		if seen[slot] {
			return s, &ParamError{key, "given more than once"}
		}
		seen[slot] = true
		if err := s.set(key, value); err != nil {
			return s, err
		}
	}
	given := func(key string) bool { return seen[paramSlot(key)] }
	if theme != "" && !given("theme") {
		if err := s.set("theme", theme); err != nil {
			return s, err
		}
		seen[paramSlot("theme")] = true
	}
	if s.Size > MaxSize && s.Set == "" {
		return s, &ParamError{"size", sizeReason}
	}
	if s.Set != "" {
		if s.Badge {
			return s, &ParamError{"theme", s.Set + " draws digits, not a badge"}
		}
		if given("size") {
			s.SetHeight = s.Size
		}
		return s, nil
	}
	if s.Badge {
		// A badge shows the count as it is, in white, unless told.
		if !given("digits") {
			s.Digits = 1
		}
		if !given("fg") {
			s.FG = color.NRGBA{0xff, 0xff, 0xff, 0xff}
		}
	}
	if s.Look != LookFont {
		if s.Badge {
			return s, &ParamError{"theme", s.Look.String() + " draws digits, not a badge"}
		}
		if !given("fg") {
			s.FG = looks[s.Look-1].fg
		}
		if !given("bg") {
			s.BG = looks[s.Look-1].bg
		}
	}
	if s.BG.A == 0 && !given("darkbg") {
		s.DarkBG = s.BG // transparent in the dark too
	}
	if s.Scheme == SchemeDark {
		s.FG, s.BG = s.DarkFG, s.DarkBG
	}
	return s, nil
}

// styleParams are the query parameters that make a style; labelColor
// (shields.io's spelling) and labelcolor are one.
var styleParams = [...]string{"digits", "size", "fg", "bg", "font", "style", "label", "color", "labelColor", "theme", "darkfg", "darkbg", "smooth", "abbreviated"}

func paramSlot(key string) int {
	if key == "labelcolor" {
		key = "labelColor"
	}
	for i, p := range styleParams {
		if key == p {
			return i
		}
	}
	return -1
}

func (s *Style) set(key, value string) error {
	var ok bool
	switch key {
	case "digits":
		s.Digits, ok = parseBounded(value, MinDigits, MaxDigits)
		if !ok {
			return &ParamError{key, "must be a whole number from 1 to 12"}
		}
	case "size":
		// Up to a set's bound; ParseStyle holds a font to MaxSize.
		s.Size, ok = parseBounded(value, MinSize, MaxSetSize)
		if !ok {
			return &ParamError{key, sizeReason}
		}
	case "smooth":
		switch value {
		case "0":
			s.Smooth = false
		case "1":
			s.Smooth = true
		default:
			return &ParamError{key, "must be 1 (scale a digit set smoothly) or 0"}
		}
	case "abbreviated":
		var err error
		if s.Abbreviated, err = ParseAbbreviated(value); err != nil {
			return err
		}
	case "fg", "bg", "color", "labelColor", "labelcolor", "darkfg", "darkbg":
		c, ok := parseColor(value)
		if !ok {
			return &ParamError{key, colourReason}
		}
		*s.colour(key) = c
	case "font":
		if !knownFont(value) {
			return &ParamError{key, "must be one of " + strings.Join(FontNames(), ", ")}
		}
		s.Font = value
	case "style":
		switch value {
		case "digits":
		case "badge":
			s.Badge = true
		default:
			return &ParamError{key, "must be digits or badge"}
		}
	case "theme":
		switch value {
		case "light":
			s.Scheme = SchemeLight
		case "dark":
			s.Scheme = SchemeDark
		case "auto":
			s.Scheme = SchemeAuto
		default:
			l, ok := lookupLook(value)
			if ok {
				s.Look = l
				break
			}
			if CheckName(value) != nil {
				return &ParamError{key, "must be light, dark, auto, one of " + strings.Join(LookNames(), ", ") + " or a digit set's name"}
			}
			s.Set = value
		}
	case "label":
		if err := CheckLabel(value); err != nil {
			return err
		}
		s.Label, s.NoLabel = value, value == ""
	}
	return nil
}

// ParseAbbreviated reads the value of abbreviated=: 1 or 0, or true or
// false as komarev's tags write it.
func ParseAbbreviated(v string) (bool, error) {
	switch v {
	case "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return false, &ParamError{"abbreviated", "must be 1 (1.2K for 1,234) or 0"}
}

// CountText is n as style s writes it: Abbreviate's when s asks for it
// and can draw (what the caller's drawing says of that text), else in
// full, padded to s.Digits.
func (s Style) CountText(n uint64, can func(text string) bool) string {
	if s.Abbreviated {
		if text := Abbreviate(n); can(text) {
			return text
		}
	}
	return Digits(n, s.Digits)
}

// sizeReason is why a size is refused: a font's bound, which is what
// most tags ask for.
const sizeReason = "must be a whole number from 8 to 128 (1024 with a digit set)"

// colour returns the colour that parameter key sets.
func (s *Style) colour(key string) *color.NRGBA {
	switch key {
	case "fg":
		return &s.FG
	case "bg":
		return &s.BG
	case "color":
		return &s.ValueBG
	case "labelColor", "labelcolor":
		return &s.LabelBG
	case "darkfg":
		return &s.DarkFG
	}
	return &s.DarkBG
}

// CheckLabel refuses a label that is too long or holds a character that
// LabelRune refuses.
func CheckLabel(label string) error {
	if !utf8.ValidString(label) {
		return &ParamError{"label", "is not UTF-8"}
	}
	if n := utf8.RuneCountInString(label); n > MaxLabel {
		return &ParamError{"label", "longer than " + strconv.Itoa(MaxLabel) + " characters"}
	}
	i := 0
	for _, r := range label {
		i++
		if !LabelRune(r) {
			return &ParamError{"label", "character " + strconv.Itoa(i) + " (" + strconv.QuoteRune(r) + ") has no glyph: use letters, digits and punctuation of Latin-1"}
		}
	}
	return nil
}

// colourReason says what a colour may be.
const colourReason = "must be a CSS colour name (red, rebeccapurple, transparent) or hex RGB, RGBA, RRGGBB or RRGGBBAA"

// parseBounded accepts only plain decimal digits (no sign, exponent, base
// prefix or underscore), at most four of them, within [min, max].
func parseBounded(v string, min, max int) (int, bool) {
	if len(v) == 0 || len(v) > 4 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
		n = n*10 + int(v[i]-'0')
	}
	return n, min <= n && n <= max
}

// parseColor reads a colour as CSS writes it: a named colour
// (namedColours, transparent among them) in any case, or any hex form, RGB,
// RGBA, RRGGBB or RRGGBBAA, with an optional '#'.
func parseColor(v string) (color.NRGBA, bool) {
	if c, ok := lookupColour(v); ok {
		return c, true
	}
	v = strings.TrimPrefix(v, "#")
	var nib [8]uint8
	if len(v) != 3 && len(v) != 4 && len(v) != 6 && len(v) != 8 {
		return color.NRGBA{}, false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case '0' <= c && c <= '9':
			nib[i] = c - '0'
		case 'a' <= c && c <= 'f':
			nib[i] = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			nib[i] = c - 'A' + 10
		default:
			return color.NRGBA{}, false
		}
	}
	if len(v) <= 4 {
		c := color.NRGBA{nib[0] * 17, nib[1] * 17, nib[2] * 17, 0xff}
		if len(v) == 4 {
			c.A = nib[3] * 17
		}
		return c, true
	}
	c := color.NRGBA{nib[0]<<4 | nib[1], nib[2]<<4 | nib[3], nib[4]<<4 | nib[5], 0xff}
	if len(v) == 8 {
		c.A = nib[6]<<4 | nib[7]
	}
	return c, true
}
