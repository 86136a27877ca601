package draw

import (
	"slices"
	"testing"

	"hitcounter/counter"
)

// TestCanDrawAbbreviated lists, for each font and size, which of an
// abbreviated count's pieces its cells hold whole, and checks that
// CanDraw and NewDrawing agree (Go Regular's and Bold's K and M are wider
// than their digits: they draw the full number): what CanDraw allows is drawn, what it
// refuses NewDrawing refuses too.
func TestCanDrawAbbreviated(t *testing.T) {
	// A count with comma=1 too: its comma is drawn where it fits as well.
	texts := []string{"1.2K", "12.3K", "1.2M", "4.5B", "6.7T", "8.9Qa", "18.4Qi", "1,234,567", "18,446,744,073,709"}
	for _, font := range counter.FontNames() {
		for _, size := range []int{counter.MinSize, 12, 20, 32, 64, counter.MaxSize} {
			s := counter.DefaultStyle()
			s.Font, s.Size = font, size
			var can []string
			for _, text := range texts {
				ok := (*GlyphCache)(nil).CanDraw(text, s)
				_, err := NewDrawing(text, s)
				if ok != (err == nil) {
					t.Errorf("%s %d: CanDraw(%q) %v, NewDrawing: %v", font, size, text, ok, err)
				}
				if ok {
					can = append(can, text)
				}
			}
			t.Logf("%s at %d draws %v", font, size, can)
			// The default font, monospaced, holds every piece.
			if font == "mono" && len(can) != len(texts) {
				t.Errorf("mono at %d draws only %v", size, can)
			}
			// Every font draws comma=1's commas, at every size.
			if !slices.Contains(can, "1,234,567") {
				t.Errorf("%s at %d cannot draw 1,234,567", font, size)
			}
		}
	}
	for _, tc := range []struct {
		name string
		s    func(counter.Style) counter.Style
		want bool
	}{
		{"a badge", func(s counter.Style) counter.Style { s.Badge = true; return s }, true},
		{"a look", func(s counter.Style) counter.Style { s.Look = counter.LookLED; return s }, false},
		{"a digit set", func(s counter.Style) counter.Style { s.Set = "pixel"; return s }, false},
	} {
		if got := (*GlyphCache)(nil).CanDraw("12.3K", tc.s(counter.DefaultStyle())); got != tc.want {
			t.Errorf("%s: CanDraw(12.3K) %v, want %v", tc.name, got, tc.want)
		}
		if got := (*GlyphCache)(nil).CanDraw("123", tc.s(counter.DefaultStyle())); tc.name != "a digit set" && !got {
			t.Errorf("%s: cannot draw 123", tc.name)
		}
	}
}
