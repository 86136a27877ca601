package imports

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"hitcounter/counter"
)

// The test file is made by hand from GoatCounter's documentation of its
// export: see testdata/import/goatcounter-v2.txt.
func TestGoatCounterCSV(t *testing.T) {
	f, err := os.Open("../../testdata/import/goatcounter-v2.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	imp, err := GoatCounterCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	// 2 January: five views by three sessions, a bot, and an event that is
	// no view; 00:00:01+01:00 on the 3rd is the 2nd in UTC. The two
	// spellings of café are one page, as a site keys it.
	wantDays := []counter.Day{
		{Date: "2026-01-02", Tally: tally(5, 3, counter.Bot, 1)},
		{Date: "2026-01-03", Tally: tally(1, 1)},
	}
	wantPages := []counter.PageDay{
		{Date: "2026-01-02", Page: "/", Views: 2, Visitors: 1},
		{Date: "2026-01-02", Page: "/about", Views: 1, Visitors: 1},
		{Date: "2026-01-02", Page: "/posts/café", Views: 2, Visitors: 2},
		{Date: "2026-01-03", Page: "/about", Views: 1, Visitors: 0},
	}
	if !reflect.DeepEqual(imp.Days, wantDays) || !reflect.DeepEqual(imp.PageDays, wantPages) {
		t.Errorf("days %+v\npages %+v\nwant %+v\n%+v", imp.Days, imp.PageDays, wantDays, wantPages)
	}
	if imp.Name != "" || imp.HasTotal || len(imp.Referrers) != 0 {
		t.Errorf("%+v", imp)
	}
}

func TestGoatCounterHeaders(t *testing.T) {
	row := "/a,false,0,s1,true,2026-01-02T09:15:00Z\n"
	for _, tc := range []struct{ name, header string }{
		{"one cell", "2Path,Event,Bot,Session,FirstVisit,Date\n"},
		{"as the documentation shows it", "2,Path,Event,Bot,Session,FirstVisit,Date\n"},
		{"version 1", "1Path,Title,Event,Bot,Session,FirstVisit,Referrer,Referrer scheme,Browser,Screen size,Location,Date\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := row
			if strings.HasPrefix(tc.header, "1Path") {
				r = "/a,,false,0,s1,true,,,,,,2026-01-02T09:15:00Z\n"
			}
			imp, err := GoatCounterCSV(strings.NewReader("\xef\xbb\xbf" + tc.header + r))
			if err != nil || len(imp.Days) != 1 || imp.Days[0].Views != 1 || imp.PageDays[0].Page != "/a" {
				t.Errorf("%+v, %v", imp, err)
			}
		})
	}
}

func TestGoatCounterRefusals(t *testing.T) {
	const header = "2Path,Event,Bot,Session,FirstVisit,Date\n"
	for _, tc := range []struct {
		name, in string
		line     int
		reason   string
	}{
		{"empty", "", 0, "empty"},
		{"not GoatCounter", "date,views\n", 1, "not GoatCounter's export"},
		{"version 3", "3Path,Event,Bot,Session,FirstVisit,Date\n", 1, `a format this does not read (it reads versions 1 and 2): "3"`},
		{"no Date", "2Path,Event,Bot,Session,FirstVisit\n", 1, "without its Date column"},
		{"bad date", header + "/a,false,0,s,true,2026-01-02T09:15:00Z\n/a,false,0,s,true,yesterday\n", 3, `Date is not a time like 2026-01-02T15:04:05Z: "yesterday"`},
		{"bad event", header + "/a,maybe,0,s,true,2026-01-02T09:15:00Z\n", 2, "Event"},
		{"bad bot", header + "/a,false,x,s,true,2026-01-02T09:15:00Z\n", 2, "Bot"},
		{"short row", header + "/a,false,0,s,true\n", 2, "5 fields"},
		{"bad quote", header + "\"/a,false,0,s,true,2026-01-02T09:15:00Z\n", 2, "quote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := GoatCounterCSV(strings.NewReader(tc.in))
			wantRefusal(t, err, tc.line, tc.reason)
		})
	}
}
