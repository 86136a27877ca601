package web

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// serveCounter answers /NAME.png, .gif, .svg (a GET counts one hit, unless
// it asks count=0), /NAME.json and /NAME.shields.json (which count nothing).
// Extensions are read in any case: /NAME.PNG is an image too.
func (a *App) serveCounter(w http.ResponseWriter, r *http.Request) {
	name, ext, _ := cutLast(r.PathValue("file"), ".")
	if strings.EqualFold(ext, "json") {
		if base, shields := cutSuffixFold(name, ".shields"); shields {
			a.serveShields(w, r, base)
			return
		}
		if asksTop(r.URL.RawQuery) {
			a.serveTop(w, r, name)
			return
		}
		a.serveCount(w, r, name)
		return
	}
	if name, ext, ok := imagehit.ScriptPath(r.PathValue("file")); ok {
		a.serveScript(w, r, name, ext)
		return
	}
	typ, ok := counter.ParseImageType(ext)
	if !ok {
		a.log.Printf("%s %q: not a counter path", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	a.serveImage(w, r, name, typ)
}

// imageRequest is what imagehit reads of r.
func imageRequest(r *http.Request) imagehit.Request {
	return imagehit.Request{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		Header: r.Header.Get, Values: r.Header.Values, Peer: peerAddr(r),
	}
}

// serveImage answers an image of counter name in image type typ (package
// imagehit, which the hit binary serves too).
func (a *App) serveImage(w http.ResponseWriter, r *http.Request, name string, typ counter.ImageType) {
	req := imageRequest(r)
	ans := a.proc.Serve(req, name, typ)
	if ans.Counted {
		tag(w, meter.Hit)
	}
	if err := writeAnswer(w, ans); errors.Is(err, gateway.ErrBusy) && !gateway.Cut(w) {
		// Big answers waiting for slow readers hold all the memory the
		// service allows them: a short image says so, as every image
		// answer must be one. A hit it carried is counted already.
		writeAnswer(w, a.proc.Server().RefuseAs(req, typ, err, http.StatusServiceUnavailable, "busy, try again"))
	}
}

// serveScript answers NAME.js, the script, or NAME.count, the count it
// sends (package imagehit, which the hit binary serves too).
func (a *App) serveScript(w http.ResponseWriter, r *http.Request, name, ext string) {
	req := imageRequest(r)
	var ans imagehit.Answer
	if ext == imagehit.ScriptExt {
		ans = a.proc.Server().ServeScript(req, name)
	} else {
		ans = a.proc.ServeCount(req, name)
	}
	if ans.Counted {
		tag(w, meter.Hit)
	}
	writeAnswer(w, ans)
}

// refuseImage answers an image request that cannot show a count
// (imagehit.Server.Refuse), with the status and message publicError gives.
func (a *App) refuseImage(w http.ResponseWriter, r *http.Request, typ counter.ImageType, err error) {
	status, msg := publicError(err)
	writeAnswer(w, a.proc.Server().RefuseAs(imageRequest(r), typ, err, status, msg))
}

// writeAnswer sends an image answer, and returns the error of writing its
// body. The body goes in one write, its pieces joined: the long-lived
// servers count a write bigger than what each connection may hold against
// the budget of bytes that answers hold for slow readers (gateway's
// heldBytes), and a drawn image's pieces are each within that, while the
// handler holds them all until the last has gone.
func writeAnswer(w http.ResponseWriter, ans imagehit.Answer) error {
	h := w.Header()
	for _, f := range ans.Header {
		h.Set(f.Key, f.Value)
	}
	w.WriteHeader(ans.Status)
	var body []byte
	switch len(ans.Body) {
	case 0:
		return nil
	case 1:
		body = ans.Body[0]
	default:
		body = bytes.Join(ans.Body, nil)
	}
	_, err := w.Write(body)
	return err
}

// cutSuffixFold is strings.CutSuffix with the suffix in any case.
func cutSuffixFold(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
