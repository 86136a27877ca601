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

	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/counter/digitset"
	"hitcounter/store/kv"
)

// formatFileV6 is a database written by the code of schema version 6. Of
// a digit set (themes/pixel: ten still digits but 7, animated
// in two frames), a counter whose theme= it is (blog), one whose
// default is a built-in look (home), and one with none (plain). Of the
// day's hits kept apart (today.go): a plain counter (visits) and a site
// (site) with a day of hits folded into their history and the next day's
// hits still in their today buckets (a referrer, hits of every kind,
// pages, a page past max-pages); a password, settings, the owner key and a
// day of costs. formatDumpFileV6 is its listing (dumpFile), written with it.
const (
	formatFileV6     = "../testdata/format/counter-v6.db"
	formatDumpFileV6 = "../testdata/format/counter-v6.dump"
)

// formatPasswordV6 is the password whose hash visits holds.
const formatPasswordV6 = "version 6 password"

// formatSetV6 is the set the v6 file holds: digit i is i+2 pixels wide
// and 5 high, its pixel (x, y) lit in colour i where x+y is even; digit 7
// has a second frame, all lit, and delays of 20 and 30 hundredths.
func formatSetV6(t *testing.T) *digitset.Set {
	t.Helper()
	var src [digitset.NumPieces]digitset.Source
	for i := range 10 {
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
// Not shared with the other versions' writers: it records what version 6 wrote.
func writeV6(t *testing.T) {
	if schemaVersion != 6 {
		t.Fatalf("schema version %d: the v6 file is the version 6 release's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV6)
	defer os.Remove(LockPath(formatFileV6))
	day := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Set("max-pages=2"); err != nil {
		t.Fatal(err)
	}
	hash, err := counter.HashPassword([]byte(formatPasswordV6))
	if err != nil {
		t.Fatal(err)
	}
	with(t, formatFileV6, Options{Create: true}, func(db *DB) {
		if err := db.AddDigitSet("pixel", RecordsOf(formatSetV6(t)), day, false); err != nil {
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
		first := day.AddDate(0, 0, -1)
		if err := db.CreateWith("site", 0, first, site); err != nil {
			t.Fatal(err)
		}
		if err := db.Create("visits", 10, first); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Configure("visits", func(s *counter.Settings) error {
			return errors.Join(s.Set("show=visitors"), s.Set("referrers=example.org"))
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.SetPasswordHash("visits", hash); err != nil {
			t.Fatal(err)
		}
		if _, err := db.OwnerKey(); err != nil {
			t.Fatal(err)
		}
		// Two days of the same hits: the first day's are folded into the
		// history by the first hit of the second, whose are left in today.
		for d := range 2 {
			at := first.AddDate(0, 0, d)
			for i, k := range append([]counter.Kind{counter.View, counter.View, counter.GitHub}, counter.NotCountedKinds[:]...) {
				if _, err := db.Visit(Visit{Name: "visits", Now: at.Add(time.Duration(i) * time.Hour), RefHost: "example.org",
					Outcome: counter.Outcome{Kind: k, NewVisitor: i == 0}}); err != nil {
					t.Fatal(err)
				}
			}
			for i, page := range []string{"/", "/posts/hello", "/about", "/posts/hello"} {
				if _, err := db.Visit(Visit{Name: "site", Now: at.Add(time.Duration(i) * time.Minute), RefHost: "blog.example", Target: page,
					Outcome: counter.Outcome{Kind: counter.View, NewVisitor: i < 3, PageVisitor: i < 3}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := db.Visit(Visit{Name: "blog", Now: day.Add(time.Hour), Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.FoldCosts([]meter.Day{costDay("2026-12-05", 420, time.Millisecond, 4*time.Millisecond)}, day); err != nil {
			t.Fatal(err)
		}
	})
	writeDump(t, formatFileV6, formatDumpFileV6)
}

// checkFormatV6 reads the committed version 6 file through the store
// (TestFormat has checked its bytes): its digit set, and its figures, every
// one of which adds the today buckets' day to the history's.
func checkFormatV6(t *testing.T, db *DB) {
	want := "blog views=1 visitors=1 pages=0 protected=false show=views reload=30m ignore= referrers= theme=pixel\n" +
		"home views=100 visitors=0 pages=0 protected=false show=views reload=30m ignore= referrers= theme=led\n" +
		"plain views=200 visitors=0 pages=0 protected=false show=views reload=30m ignore= referrers= theme=\n" +
		"site views=8 visitors=6 pages=2 protected=false show=views reload=30m ignore= hosts=blog.example max-pages=2 keep-query= image=page public-pages=off theme=\n" +
		"visits views=16 visitors=2 pages=0 protected=true show=visitors reload=30m ignore= referrers=example.org theme="
	if got := listLines(t, db); got != want {
		t.Errorf("List:\n%s\nwant:\n%s", got, want)
	}
	checkDigitSetsV6(t, db)
	h, err := db.History("visits", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _, err := counter.VerifyPassword(h.PasswordHash, []byte(formatPasswordV6)); !ok || err != nil {
		t.Errorf("the stored hash does not take the v6 password: %v", err)
	}
	if len(h.Days) != 2 || h.Days[0].Tally != h.Days[1].Tally || h.Days[1].Date != "2026-12-06" || h.Days[1].Views != 3 || h.Days[1].GitHub != 1 {
		t.Errorf("visits' days %+v, want two alike, of 3 views, one through GitHub", h.Days)
	}
	if len(h.Referrers) != 1 || h.Referrers[0].Hits != 6 {
		t.Errorf("visits' referrers %+v, want example.org's 6", h.Referrers)
	}
	pages := map[string]string{}
	list2, err := db.Pages("site", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list2 {
		pages[p.Page] = fmt.Sprintf("%d/%d", p.Views, p.Visitors)
	}
	if got, want := fmt.Sprint(pages), fmt.Sprintf("map[%s:2/2 /:2/2 /posts/hello:4/2]", counter.OtherPages); got != want {
		t.Errorf("site's pages %s, want %s", got, want)
	}
	days, err := db.PageDays("site", counter.PageDay{}, 10)
	if err != nil || len(days) != 6 || days[5].Date != "2026-12-06" {
		t.Errorf("site's page days %+v, %v; want 3 of each day", days, err)
	}
}

// checkDigitSetsV6 reads the v6 file's digit set.
func checkDigitSetsV6(t *testing.T, db *DB) {
	sets, err := db.DigitSets()
	if err != nil || len(sets) != 1 {
		t.Fatalf("DigitSets: %v, %v; want pixel alone", sets, err)
	}
	if got := fmt.Sprintf("%s %s %v", sets[0].Name, sets[0].Added.Format(time.RFC3339), sets[0].UsedBy); got != "pixel 2026-12-06T00:00:00Z [blog]" {
		t.Errorf("digit set %s, want pixel 2026-12-06T00:00:00Z [blog]", got)
	}
	// The set comes out copied: the digits of the count, with the frames
	// and files asked for.
	s, err := db.DigitSet("pixel", "70", digitset.MaxFrames, true)
	if err != nil {
		t.Fatalf("DigitSet: %v", err)
	}
	want7 := formatSetV6(t).Digits[7]
	got7 := s.Digits[7]
	if got7.Width != 9 || len(got7.Frames) != 2 || got7.Frames[0].Delay != 20 || got7.Frames[1].Delay != 30 || string(got7.Piece) != string(want7.Piece) {
		t.Errorf("digit 7: width %d, %d frames, piece %q; want 9, 2 of 20 and 30, %q", got7.Width, len(got7.Frames), got7.Piece, want7.Piece)
	}
	if s.Height != 5 || s.Layout != digitset.LayoutPNGFolder {
		t.Errorf("set of height %d, layout %s; want 5, %s", s.Height, s.Layout, digitset.LayoutPNGFolder)
	}
	if len(s.Digits[1].Frames) != 0 {
		t.Errorf("digit 1 read for 70")
	}
	if s, err = db.DigitSet("pixel", "70", 1, false); err != nil {
		t.Errorf("DigitSet for a PNG: %v", err)
	} else if len(s.Digits[7].Frames) != 1 || s.Digits[7].Piece != nil {
		t.Errorf("DigitSet for a PNG: digit 7 of %d frames, piece %q; want its first frame alone", len(s.Digits[7].Frames), s.Digits[7].Piece)
	}
	if _, err := db.DigitSet("nope", "1", 1, false); !errors.Is(err, counter.ErrNoDigitSet) {
		t.Errorf("a set not there: %v, want ErrNoDigitSet", err)
	}
}

// The committed file of the version 5 release is migrated in place by the
// first write of this version, which rewrites nothing: the history stands
// as it is, today's hits go into the today bucket, and the next day's
// first hit folds them in. No count is lost or counted twice.
func TestMigrateV5(t *testing.T) {
	path := copyOf(t, formatFileV5)
	at := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	with(t, path, Options{}, func(db *DB) {
		before := readAll(t, db, at)
		home, err := db.Counter("home")
		if err != nil {
			t.Fatal(err)
		}
		if v := versionOf(t, db); v != 5 {
			t.Fatalf("version %d before the first write, want 5", v)
		}
		if _, err := db.Visit(Visit{Name: "home", Now: at, RefHost: "example.org", Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}}); err != nil {
			t.Fatal(err)
		}
		if v := versionOf(t, db); v != schemaVersion {
			t.Errorf("version %d after the first write, want %d", v, schemaVersion)
		}
		c, err := db.Visit(pageView("blog.example", "/p000", at, true))
		if err != nil {
			t.Fatal(err)
		}
		if c.Page != "/p000" || c.Shown != 4 {
			t.Errorf("a hit on /p000: page %q shows %d, want /p000 and 4", c.Page, c.Shown)
		}
		if n := todayRowsOf(t, db); n != 5 {
			t.Errorf("%d rows in today, want home's counts and referrer, blog's counts, referrer and page", n)
		}
		after, err := db.Counter("home")
		if err != nil || after.Count != home.Count+1 || after.Visitors != home.Visitors+1 {
			t.Errorf("home after a hit: %d views, %d visitors, %v; want %d and %d", after.Count, after.Visitors, err, home.Count+1, home.Visitors+1)
		}
		// The next day's first write folds them: what the readers see of
		// the days before stays as it was.
		if _, err := db.Visit(pageView("blog.example", "/p001", at.AddDate(0, 0, 1), true)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Visit(Visit{Name: "home", Now: at.AddDate(0, 0, 1), Outcome: counter.Outcome{Kind: counter.View}}); err != nil {
			t.Fatal(err)
		}
		if n := todayRowsOf(t, db); n != 4 {
			t.Errorf("%d rows in today after the folds, want home's counts, blog's counts, referrer and page", n)
		}
		h, err := db.History("home", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(h.Days); n < 2 || h.Days[n-2].Date != "2026-12-06" || h.Days[n-2].Views != 1 || h.Days[n-2].Visitors != 1 || h.Days[n-1].Views != 1 {
			t.Errorf("home's last days %+v, want 2026-12-06 of 1 view and visitor, and a view the day after", h.Days[max(0, n-2):])
		}
		var past uint64
		err = db.view(func(tx kv.Tx) error {
			past, err = decodeUint64(tx.Bucket(bucketCounters).Bucket([]byte("home")).Bucket(bucketDays).Get([]byte("2026-12-06")))
			return err
		})
		if err != nil || past != 1 {
			t.Errorf("home's 2026-12-06 in its history: %d, %v; want the folded view", past, err)
		}
		if !strings.Contains(before, "counter home 13 1 0") {
			t.Errorf("the v5 file read as:\n%s", before)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}
