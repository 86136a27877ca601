package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/imagehit"
	"hitcounter/counter"
)

// noCache makes browsers and image proxies (GitHub's camo among them) ask
// again for every view, so every view is counted.
func noCache(h http.Header) {
	for _, f := range imagehit.NoCache(nil) {
		h.Set(f.Key, f.Value)
	}
}

// errorHeader carries the reason for a refused image request, where the
// owner can see it in the browser's network panel without breaking the page.
const errorHeader = imagehit.ErrorHeader

// publicError maps an error to the status and the short fixed message a
// visitor may see. The detail stays in the log.
// The errors a hit can meet are the image server's (imagehit.PublicError);
// these are the pages' and the gateway's.
func publicError(err error) (int, string) {
	status, msg, known := imagehit.PublicError(err)
	switch {
	case known:
	case errors.Is(err, gateway.ErrBadRequest):
		return http.StatusBadRequest, "bad request"
	case errors.Is(err, errUncleanPath):
		return http.StatusBadRequest, "invalid counter name"
	case errors.Is(err, errLoginRequired):
		return http.StatusUnauthorized, "log in first"
	case errors.Is(err, counter.ErrPagesPrivate):
		return http.StatusForbidden, "the owner has not made the page list public"
	case errors.Is(err, errBadSort):
		return http.StatusBadRequest, "bad sort: a column of the table, order asc or desc"
	case errors.Is(err, counter.ErrNotSite):
		return http.StatusBadRequest, "not a site: a plain counter has no pages"
	}
	return status, msg
}

// writeBody sends a complete answer with its length; the body is left out
// for HEAD.
func writeBody(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeJSON sends v as JSON, never cached.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only this program's own answer types come here: a bug.
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	noCache(w.Header())
	writeBody(w, r, status, "application/json", append(b, '\n'))
}

// errorAnswer is the JSON of a refused request for JSON.
type errorAnswer struct {
	Error string `json:"error"`
}

// appendJSONString appends s as encoding/json writes it (a string's
// encoding cannot fail); the exports, which write their document a row at
// a time, encode each string with it.
func appendJSONString(b []byte, s string) []byte {
	j, _ := json.Marshal(s)
	return append(b, j...)
}
