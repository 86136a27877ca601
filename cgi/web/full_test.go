package web

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hitcounter/cgi/imagehit"
	"hitcounter/counter"
	"hitcounter/counter/digitset"
	"hitcounter/counter/draw"
	"hitcounter/store"
)

// fillDB makes counters in the database at path until it reaches max bytes,
// and returns their names.
func fillDB(tb testing.TB, path string, max int) []string {
	tb.Helper()
	var names []string
	for i := 0; i < 10000; i++ {
		db, err := store.Open(path, store.Options{MaxSize: max})
		if err != nil {
			tb.Fatal(err)
		}
		name := fmt.Sprintf("c%04d-%s", i, strings.Repeat("x", 58))
		err = db.Create(name, 0, testNow)
		db.Close()
		if errors.Is(err, store.ErrFull) {
			return names
		}
		if err != nil {
			tb.Fatal(err)
		}
		names = append(names, name)
	}
	tb.Fatalf("%s never reached %d bytes", path, max)
	return nil
}

// TestFullDatabaseStillAnswersWithAnImage fills the database to its
// maximum size: a hit that would grow it is not counted, the visitor gets
// the counter drawn as dashes, the owner one log line, and counts can
// still be read. Under CGI each hit has a transaction of its own; a
// long-lived process (FastCGI, serve) commits hits in batches.
func TestFullDatabaseStillAnswersWithAnImage(t *testing.T) {
	for _, longLived := range []bool{false, true} {
		t.Run(fmt.Sprintf("long-lived %v", longLived), func(t *testing.T) {
			a, logs := testApp(t)
			a.cfg.MaxDBSize = store.SmallestMaxSize
			names := fillDB(t, a.cfg.DB, a.cfg.MaxDBSize)
			if longLived {
				t.Cleanup(a.longLived())
			}
			// A counter's first hit adds its day and its referrer: it needs room.
			var name string
			var w *httptest.ResponseRecorder
			for i, n := range names {
				logs.Reset()
				name, w = n, serve(a, "GET", "/"+n+".png", "Referer", fmt.Sprintf("https://site%d.example/", i))
				if w.Code != http.StatusOK {
					t.Logf("%d counters filled the file; %d first hits fitted", len(names), i)
					break
				}
			}
			if w.Code != http.StatusInsufficientStorage {
				t.Fatalf("status %d, want 507", w.Code)
			}
			checkImage(t, w, "image/png")
			img, err := png.Decode(w.Body)
			d, _ := draw.NewDrawing(counter.Placeholder(6), counter.DefaultStyle())
			if wd, _ := d.Size(); err != nil || img.Bounds().Dx() != wd {
				t.Errorf("got %v (%v), want the counter drawn as dashes, %d wide", img.Bounds(), err, wd)
			}
			line := logs.String()
			if !strings.Contains(line, fmt.Sprintf("%q not counted", name)) || !strings.Contains(line, "maximum size") || strings.Count(line, "\n") != 1 {
				t.Errorf("log %q, want one line saying the hit was not counted for lack of room", line)
			}
			if got := total(t, a, name); got != 0 {
				t.Errorf("total %d, want 0", got)
			}
			if j := serve(a, "GET", "/"+name+".json"); j.Code != http.StatusOK || !strings.Contains(j.Body.String(), `"count":0`) {
				t.Errorf("JSON: %d %s, want the count, 0", j.Code, j.Body.String())
			}
		})
	}
}

