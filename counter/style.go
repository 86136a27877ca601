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
	// Moe-Counter's options, under its names: padding= is digits=;
	// scale= (Scale, in thousandths, 0 for none) multiplies a set's own
	// height, or a font's size; offset= (Offset) is the space between a
	// set's pieces, in pixels, negative to overlap; align= (Align) places
	// a set's shorter pieces; pixelated=0 is smooth=1; darkmode= (Dim)
	// dims an SVG of a set in the viewer's dark mode (auto) or always
	// (1); prefix= (Prefix) is a number drawn before the count.
	Scale  int
	Offset int
	Align  Align
	Dim    Dim
	Prefix string
	// Comma (comma=1, Count.cgi's name) writes the count with a comma
	// between thousands, 1,234,567, unpadded as Count.cgi writes it,
	// where the drawing has a comma: the fonts, a badge, a set with a
	// comma piece.
	Comma bool
}

// Align is where a piece shorter than a set's tallest is drawn:
// align=top (the default, as Moe-Counter's), center or bottom.
type Align uint8

const (
	AlignTop Align = iota
	AlignCenter
	AlignBottom
)

// Dim is Moe-Counter's darkmode=: none (ours by default), auto (an SVG
// dimmed in the viewer's dark mode) or always (darkmode=1).
type Dim uint8

const (
	DimNone Dim = iota
	DimAuto
	DimAlways
)

// Bounds of Moe-Counter's options.
const (
	MinScale     = 100  // scale=0.1, in thousandths
	MaxScale     = 2000 // scale=2
	MaxOffset    = 100  // offset=, either way, in pixels
	MaxPrefixLen = 10   // prefix= digits
)

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
	for _, p := range sameParams {
		if given(p[0]) && given(p[1]) {
			return s, &ParamError{p[0] + "," + p[1], "say the same: give one of " + p[0] + " and " + p[1]}
		}
	}
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
	if s.Scale != 0 {
		// A font's size, scaled as a set's height is.
		s.Size = min(max((s.Size*s.Scale+500)/1000, MinSize), MaxSize)
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
var styleParams = [...]string{"digits", "size", "fg", "bg", "font", "style", "label", "color", "labelColor", "theme", "darkfg", "darkbg", "smooth", "abbreviated",
	"padding", "scale", "pixelated", "offset", "align", "darkmode", "prefix", "comma"}

// sameParams are pairs of keys that say the same, ours and
// Moe-Counter's: given together, they are refused, both named.
var sameParams = [...][2]string{{"digits", "padding"}, {"size", "scale"}, {"smooth", "pixelated"}}

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
	case "padding", "offset", "align", "scale", "pixelated", "darkmode", "prefix", "comma":
		return s.setMoe(key, value)
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
		var err error
		if s.Smooth, err = parseSwitch(key, value, false, "must be 1 (scale a digit set smoothly) or 0"); err != nil {
			return err
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
	return parseSwitch("abbreviated", v, true, "must be 1 (1.2K for 1,234) or 0")
}

// parseSwitch reads the value of an on-off parameter key: 1 or 0, and
// with words true or false too, as komarev's tags write them; else the
// ParamError says reason.
func parseSwitch(key, value string, words bool, reason string) (bool, error) {
	switch {
	case value == "1" || words && value == "true":
		return true, nil
	case value == "0" || words && value == "false":
		return false, nil
	}
	return false, &ParamError{key, reason}
}

// CountText is n as style s writes it: Abbreviate's when s asks for it
// and can draw (what the caller's drawing says of that text), else in
// full, padded to s.Digits.
func (s Style) CountText(n uint64, can func(text string) bool) string {
	if s.Abbreviated {
		if text := Abbreviate(n); can(s.Prefix + text) {
			return s.Prefix + text
		}
	}
	// A set's comma is known once the set is read: the drawing leaves
	// the commas out of a set that has none.
	if c := s.Prefix + Commas(n); s.Comma && (s.Set != "" || can(c)) {
		return c
	}
	if d := s.Prefix + Digits(n, s.Digits); s.Prefix == "" || s.Set != "" || can(d) {
		return d
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

// setMoe sets one of Moe-Counter's options, or Count.cgi's comma=.
func (s *Style) setMoe(key, value string) error {
	var ok bool
	switch key {
	case "padding":
		if s.Digits, ok = parseBounded(value, MinDigits, MaxDigits); !ok {
			return &ParamError{key, "must be a whole number from 1 to 12"}
		}
	case "offset":
		v, neg := strings.CutPrefix(value, "-")
		if s.Offset, ok = parseBounded(v, 0, MaxOffset); !ok {
			return &ParamError{key, "must be a whole number from -100 to 100 (pixels between pieces)"}
		}
		if neg {
			s.Offset = -s.Offset
		}
	case "align":
		switch value {
		case "top":
			s.Align = AlignTop
		case "center":
			s.Align = AlignCenter
		case "bottom":
			s.Align = AlignBottom
		default:
			return &ParamError{key, "must be top, center or bottom"}
		}
	case "scale":
		if s.Scale, ok = parseScale(value); !ok {
			return &ParamError{key, "must be a number from 0.1 to 2"}
		}
	case "pixelated":
		hard, err := parseSwitch(key, value, false, "must be 1 (hard pixels, the default) or 0 (smooth)")
		if err != nil {
			return err
		}
		s.Smooth = !hard
	case "darkmode":
		switch value {
		case "auto":
			s.Dim = DimAuto
		case "1":
			s.Dim = DimAlways
		case "0":
			s.Dim = DimNone
		default:
			return &ParamError{key, "must be auto (dim in dark mode, SVG), 1 (always) or 0"}
		}
	case "prefix":
		if len(value) == 0 || len(value) > MaxPrefixLen || strings.Trim(value, "0123456789") != "" {
			return &ParamError{key, "must be a number of 1 to 10 digits"}
		}
		s.Prefix = value
	case "comma":
		var err error
		if s.Comma, err = parseSwitch(key, value, true, "must be 1 (1,234,567) or 0"); err != nil {
			return err
		}
	}
	return nil
}

// parseScale reads a multiplier from 0.1 to 2 with at most three
// decimals, as thousandths.
func parseScale(v string) (int, bool) {
	whole, frac, _ := strings.Cut(v, ".")
	if len(whole) > 1 || len(frac) > 3 || whole == "" && frac == "" {
		return 0, false
	}
	n := 0
	for _, part := range []string{whole, (frac + "000")[:3]} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, false
			}
			n = n*10 + int(part[i]-'0')
		}
	}
	return n, MinScale <= n && n <= MaxScale
}

// Commas writes n with a comma between thousands: 1,234,567.
func Commas(n uint64) string {
	d := strconv.FormatUint(n, 10)
	b := make([]byte, 0, len(d)+len(d)/3)
	for i := 0; i < len(d); i++ {
		if i > 0 && (len(d)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, d[i])
	}
	return string(b)
}
