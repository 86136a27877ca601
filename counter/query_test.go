package counter

import (
	"errors"
	"testing"
)

func TestParseImageQuery(t *testing.T) {
	page, site := PageImage, SiteImage
	tests := []struct {
		query   string
		want    ImageQuery // Style aside
		wantErr string     // the refused parameter, "" for none
	}{
		{"", ImageQuery{Count: true}, ""},
		{"count=0&digits=7", ImageQuery{}, ""},
		{"count=1", ImageQuery{Count: true}, ""},
		{"count=2", ImageQuery{}, "count"},
		{"count=0&count=0", ImageQuery{}, "count"},
		{"page=%2Fposts%2Fa%2F&show=page", ImageQuery{Count: true, Page: "/posts/a/", HasPage: true, Image: &page}, ""},
		{"show=site", ImageQuery{Count: true, Image: &site}, ""},
		{"show=all", ImageQuery{}, "show"},
		{"page=/a&page=/b", ImageQuery{}, "page"},
		{"v=3&Digits=2&colour=red", ImageQuery{Count: true, Typo: Typo{Key: "Digits", Known: "digits"}, HasTypo: true}, ""},
		{"fg=zzz&count=0", ImageQuery{}, "fg"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			got, err := ParseImageQuery(tc.query)
			var pe *ParamError
			switch {
			case tc.wantErr != "":
				if !errors.As(err, &pe) || pe.Param != tc.wantErr {
					t.Errorf("got error %v, want one about %s", err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatalf("got error %v", err)
			}
			same := got.Count == tc.want.Count && got.Page == tc.want.Page && got.HasPage == tc.want.HasPage &&
				got.Typo == tc.want.Typo && got.HasTypo == tc.want.HasTypo &&
				(got.Image == nil) == (tc.want.Image == nil) && (got.Image == nil || *got.Image == *tc.want.Image)
			if !same {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if q, _ := ParseImageQuery("digits=7&count=0"); q.Style.Digits != 7 {
		t.Errorf("style digits %d, want 7", q.Style.Digits)
	}
}
