package counter

import (
	"math"
	"testing"
)

func TestAbbreviate(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1K"},
		{1049, "1K"},
		{1050, "1.1K"}, // half away from zero, on the exact decimal
		{1234, "1.2K"},
		{1250, "1.3K"},
		{9_999, "10K"},
		{12_345, "12.3K"},
		{99_950, "100K"},
		{123_456, "123.5K"},
		{999_949, "999.9K"},
		{999_950, "1M"}, // komarev writes 1000K
		{1_000_000, "1M"},
		{1_234_567, "1.2M"},
		{12_345_678, "12.3M"},
		{999_999_999, "1B"},
		{1_500_000_000, "1.5B"},
		{2_000_000_000_000, "2T"},
		{3_450_000_000_000_000, "3.5Qa"},
		{1_000_000_000_000_000_000, "1Qi"},
		{math.MaxUint64, "18.4Qi"},
	} {
		if got := Abbreviate(tc.n); got != tc.want {
			t.Errorf("Abbreviate(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestAbbreviateRunes checks that AbbreviationRunes holds every character
// but digits that Abbreviate writes, and that its text is never longer
// than a count's.
func TestAbbreviateRunes(t *testing.T) {
	for n := uint64(1); n != 0 && n < math.MaxUint64/7; n = n*7 + 3 {
		s := Abbreviate(n)
		if len(s) > 7 { // 999.9Qa
			t.Errorf("Abbreviate(%d) = %q, longer than 7", n, s)
		}
		for _, r := range s {
			if (r < '0' || r > '9') && !containsRune(AbbreviationRunes, r) {
				t.Errorf("Abbreviate(%d) = %q: %q not in AbbreviationRunes", n, s, r)
			}
		}
	}
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}
