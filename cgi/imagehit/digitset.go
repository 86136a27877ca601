package imagehit

import (
	"bytes"
	"errors"
	"strconv"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
	"hitcounter/counter/draw"
)

// errSetGone reports a counter's default set that the database does not
// hold: theme remove refuses a set in use, so only a damaged or hand-made
// file has one; its image is drawn in the font.
var errSetGone = errors.New("the counter's default theme is not in the database")

// drawSet draws text in the digit set style names, in a read transaction
// of its own after the hit's, from the header and the digits text holds
// only, where the file maps them. named says the tag named the set,
// rather than the counter's setting.
func (a *Server) drawSet(body *bytes.Buffer, name, text string, format counter.Format, style counter.Style, named bool) error {
	db, err := a.Open(true)
	if err != nil {
		return err
	}
	defer db.Close()
	err = db.DrawDigitSet(style.Set, text, func(s *digitset.Set) error {
		return draw.WriteDigitSet(body, s, text, format, draw.SetOptions{Height: style.SetHeight, Smooth: style.Smooth})
	})
	if err != nil {
		body.Reset() // a file found damaged while it was drawn
	}
	if errors.Is(err, counter.ErrNoTheme) && !named {
		a.Log.Printf("counter %q: its theme %s is not in the database: drawn in the font (counter config %s theme=NAME)", name, style.Set, name)
		return errSetGone
	}
	if errors.Is(err, draw.ErrSetTooLarge) {
		return &counter.ParamError{Param: "size", Reason: "the theme's image would pass " +
			strconv.Itoa(draw.MaxSetWidth) + "x" + strconv.Itoa(draw.MaxSetHeight) + " px: ask a smaller size or fewer digits"}
	}
	return err
}