// TestFailedCommitCostsNoView: a view whose commit fails (the file is
// full) is not remembered by the visitor table, so the visitor's next hit
// within the reload window, once there is room, is counted as his view,
// and a new visitor's; the hit after that is his reload.
func TestFailedCommitCostsNoView(t *testing.T) {
	for _, longLived := range []bool{false, true} {
		t.Run(fmt.Sprintf("long-lived %v", longLived), func(t *testing.T) {
			a, _ := testApp(t)
			a.cfg.MaxDBSize = store.SmallestMaxSize
			names := fillDB(t, a.cfg.DB, a.cfg.MaxDBSize)
			if longLived {
				t.Cleanup(a.longLived())
			}
			var name string
			for i, n := range names {
				name = n
				if w := serve(a, "GET", "/"+n+".png", "Referer", fmt.Sprintf("https://site%d.example/", i)); w.Code == http.StatusInsufficientStorage {
					break
				}
			}
			if got := total(t, a, name); got != 0 {
				t.Fatalf("%s: total %d after a hit that found the file full, want 0", name, got)
			}
			a.cfg.MaxDBSize = 0 // the owner made room
			if longLived {
				// The batcher opens with the options it was made with.
				b := store.NewBatcher(a.cfg.DB, a.proc.Options(false))
				t.Cleanup(b.Close)
				a.proc.Hits = b
			}
			// The same visitor (address and User-Agent) from the same page.
			for i, want := range []struct {
				views, visitors, reloads uint64
			}{{1, 1, 0}, {1, 1, 1}} {
				if w := serve(a, "GET", "/"+name+".png", "Referer", "https://other.example/"); w.Code != http.StatusOK {
					t.Fatalf("hit %d: status %d, want 200", i, w.Code)
				}
				g, err := a.proc.Server().Glance(name, imagehit.SiteHit{})
				if err != nil {
					t.Fatal(err)
				}
				got := []uint64{g.Count, g.Visitors, g.Today.NotCounted[counter.Reload]}
				if got[0] != want.views || got[1] != want.visitors || got[2] != want.reloads {
					t.Errorf("after hit %d once there was room: views, visitors, reloads %v, want %v", i, got, want)
				}
			}
		})
	}
}

// TestFullDatabaseDrawsTheSetsDash: a hit that cannot be counted, in a
// set that has a dash piece (Count.cgi's dash.gif), gets its dashes in
// that piece; one in a set without, the font's.
func TestFullDatabaseDrawsTheSetsDash(t *testing.T) {
	a, _ := testApp(t)
	addTestSet(t, a)
	var src [digitset.NumPieces]digitset.Source
	for i := range digitset.NumPieces {
		if i >= 10 && i != digitset.Dash {
			continue
		}
		m := image.NewNRGBA(image.Rect(0, 0, 5, 12))
		for p := 0; p < len(m.Pix); p += 4 {
			copy(m.Pix[p:], []byte{uint8(15 * i), 0x40, 0x80, 0xff})
		}
		src[i] = digitset.Source{Frames: []image.Image{m}, Piece: []byte("GIF8"), PieceType: digitset.TypeGIF}
	}
	s, err := digitset.New(src, digitset.LayoutNamedFolder)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AddDigitSet("dashy", store.RecordsOf(s), testNow, false); err != nil {
		t.Fatal(err)
	}
	db.Close()
	a.cfg.MaxDBSize = store.SmallestMaxSize
	names := fillDB(t, a.cfg.DB, a.cfg.MaxDBSize)
	for i, n := range names {
		w := serve(a, "GET", "/"+n+".png?theme=dashy&digits=4", "Referer", fmt.Sprintf("https://site%d.example/", i))
		if w.Code == http.StatusOK {
			continue
		}
		if w.Code != http.StatusInsufficientStorage {
			t.Fatalf("status %d, want 507", w.Code)
		}
		img, err := png.Decode(w.Body)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 4*5 || b.Dy() != 12 {
			t.Errorf("the dashes are %v, want four of the set's 5x12 dash", b)
		}
		if got := color.NRGBAModel.Convert(img.At(2, 6)).(color.NRGBA); got != (color.NRGBA{15 * digitset.Dash, 0x40, 0x80, 0xff}) {
			t.Errorf("a dash's pixel is %v, want the dash piece's", got)
		}
		w = serve(a, "GET", "/"+n+".png?theme=pix&digits=4")
		img, err = png.Decode(w.Body)
		d, _ := draw.NewDrawing(counter.Placeholder(4), counter.DefaultStyle())
		if wd, _ := d.Size(); err != nil || img.Bounds().Dx() != wd {
			t.Errorf("a set without a dash: %v (%v), want the font's dashes, %d wide", img.Bounds(), err, wd)
		}
		return
	}
	t.Fatal("every hit was counted: the file never filled")
}
