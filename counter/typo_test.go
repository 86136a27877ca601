package counter

import "testing"

func TestLooksLike(t *testing.T) {
	tests := []struct {
		key, want string // want "" for a key that looks like none
	}{
		// The issue's own, and their kin.
		{"colour", "color"},
		{"digit", "digits"},
		{"colr", "color"},
		{"labelColour", "labelColor"},
		{"labelcolour", "labelColor"},
		{"Colour", "color"},
		// Another case: ParseStyle reads keys as they are written.
		{"FG", "fg"},
		{"Digits", "digits"},
		{"SIZE", "size"},
		// One edit from a short key.
		{"gf", "fg"},
		{"bgg", "bg"},
		{"lable", "label"},
		{"labl", "label"},
		{"sise", "size"},
		{"sizes", "size"},
		{"fonts", "font"},
		{"them", "theme"},
		{"stlye", "style"},
		{"pages", "page"},
		{"counts", "count"},
		// Two edits from a long key.
		{"digts", "digits"},
		{"dgts", "digits"},
		{"darkgf", "darkfg"},
		{"dark", "darkfg"},
		{"dark-bg", "darkbg"},
		{"label_color", "labelColor"},
		{"labelcolr", "labelColor"},
		// Cache-busters and other keys that sites add: never a typo.
		{"v", ""},
		{"t", ""},
		{"_", ""},
		{"x", ""},
		{"cb", ""},
		{"ts", ""},
		{"nocache", ""},
		{"time", ""}, // two edits from theme
		{"date", ""}, // two edits from page
		{"now", ""},  // two edits from show
		{"tag", ""},  // two edits from page
		{"id", ""},
		{"ref", ""},
		{"rev", ""},
		{"ver", ""},
		{"version", ""},
		{"rand", ""},
		{"random", ""},
		{"nonce", ""},
		{"cache", ""},
		{"cachebust", ""},
		{"timestamp", ""},
		{"lang", ""},
		{"v2", ""},
		{"t0", ""},
		{"__", ""},
		{"utm_source", ""},
		{"utm_medium", ""},
		{"fbclid", ""},
		{"gclid", ""},
		{"width", ""},
		{"height", ""},
		{"bgcolor", ""}, // two edits from color, which allows one
		// Not a key anyone types.
		{"f%67", ""},
		{"fg ", ""},
		{"fg\x00", ""},
		{"colour-colour-colour", ""},
		{"", ""},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			got, ok := LooksLike(tc.key)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("LooksLike(%q) = %q, %v; want %q", tc.key, got, ok, tc.want)
			}
		})
	}
}

// TestImageQueryTypo: ParseImageQuery finds the first key that looks
// like a misspelling of one an image reads.
func TestImageQueryTypo(t *testing.T) {
	tests := []struct {
		query string
		want  Typo
	}{
		{"", Typo{}},
		{"v=2", Typo{}},
		{"digits=7&fg=red&v=2&_=1733400000", Typo{}},
		{"colour=red", Typo{"colour", "color"}},
		{"v=2&digit=7&colr=red", Typo{"digit", "digits"}},
		{"size=30&FG=red", Typo{"FG", "fg"}},
		{"page=/a&show=page&count=0&labelcolor=red", Typo{}},
		{"digits=7", Typo{}},
		{"digts", Typo{"digts", "digits"}},
		{"&&colour&&", Typo{"colour", "color"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			q, err := ParseImageQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := q.Typo, q.HasTypo; got != tc.want || ok != (tc.want != Typo{}) {
				t.Errorf("ParseImageQuery(%q) typo %+v, %v; want %+v", tc.query, got, ok, tc.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"fg", "fg", 0},
		{"fg", "gf", 1},
		{"colr", "color", 1},
		{"colour", "color", 1},
		{"ca", "abc", 3}, // the restricted distance: no part edited twice
		{"time", "theme", 2},
		{"", "labelcolor", 10},
		{"abcdefghijkl", "mnopqrstuv", 12}, // the longest that are compared
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

// TestImageKeysAreParsed keeps ImageKeys in step with ParseStyle: each
// style key it names is one that ParseStyle reads.
func TestImageKeysAreParsed(t *testing.T) {
	web := map[string]bool{"count": true, "page": true, "show": true}
	for _, k := range ImageKeys {
		if got := paramSlot(k) >= 0; got == web[k] {
			t.Errorf("%s: read by ParseStyle %v, by the web handler %v", k, got, web[k])
		}
	}
	for _, k := range styleParams {
		if !isImageKey(k) {
			t.Errorf("style key %s is missing from ImageKeys", k)
		}
	}
}
