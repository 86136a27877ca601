package counter

import (
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	x40 := strings.Repeat("x", MaxExcerpt)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "2026-1-1", `"2026-1-1"`},
		{"exactly the bound", x40, `"` + x40 + `"`},
		{"cut", x40 + "y", `"` + x40 + `"...`},
		{"a huge field", strings.Repeat("x", 200<<20), `"` + x40 + `"...`},
		{"terminal escapes", "\x1b]0;owned\x07\x1b[2J\r\n", `"\x1b]0;owned\a\x1b[2J\r\n"`},
		{"bidirectional override", "a\u202eb", `"a\u202eb"`},
		{"invalid UTF-8", "\xff\xfe", `"\xff\xfe"`},
		{"a character not split", strings.Repeat("x", MaxExcerpt-1) + "é", `"` + strings.Repeat("x", MaxExcerpt-1) + `"...`},
		{"a character that fits", strings.Repeat("x", MaxExcerpt-2) + "éy", `"` + strings.Repeat("x", MaxExcerpt-2) + `é"...`},
		{"invalid bytes cut where they fall", strings.Repeat("x", MaxExcerpt-1) + "\xc3\xc3", `"` + strings.Repeat("x", MaxExcerpt-1) + `\xc3"...`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Excerpt(tc.in); got != tc.want {
				t.Errorf("Excerpt(%.60q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestImportErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  ImportError
		want string
	}{
		{ImportError{Reason: "the file is empty"}, "the file is empty"},
		{ImportError{Line: 3, Reason: "want NAME COUNT"}, "line 3: want NAME COUNT"},
		{ImportError{Line: 2, Reason: "the date is not a day like 2026-01-02", Quote: `"2026-1-1"`}, `line 2: the date is not a day like 2026-01-02: "2026-1-1"`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
