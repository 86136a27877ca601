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

// drawSet draws text in the digit set style names, read from the database
// after the hit's transaction, with the header and the digits text holds
// only. named says the tag named the set, rather than the counter's
// setting.
func (a *Server) drawSet(body *bytes.Buffer, name, text string, format counter.Format, style counter.Style, named bool) error {
	s, err := a.digitSet(style.Set, text)
	if errors.Is(err, counter.ErrNoTheme) && !named {
		a.Log.Printf("counter %q: its theme %s is not in the database: drawn in the font (counter.cgi config %s theme=NAME)", name, style.Set, name)
		return errSetGone
	}
	if err != nil {
		return err
	}
	err = draw.WriteDigitSet(body, s, text, format, draw.SetOptions{Height: style.SetHeight, Smooth: style.Smooth})
	if errors.Is(err, draw.ErrSetTooLarge) {
		return &counter.ParamError{Param: "size", Reason: "the theme's image would pass " +
			strconv.Itoa(draw.MaxSetWidth) + "x" + strconv.Itoa(draw.MaxSetHeight) + " px: ask a smaller size or fewer digits"}
	}
	return err
}

// digitSet reads set name with the digits of text, in a read transaction
// of its own.
func (a *Server) digitSet(name, text string) (*digitset.Set, error) {
	db, err := a.Open(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.DigitSet(name, text)
}
