package counter

import "image/color"

// Look is a built-in way of drawing the digits, chosen with theme=NAME
// beside the colour schemes light, dark and auto. Each has drawing code of
// its own in counter/draw, not a recoloured font.
type Look uint8

// The looks. LookFont, the zero value, draws the Go font's digits.
const (
	LookFont     Look = iota
	LookLED           // a seven-segment LED display, unlit segments faintly shown
	LookOdometer      // light digits on dark rolling drums, shaded top and bottom
	LookNixie         // glowing digits in the dark, as a nixie tube's
	LookRetro         // a 1990s web counter: digits on black in a bevelled frame
)

// looks names each look, in Look order from LookLED, with the colours it
// takes unless the tag gives fg or bg: what a look means by them is said
// in LookNames' doc.
var looks = [...]struct {
	name   string
	fg, bg color.NRGBA
}{
	{"led", color.NRGBA{0xff, 0x30, 0x20, 0xff}, color.NRGBA{0x12, 0x08, 0x08, 0xff}},
	{"odometer", color.NRGBA{0xf4, 0xf1, 0xe8, 0xff}, color.NRGBA{0x2a, 0x2a, 0x2e, 0xff}},
	{"nixie", color.NRGBA{0xff, 0x7a, 0x1a, 0xff}, color.NRGBA{0x14, 0x0c, 0x08, 0xff}},
	{"retro", color.NRGBA{0x33, 0xff, 0x33, 0xff}, color.NRGBA{0x00, 0x00, 0x00, 0xff}},
}

// LookNames returns the names of the built-in looks, as theme= takes them.
// fg is the colour of a lit segment (led), a digit (odometer, retro) or the
// glow (nixie); bg is the display's, a drum's or the field's.
func LookNames() []string {
	names := make([]string, len(looks))
	for i, l := range looks {
		names[i] = l.name
	}
	return names
}

// String returns the look's name, "" for LookFont.
func (l Look) String() string {
	if l == LookFont || int(l) > len(looks) {
		return ""
	}
	return looks[l-1].name
}

// lookupLook returns the look named name.
func lookupLook(name string) (Look, bool) {
	for i, l := range looks {
		if l.name == name {
			return Look(i + 1), true
		}
	}
	return LookFont, false
}
