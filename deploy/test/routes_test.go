package test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/gif"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServerRoutes(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", "rs2", "reload=off") // one client, every hit counts
		client := &http.Client{Timeout: 20 * time.Second}

		var directWidth int // of the default style's six digits
		pngWidth := func(body []byte) (int, error) {
			img, err := png.Decode(bytes.NewReader(body))
			if err != nil {
				return 0, fmt.Errorf("decode PNG: %w", err)
			}
			return img.Bounds().Dx(), nil
		}
		isPNG := func(body []byte) error { _, err := pngWidth(body); return err }
		tests := []struct {
			name   string
			method string
			path   string
			status int
			ctype  string
			hits   uint64 // added to rs2
			check  func(body []byte) error
			header string // "Name: value" the answer must carry, if any
		}{
			{"direct", "GET", "/cgi-bin/counter.cgi/rs2.png", 200, "image/png", 1, func(body []byte) (err error) {
				directWidth, err = pngWidth(body)
				return err
			}, ""},
			{"alias", "GET", "/hits/counter.cgi/rs2.png", 200, "image/png", 1, isPNG, ""},
			{"rewrite keeps query", "GET", "/counter/rs2.png?digits=8", 200, "image/png", 1, func(body []byte) error {
				w, err := pngWidth(body)
				if err == nil && directWidth > 0 && w <= directWidth {
					err = fmt.Errorf("width %d with digits=8, want more than the %d of six digits: query string lost?", w, directWidth)
				}
				return err
			}, ""},
			{"gif", "GET", "/cgi-bin/counter.cgi/rs2.gif", 200, "image/gif", 1, func(body []byte) error {
				_, err := gif.Decode(bytes.NewReader(body))
				return err
			}, ""},
			{"svg", "GET", "/cgi-bin/counter.cgi/rs2.svg", 200, "image/svg+xml", 1, checkSVG, ""},
			{"head counts nothing", "HEAD", "/cgi-bin/counter.cgi/rs2.png", 200, "image/png", 0, func(body []byte) error {
				if len(body) != 0 {
					return fmt.Errorf("HEAD body of %d bytes, want none", len(body))
				}
				return nil
			}, ""},
			{"badge", "GET", "/cgi-bin/counter.cgi/rs2.png?style=badge&label=visits&color=green", 200, "image/png", 1, func(body []byte) error {
				w, err := pngWidth(body)
				if err == nil && w < 45 {
					err = fmt.Errorf("a badge %d pixels wide: no label?", w)
				}
				return err
			}, ""},
			{"badge svg in dark mode", "GET", "/cgi-bin/counter.cgi/rs2.svg?style=badge&theme=auto", 200, "image/svg+xml", 1, checkSVG, ""},
			{"named colours", "GET", "/cgi-bin/counter.cgi/rs2.svg?fg=red&bg=transparent&theme=auto&darkfg=gold", 200, "image/svg+xml", 1, func(body []byte) error {
				if !bytes.Contains(body, []byte("prefers-color-scheme:dark")) {
					return fmt.Errorf("no dark colours in %.200s", body)
				}
				return checkSVG(body)
			}, ""},
			{"theme=auto needs svg", "GET", "/cgi-bin/counter.cgi/rs2.png?theme=auto", 400, "image/png", 0, isPNG, ""},
			{"count=0 counts nothing", "GET", "/cgi-bin/counter.cgi/rs2.png?count=0", 200, "image/png", 0, isPNG, ""},
			{"extension in capitals", "GET", "/cgi-bin/counter.cgi/rs2.PNG", 200, "image/png", 1, isPNG, ""},
			{"json for any page", "GET", "/cgi-bin/counter.cgi/rs2.json", 200, "application/json", 0, func(body []byte) error {
				var got struct {
					Name          string
					Views         *uint64
					Visitors      *uint64
					TodayViews    *uint64 `json:"today_views"`
					TodayVisitors *uint64 `json:"today_visitors"`
				}
				if err := json.Unmarshal(body, &got); err != nil || got.TodayViews == nil || got.TodayVisitors == nil {
					return fmt.Errorf("body %q, want today_views and today_visitors", body)
				}
				return nil
			}, "Access-Control-Allow-Origin: *"},
			{"shields endpoint", "GET", "/cgi-bin/counter.cgi/rs2.shields.json", 200, "application/json", 0, func(body []byte) error {
				var got struct {
					SchemaVersion         int
					Label, Message, Color string
				}
				if err := json.Unmarshal(body, &got); err != nil || got.SchemaVersion != 1 || got.Label != "views" || got.Message == "" || got.Color == "" {
					return fmt.Errorf("body %q, want the endpoint-badge schema", body)
				}
				return nil
			}, "Access-Control-Allow-Origin: *"},
			{"unknown counter", "GET", "/cgi-bin/counter.cgi/nosuch.png", 404, "image/png", 0, isPNG, ""},
			{"bad param", "GET", "/cgi-bin/counter.cgi/rs2.png?size=1e309", 400, "image/png", 0, isPNG, ""},
			{"unknown json", "GET", "/cgi-bin/counter.cgi/nosuch.json", 404, "application/json", 0, func(body []byte) error {
				var got struct{ Error string }
				if err := json.Unmarshal(body, &got); err != nil || got.Error == "" {
					return fmt.Errorf("body %q, want {\"error\":\"...\"}", body)
				}
				return nil
			}, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				before := jsonCount(t, srv.URL, "rs2")
				resp, body, err := get(context.Background(), client, tc.method, srv.URL+tc.path)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != tc.status {
					t.Errorf("%s %s: got status %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
				}
				if got := resp.Header.Get("Content-Type"); got != tc.ctype {
					t.Errorf("%s %s: got Content-Type %q, want %q", tc.method, tc.path, got, tc.ctype)
				}
				if strings.HasPrefix(tc.ctype, "image/") {
					if err := checkNoCache(resp.Header); err != nil {
						t.Errorf("%s %s: %v", tc.method, tc.path, err)
					}
					// A refused image says why in a header, and only then.
					if msg := resp.Header.Get("X-Counter-Error"); (tc.status >= 400) != (msg != "") {
						t.Errorf("%s %s: got X-Counter-Error %q with status %d", tc.method, tc.path, msg, resp.StatusCode)
					}
				}
				if name, value, ok := strings.Cut(tc.header, ": "); ok && resp.Header.Get(name) != value {
					t.Errorf("%s %s: got %s %q, want %q", tc.method, tc.path, name, resp.Header.Get(name), value)
				}
				if err := tc.check(body); err != nil {
					t.Errorf("%s %s: %v", tc.method, tc.path, err)
				}
				if got := jsonCount(t, srv.URL, "rs2"); got != before+tc.hits {
					t.Errorf("%s %s: count went from %d to %d, want %d", tc.method, tc.path, before, got, before+tc.hits)
				}
			})
		}
	})
}

// checkSVG checks body is a well-formed document whose root is <svg>.
func checkSVG(body []byte) error {
	if !bytes.HasPrefix(body, []byte("<svg")) {
		return fmt.Errorf("body starts %.40q, want <svg", body)
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	for {
		if _, err := d.Token(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("SVG not well-formed XML: %w", err)
		}
	}
}
