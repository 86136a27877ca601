package web

import (
	"errors"
	"net/http"
	"strconv"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/imagehit"
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

// writeJSON sends a flat JSON object of string and count fields, in the
// order given, never cached. It is written out by hand: encoding/json and the
// reflection it brings made the binary, which every hit loads, 170 kB larger
// for two fields.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, fields ...jsonField) {
	b := []byte{'{'}
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.key)
		b = append(b, ':')
		switch {
		case f.str != nil:
			b = appendJSONString(b, *f.str)
		case f.boolean != nil:
			b = strconv.AppendBool(b, *f.boolean)
		default:
			b = strconv.AppendUint(b, f.num, 10)
		}
	}
	b = append(b, "}\n"...)
	noCache(w.Header())
	writeBody(w, r, status, "application/json", b)
}

// jsonField is one field of writeJSON's object: a string, a count or a
// boolean.
type jsonField struct {
	key     string
	str     *string
	num     uint64
	boolean *bool
}

func jsonString(key, v string) jsonField       { return jsonField{key: key, str: &v} }
func jsonCount(key string, n uint64) jsonField { return jsonField{key: key, num: n} }
func jsonBool(key string, v bool) jsonField    { return jsonField{key: key, boolean: &v} }

// appendJSONString appends s as a JSON string, escaping what RFC 8259
// requires and '<', '>' and '&' as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
