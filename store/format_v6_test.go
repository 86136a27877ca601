package store

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// formatFileV6 is a database written by the code of schema version 6: a
// digit set (themes/pixel: ten still digits but 7, animated in two
// frames), a counter whose default theme it is, one whose default is a
// built-in look, and one with none. formatDumpFileV6 is its listing
// (dumpFile), written with it.
const (
	formatFileV6     = "../testdata/format/counter-v6.db"
	formatDumpFileV6 = "../testdata/format/counter-v6.dump"
)

// formatSetV6 is the set the v6 file holds: digit i is i+2 pixels wide
// and 5 high, its pixel (x, y) lit in colour i where x+y is even; digit 7
// has a second frame, all lit, and delays of 20 and 30 hundredths.
func formatSetV6(t *testing.T) *digitset.Set {
	t.Helper()
	var src [10]digitset.Source
	for i := range src {
		frame := func(all bool) image.Image {
			m := image.NewNRGBA(image.Rect(0, 0, i+2, 5))
			for y := range 5 {
				for x := range i + 2 {
					if all || (x+y)%2 == 0 {
						m.SetNRGBA(x, y, color.NRGBA{uint8(20 * i), 0x80, 0xff - uint8(20*i), 0xff})
					}
				}
			}
			return m
		}
		src[i] = digitset.Source{Frames: []image.Image{frame(false)}, Piece: []byte(fmt.Sprintf("piece %d", i)), PieceType: digitset.TypePNG}
		if i == 7 {
			src[i].Frames = append(src[i].Frames, frame(true))
			src[i].Delays, src[i].PieceType = []int{20, 30}, digitset.TypeGIF
		}
	}
	s, err := digitset.New(src, digitset.LayoutPNGFolder)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeV6 writes formatFileV6 through the store, as the counter does, when
// TestFormat is run with -write-format under schema version 6. It was run
// once; the files are committed and must never be written again.
func writeV6(t *testing.T) {
	if schemaVersion != 6 {
		t.Fatalf("schema version %d: the v6 file is the version 6 release's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV6)
	defer os.Remove(LockPath(formatFileV6))
	day := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	with(t, formatFileV6, Options{Create: true}, func(db *DB) {
		if err := db.AddTheme("pixel", RecordsOf(formatSetV6(t)), day, false); err != nil {
			t.Fatal(err)
		}
		for i, c := range []struct{ name, theme string }{{"blog", "pixel"}, {"home", "led"}, {"plain", ""}} {
			s := counter.DefaultSettings()
			if err := s.Set("theme=" + c.theme); err != nil {
				t.Fatal(err)
			}
			if err := db.CreateWith(c.name, uint64(100*i), day, s); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Visit(Visit{Name: "blog", Now: day.Add(time.Hour), Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}}); err != nil {
			t.Fatal(err)
		}
	})
	if err := os.WriteFile(formatDumpFileV6, []byte(dumpFile(t, formatFileV6)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s and %s", formatFileV6, formatDumpFileV6)
}

// checkFormatV6 reads the committed version 6 file through the store
// (TestFormat has checked its bytes).
func checkFormatV6(t *testing.T, db *DB) {
	list, err := db.List()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range list {
		lines = append(lines, fmt.Sprintf("%s views=%d %s", c.Name, c.Count, strings.Join(c.Settings.Format(), " ")))
	}
	want := "blog views=1 show=views reload=30m ignore= referrers= theme=pixel\n" +
		"home views=100 show=views reload=30m ignore= referrers= theme=led\n" +
		"plain views=200 show=views reload=30m ignore= referrers= theme="
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("List:\n%s\nwant:\n%s", got, want)
	}
	themes, err := db.Themes()
	if err != nil || len(themes) != 1 {
		t.Fatalf("Themes: %v, %v; want pixel alone", themes, err)
	}
	if got := fmt.Sprintf("%s %s %v", themes[0].Name, themes[0].Added.Format(time.RFC3339), themes[0].UsedBy); got != "pixel 2026-12-06T00:00:00Z [blog]" {
		t.Errorf("theme %s, want pixel 2026-12-06T00:00:00Z [blog]", got)
	}
	s, err := db.DigitSet("pixel", "70")
	if err != nil {
		t.Fatal(err)
	}
	want7 := formatSetV6(t).Digits[7]
	got7 := s.Digits[7]
	if got7.Width != 9 || len(got7.Frames) != 2 || got7.Frames[0].Delay != 20 || got7.Frames[1].Delay != 30 || string(got7.Piece) != string(want7.Piece) {
		t.Errorf("digit 7: width %d, %d frames, piece %q; want 9, 2 of 20 and 30, %q", got7.Width, len(got7.Frames), got7.Piece, want7.Piece)
	}
	if s.Height != 5 || s.Layout != digitset.LayoutPNGFolder {
		t.Errorf("set of height %d, layout %s; want 5, %s", s.Height, s.Layout, digitset.LayoutPNGFolder)
	}
	if _, err := db.DigitSet("nope", "1"); !errors.Is(err, counter.ErrNoTheme) {
		t.Errorf("a set not there: %v, want ErrNoTheme", err)
	}
}
