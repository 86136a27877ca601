package counter

import (
	"errors"
	"testing"
)

func TestParseTop(t *testing.T) {
	for _, tc := range []struct {
		top, days string
		want      TopQuery
		bad       string // the parameter refused, "" for none
	}{
		{"10", "", TopQuery{10, DefaultTopDays}, ""},
		{"1", "1", TopQuery{1, 1}, ""},
		{"50", "90", TopQuery{MaxTop, MaxTopDays}, ""},
		{"007", "030", TopQuery{7, 30}, ""},
		{"", "", TopQuery{}, "top"},
		{"0", "", TopQuery{}, "top"},
		{"51", "", TopQuery{}, "top"},
		{"+5", "", TopQuery{}, "top"},
		{"5", "0", TopQuery{}, "days"},
		{"5", "91", TopQuery{}, "days"},
		{"5", "1e2", TopQuery{}, "days"},
		{"5", "9999", TopQuery{}, "days"},
	} {
		t.Run(tc.top+"/"+tc.days, func(t *testing.T) {
			got, err := ParseTop(tc.top, tc.days)
			var pe *ParamError
			switch {
			case tc.bad == "" && (err != nil || got != tc.want):
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			case tc.bad != "" && (!errors.As(err, &pe) || pe.Param != tc.bad):
				t.Errorf("got %+v, %v; want %s refused", got, err, tc.bad)
			}
		})
	}
}

func TestPublicPages(t *testing.T) {
	site, err := NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	hash := []byte("$2a$10$x")
	for _, tc := range []struct {
		name     string
		settings Settings
		set      string
		hash     []byte
		public   bool
		refused  bool
	}{
		{"a site, by default", site, "", nil, false, false},
		{"on", site, "public-pages=on", nil, true, false},
		{"off", site, "public-pages=off", nil, false, false},
		{"on behind a password", site, "public-pages=on", hash, false, false},
		{"a plain counter", DefaultSettings(), "public-pages=on", nil, false, true},
		{"neither on nor off", site, "public-pages=yes", nil, false, true},
		{"added to", site, "public-pages+=on", nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.settings
			if tc.set != "" {
				err := s.Set(tc.set)
				if (err != nil) != tc.refused {
					t.Fatalf("Set(%q): %v, want refused %v", tc.set, err, tc.refused)
				}
			}
			info := Info{Settings: s, PasswordHash: tc.hash}
			if got := info.PageListPublic(); got != tc.public {
				t.Errorf("PageListPublic: %v, want %v", got, tc.public)
			}
			if tc.settings.Site != nil && tc.settings.Site.PublicPages {
				t.Error("Set changed the settings it was copied from")
			}
		})
	}
}
