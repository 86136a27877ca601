package counter

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorText(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		in, want string
	}{
		{"no counter blgo", "no counter blgo"},
		{"", "?"},
		{"no counter " + long, "no counter " + long[:MaxErrorText-3-11] + "..."},
		{strings.Repeat("b", MaxErrorText), strings.Repeat("b", MaxErrorText)},
		{strings.Repeat("b", MaxErrorText+1), strings.Repeat("b", MaxErrorText-3) + "..."},
		{"Zähler fehlt", "Zähler fehlt"},
		{"tab\there", "tab?here"},
		{"nul\x00", "nul?"},
		{"emoji ✓", "emoji ?"},
		{"bad \xff utf-8", "bad ? utf-8"},
		{"soft\u00adhyphen", "soft?hyphen"},
		{"\u202eevil", "?evil"},
	}
	for _, tc := range tests {
		got := ErrorText(tc.in)
		if got != tc.want {
			t.Errorf("ErrorText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > MaxErrorText {
			t.Errorf("ErrorText(%q) has %d characters", tc.in, n)
		}
	}
}

func TestQuerySize(t *testing.T) {
	def := DefaultStyle().Size
	tests := []struct {
		query string
		want  int
	}{
		{"", def},
		{"size=40", 40},
		{"fg=00ff0&size=40", 40},
		{"size=40&fg=00ff0&v=2", 40},
		{"size=8", 8},
		{"size=128", 128},
		{"size=7", def},
		{"size=129", def},
		{"size=1e3", def},
		{"size=+40", def},
		{"size=", def},
		{"size", def},
		{"size=40&size=40", def},
		{"Size=40", def},
		{"size=40&" + strings.Repeat("v", MaxQueryLen), def},
	}
	for _, tc := range tests {
		if got := QuerySize(tc.query); got != tc.want {
			t.Errorf("QuerySize(%.40q) = %d, want %d", tc.query, got, tc.want)
		}
	}
}

// BenchmarkErrorImage is what a refused image costs to draw: once per
// refusal, never on a hit that counts.
