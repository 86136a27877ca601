package counter

import (
	"strings"
	"testing"
)

// TestThemeDefault: a counter's theme= applies when the tag names no
// theme, as if it did; a tag's own theme, a colour scheme included, wins.
func TestThemeDefault(t *testing.T) {
	for _, tc := range []struct {
		query, theme string
		set          string
		look         Look
		dark         bool
	}{
		{"digits=3", "moe", "moe", LookFont, false},
		{"digits=3", "led", "", LookLED, false},
		{"theme=dark", "moe", "", LookFont, true},
		{"theme=nixie", "moe", "", LookNixie, false},
		{"theme=other", "moe", "other", LookFont, false},
		{"", "", "", LookFont, false},
	} {
		q, err := ParseImageQueryTheme(tc.query, tc.theme)
		if err != nil {
			t.Fatalf("%q with theme %q: %v", tc.query, tc.theme, err)
		}
		s := q.Style
		if s.Set != tc.set || s.Look != tc.look || (s.Scheme == SchemeDark) != tc.dark {
			t.Errorf("%q with theme %q: set %q, look %v, dark %v; want %q, %v, %v", tc.query, tc.theme, s.Set, s.Look, s.Scheme == SchemeDark, tc.set, tc.look, tc.dark)
		}
	}
	if q, _ := ParseImageQueryTheme("", "led"); q.Style.FG != looks[LookLED-1].fg {
		t.Errorf("a default look takes its colours: fg %v", q.Style.FG)
	}
}

// TestThemeNames: theme add's names and the setting theme= refuse what
// would make a tag mean two things.
func TestThemeNames(t *testing.T) {
	for _, name := range []string{"light", "dark", "auto", "led", "odometer", "nixie", "retro", "", "-x", "a/b", strings.Repeat("a", MaxNameLen+1)} {
		if CheckDigitSetName(name) == nil {
			t.Errorf("CheckDigitSetName(%q) = nil, want an error", name)
		}
	}
	for _, name := range []string{"moe", "rule34.v2", "A_b-c"} {
		if err := CheckDigitSetName(name); err != nil {
			t.Errorf("CheckDigitSetName(%q) = %v", name, err)
		}
	}
	s := DefaultSettings()
	for _, v := range []string{"moe", "led", ""} {
		if err := s.Set("theme=" + v); err != nil || s.Theme != v {
			t.Errorf("theme=%s: %v, theme %q", v, err, s.Theme)
		}
	}
	for _, bad := range []string{"theme=dark", "theme=auto", "theme+=moe", "theme=a/b"} {
		if err := s.Set(bad); err == nil {
			t.Errorf("%s taken", bad)
		}
	}
}
