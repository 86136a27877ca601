package counter

import (
	"image/color"
	"net/url"
	"strconv"
	"strings"
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
	Digits int         // minimum number of digits, zero-padded
	Size   int         // digit height in pixels
	FG, BG color.NRGBA // a BG with alpha 0 gives a transparent image
	Font   string      // one of FontNames
}

// DefaultStyle returns the style of a counter image without parameters.
func DefaultStyle() Style {
	return Style{
		Digits: 6,
		Size:   20,
		FG:     color.NRGBA{0x22, 0x22, 0x22, 0xff},
		BG:     color.NRGBA{0xff, 0xff, 0xff, 0xff},
		Font:   "mono",
	}
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
			continue // not ours
		}
		if seen[slot] {
			return s, &ParamError{key, "given more than once"}
		}
		seen[slot] = true
		if err := s.set(key, value); err != nil {
			return s, err
		}
	}
	return s, nil
}

// styleParams are the query parameters that make a style.
var styleParams = [...]string{"digits", "size", "fg", "bg", "font"}

func paramSlot(key string) int {
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
		s.Size, ok = parseBounded(value, MinSize, MaxSize)
		if !ok {
			return &ParamError{key, "must be a whole number from 8 to 128"}
		}
	case "fg", "bg":
		c, ok := parseColor(value)
		if !ok {
			return &ParamError{key, "must be a hex colour: RGB, RGBA, RRGGBB or RRGGBBAA"}
		}
		if key == "fg" {
			s.FG = c
		} else {
			s.BG = c
		}
	case "font":
		if _, ok := lookupFont(value); !ok {
			return &ParamError{key, "must be one of " + strings.Join(FontNames(), ", ")}
		}
		s.Font = value
	}
	return nil
}

// parseBounded accepts only plain decimal digits (no sign, exponent, base
// prefix or underscore), at most three of them, within [min, max].
func parseBounded(v string, min, max int) (int, bool) {
	if len(v) == 0 || len(v) > 3 {
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

// parseColor reads every hex form CSS accepts, RGB, RGBA, RRGGBB or
// RRGGBBAA, with an optional '#'.
func parseColor(v string) (color.NRGBA, bool) {
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
