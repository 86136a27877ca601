package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"hitcounter/counter"
	"hitcounter/store"
)

// noCache makes browsers and image proxies (GitHub's camo among them) ask
// again for every view, so every view is counted.
func noCache(h http.Header) {
	h.Set("Cache-Control", "no-cache, no-store, must-revalidate, max-age=0")
	h.Set("Pragma", "no-cache")
	h.Set("Expires", "0")
	h.Set("X-Content-Type-Options", "nosniff")
}

// errorHeader carries the reason for a refused image request, where the
// owner can see it in the browser's network panel without breaking the page.
const errorHeader = "X-Counter-Error"

// publicError maps an error to the status and the short fixed message a
// visitor may see. The detail stays in the log.
func publicError(err error) (int, string) {
	var pe *counter.ParamError
	switch {
	case errors.As(err, &pe):
		return http.StatusBadRequest, pe.Error()
	case errors.Is(err, counter.ErrInvalidName):
		return http.StatusBadRequest, "invalid counter name"
	case errors.Is(err, counter.ErrNotFound), errors.Is(err, store.ErrMissing):
		return http.StatusNotFound, "no such counter"
	case errors.Is(err, store.ErrTimeout):
		return http.StatusServiceUnavailable, "busy, try again"
	}
	return http.StatusInternalServerError, "internal error"
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
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(v)
	noCache(w.Header())
	writeBody(w, r, status, "application/json", buf.Bytes())
}
