package imagehit

import (
	"errors"

	"hitcounter/cgi/gateway/cgiwire"
	"hitcounter/counter"
	"hitcounter/store"
)

// The statuses an image answer may have, as net/http numbers them.
const (
	statusOK                  = 200
	statusBadRequest          = 400
	statusNotFound            = 404
	statusInternalServerError = 500
	statusServiceUnavailable  = 503
	statusInsufficientStorage = 507
)

// ErrorHeader carries the reason for a refused image request, where the
// owner can see it in the browser's network panel without breaking the page.
const ErrorHeader = "X-Counter-Error"

// PublicError maps an error a hit can meet to the status and the short
// fixed message a visitor may see; known is false for an error it does not
// know, which is a 500. The detail stays in the log.
func PublicError(err error) (status int, msg string, known bool) {
	var pe *counter.ParamError
	switch {
	case errors.As(err, &pe):
		return statusBadRequest, pe.Error(), true
	case errors.Is(err, counter.ErrInvalidName):
		return statusBadRequest, "invalid counter name", true
	case errors.Is(err, counter.ErrNotFound):
		return statusNotFound, "no such counter", true
	case errors.Is(err, counter.ErrNoDigitSet):
		return statusBadRequest, "no such theme", true
	case errors.Is(err, store.ErrTimeout):
		return statusServiceUnavailable, "busy, try again", true
	case errors.Is(err, store.ErrMissing), errors.Is(err, store.ErrDamaged), errors.Is(err, store.ErrLockIsDatabase),
		errors.Is(err, store.ErrUnavailable), errors.Is(err, store.ErrUnknownOutcome):
		return statusServiceUnavailable, "counter unavailable", true
	case errors.Is(err, store.ErrFull):
		return statusInsufficientStorage, "database full", true
	}
	return statusInternalServerError, "internal error", false
}

// NoCache appends to h the headers that make browsers and image proxies
// (GitHub's camo among them) ask again for every view, so every view is
// counted.
func NoCache(h []cgiwire.Field) []cgiwire.Field {
	return append(h,
		cgiwire.Field{Key: "Cache-Control", Value: "no-cache, no-store, must-revalidate, max-age=0"},
		cgiwire.Field{Key: "Pragma", Value: "no-cache"},
		cgiwire.Field{Key: "Expires", Value: "0"},
		cgiwire.Field{Key: "X-Content-Type-Options", Value: "nosniff"})
}
