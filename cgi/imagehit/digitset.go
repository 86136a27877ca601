package imagehit

import (
	"errors"
	"strconv"
	"strings"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
	"hitcounter/counter/draw"
)

// errSetGone reports a counter's default set that the database does not
// hold: digitset remove refuses a set in use, so only a damaged or hand-made
// file has one; its image is drawn in the font.
var errSetGone = errors.New("the counter's default digit set is not in the database")

// errNoDash reports dashes (a count not known) asked of a set without a
// dash piece: they are drawn in the font.
var errNoDash = errors.New("the digit set has no dash")

// drawSet draws text in the digit set style names: the header and the
// parts of the digits text holds that image type typ draws are copied out in a
// read transaction of their own after the hit's, and drawn once the file
// is closed, so that an image in a digit set, which anyone may ask for, holds the
// lock no longer than a bounded read. named says the tag named the set,
// rather than the counter's setting.
func (a *Server) drawSet(body *chunkedBody, name, text string, typ counter.ImageType, style counter.Style, named bool) error {
	release, err := a.SetTurns.take(a.Cfg.Wait)
	if err != nil {
		return err
	}
	s, err := a.digitSet(style.Set, text, typ)
	if err == nil && !s.Has(digitset.Comma) {
		text = strings.ReplaceAll(text, ",", "") // comma=1: a piece the set lacks is not invented
	}
	if err == nil && strings.Contains(text, "-") && !s.Has(digitset.Dash) {
		err = errNoDash
	}
	if err == nil {
		err = draw.WriteDigitSet(body, s, text, typ, draw.SetOptionsOf(s, style))
	}
	release()
	if err != nil {
		body.Reset() // a file found damaged while it was drawn
	}
	if errors.Is(err, counter.ErrNoDigitSet) && !named {
		a.Log.Printf("counter %q: its default digit set %s is not in the database: drawn in the font (counter config %s theme=NAME)", name, style.Set, name)
		return errSetGone
	}
	if errors.Is(err, draw.ErrSetTooLarge) {
		return &counter.ParamError{Param: "size", Reason: "the digit set's image would pass " +
			strconv.Itoa(digitset.MaxDrawPixels) + " pixels (" + strconv.Itoa(draw.MaxSmoothPixels) + " with smooth=1, " +
			strconv.Itoa(draw.MaxSetWidth) + "x" + strconv.Itoa(draw.MaxSetHeight) + " px): ask a smaller size or fewer digits"}
	}
	return err
}

// digitSet reads what image type typ draws of set name for text, and closes the
// file before it returns.
func (a *Server) digitSet(name, text string, typ counter.ImageType) (*digitset.Set, error) {
	db, err := a.Open(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	frames, pieces := draw.SetParts(typ)
	return db.DigitSet(name, text, frames, pieces)
}
