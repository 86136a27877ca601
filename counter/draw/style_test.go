package draw

import (
	"bytes"
	"encoding/xml"
	"html"
	"io"
	"net/url"
	"strings"
	"testing"

	"hitcounter/counter"
)

// TestStyleBounds draws the largest style with the longest count and
// checks it stays within the pixel budget.
func TestStyleBounds(t *testing.T) {
	for _, font := range counter.FontNames() {
		s := counter.Style{Digits: counter.MaxDigits, Size: counter.MaxSize, FG: counter.DefaultStyle().FG, BG: counter.DefaultStyle().BG, Font: font}
		d, err := NewDrawing(counter.Digits(^uint64(0), s.Digits), s)
		if err != nil {
			t.Fatalf("%s: largest drawing refused: %v", font, err)
		}
		w, h := d.Size()
		if w*h > counter.MaxPixels {
			t.Errorf("%s: %dx%d is over the budget of %d pixels", font, w, h, counter.MaxPixels)
		}
	}
}

func TestNewDrawingRefuses(t *testing.T) {
	tests := []struct {
		name string
		text string
		s    counter.Style
	}{
		{"empty text", "", counter.DefaultStyle()},
		{"letters", "12x", counter.DefaultStyle()},
		{"a unit in a look", "1.2K", ledStyle()},
		{"too long", strings.Repeat("1", counter.MaxTextLen+1), counter.DefaultStyle()},
		{"unknown font", "1", counter.Style{Digits: 1, Size: 20, Font: "nope"}},
		{"size too big", "1", counter.Style{Digits: 1, Size: counter.MaxSize + 1, Font: "mono"}},
	}
	for _, tc := range tests {
		if _, err := NewDrawing(tc.text, tc.s); err == nil {
			t.Errorf("%s: NewDrawing(%q) succeeded, want an error", tc.name, tc.text)
		}
	}
}

// TestBadgeBounds draws the largest badge: the longest label of the widest
// letter, the longest count, the largest size.
func TestBadgeBounds(t *testing.T) {
	s, err := counter.ParseStyle("style=badge&size=128&label=" + strings.Repeat("W", counter.MaxLabel))
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDrawing(counter.Digits(^uint64(0), counter.MaxDigits), s)
	if err != nil {
		t.Fatalf("largest badge refused: %v", err)
	}
	if w, h := d.Size(); w*h > counter.MaxPixels {
		t.Errorf("%dx%d is over the budget of %d pixels", w, h, counter.MaxPixels)
	}
	for _, f := range []counter.ImageType{counter.PNG, counter.GIF, counter.SVG} {
		if err := d.Encode(io.Discard, f); err != nil {
			t.Errorf("image type %d: %v", f, err)
		}
	}
}

// TestBadgeSVGEscapesTheLabel draws every printable character a label may
// hold: the SVG says them in its title and aria-label, escaped, and holds
// no markup of the label's.
func TestBadgeSVGEscapesTheLabel(t *testing.T) {
	for _, label := range []string{`<script>alert(1)</script>`, `"><g onload="x">`, `a&amp;b'`, `]]><!--`} {
		s, err := counter.ParseStyle("style=badge&label=" + url.QueryEscape(label))
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewDrawing("1", s)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := d.Encode(&b, counter.SVG); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		if strings.Contains(svg, label) || strings.Contains(svg, "<script") || strings.Contains(svg, "<g onload") || strings.Contains(svg, "<!--") {
			t.Errorf("label %q reaches the SVG unescaped: %s", label, svg)
		}
		if err := xml.Unmarshal(b.Bytes(), new(struct{})); err != nil {
			t.Errorf("label %q: the SVG is not well-formed XML: %v", label, err)
		}
		if !strings.Contains(svg, "<title>"+html.EscapeString(label)+": 1</title>") {
			t.Errorf("label %q: no title saying it", label)
		}
	}
}

// TestLookBounds draws every look at the largest size with the longest
// text and the smallest: each stays within the pixel budget, in every
// image type, and is not the font's drawing recoloured.
func TestLookBounds(t *testing.T) {
	font, err := NewDrawing("8", counter.DefaultStyle())
	if err != nil {
		t.Fatal(err)
	}
	fw, fh := font.Size()
	for _, name := range counter.LookNames() {
		for _, q := range []string{"&size=128", "&size=8"} {
			s, err := counter.ParseStyle("theme=" + name + q)
			if err != nil {
				t.Fatal(err)
			}
			d, err := NewDrawing(strings.Repeat("8", counter.MaxTextLen), s)
			if err != nil {
				t.Fatalf("%s%s: longest drawing refused: %v", name, q, err)
			}
			if w, h := d.Size(); w*h > counter.MaxPixels {
				t.Errorf("%s%s: %dx%d is over the budget of %d pixels", name, q, w, h, counter.MaxPixels)
			}
			for _, f := range []counter.ImageType{counter.PNG, counter.GIF, counter.SVG} {
				if err := d.Encode(io.Discard, f); err != nil {
					t.Errorf("%s%s, format %d: %v", name, q, f, err)
				}
			}
		}
		s, _ := counter.ParseStyle("theme=" + name)
		d, err := NewDrawing("8", s)
		if err != nil {
			t.Fatal(err)
		}
		if w, h := d.Size(); w == fw && h == fh {
			t.Errorf("%s: %dx%d, the font's own size: is it drawn by code of its own?", name, w, h)
		}
	}
}

func ledStyle() counter.Style {
	s := counter.DefaultStyle()
	s.Look = counter.LookLED
	return s
}
