package imports

import (
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// importNow is the clock of these tests: tomorrow is 2026-12-06.
var importNow = time.Date(2026, 12, 5, 23, 30, 0, 0, time.UTC)

func TestCheckDay(t *testing.T) {
	for _, tc := range []struct {
		date string
		ok   bool
	}{
		{"0001-01-01", false}, // a zero time
		{"1970-01-01", false}, // a Unix time of 0
		{"1989-12-31", false},
		{"1990-01-01", true},
		{"2026-12-05", true},
		{"2026-12-06", true}, // tomorrow: a clock a little fast
		{"2026-12-07", false},
		{"9999-12-31", false},
	} {
		if ie := checkDay(tc.date, importNow); (ie == nil) != tc.ok {
			t.Errorf("checkDay(%s): got %v, want ok %v", tc.date, ie, tc.ok)
		}
	}
	// Tomorrow is the UTC day after now's, wherever now is told.
	east := importNow.In(time.FixedZone("UTC+14", 14*3600)) // 2026-12-06 13:30 there
	if ie := checkDay("2026-12-07", east); ie == nil {
		t.Errorf("2026-12-07 taken, on 2026-12-05 UTC")
	}
}

// Each kind of file refuses a day no counter can have seen, saying on
// which line, with the day quoted and the days it may have.
func TestImportsRefuseImplausibleDays(t *testing.T) {
	const why = "the day is not one a counter can have seen: not between 1990-01-01 and tomorrow, 2026-12-06"
	const goat = "2Path,Event,Bot,Session,FirstVisit,Date\n/a,false,0,s,true,2026-01-02T09:15:00Z\n"
	const own = "date,views,visitors\n2026-01-01,1,1\n"
	ownDay := func(date string) string {
		return "{\"name\":\"a\",\"days\":[\n{\"date\":\"2026-01-01\",\"views\":1},\n{\"date\":\"" + date + "\",\"views\":1}]}"
	}
	log := func(stamp string) string {
		return apache("198.51.100.1", "02/Jan/2026:10:00:00 +0000", "GET / HTTP/1.1", "200", "-", firefox) +
			apache("198.51.100.1", stamp, "GET / HTTP/1.1", "200", "-", firefox)
	}
	readLogAt := func(in string) error {
		lr, err := NewLogReader(LogOptions{Path: "/", Settings: counter.DefaultSettings(), Now: func() time.Time { return importNow }})
		if err != nil {
			return err
		}
		return lr.Read(strings.NewReader(in))
	}
	for _, tc := range []struct {
		name   string
		read   func(string) error
		in     string
		line   int
		reason string
	}{
		{"stats.json, year 1", jsonAt, ownDay("0001-01-01"), 3, why + `: "0001-01-01"`},
		{"stats.json, next year", jsonAt, ownDay("2027-01-01"), 3, why + `: "2027-01-01"`},
		{"stats.json, created in year 1", jsonAt, "{\"name\":\"a\",\n\"created\":\"0001-01-01T00:00:00Z\"}", 2, "created: " + why + `: "0001-01-01T00:00:00Z"`},
		{"stats.json, tallied since 1969", jsonAt, "{\"name\":\"a\",\n\"tallied_since\":\"1969-12-31T23:59:59Z\"}", 2, "tallied_since: " + why},
		{"stats.csv, year 1", csvAt, own + "0001-01-01,1,1\n", 3, why + `: "0001-01-01"`},
		{"stats.csv, 1989", csvAt, own + "1989-12-31,1,1\n", 3, why + `: "1989-12-31"`},
		{"GoatCounter, year 1", goatAt, goat + "/a,false,0,s,true,0001-01-01T00:00:00Z\n", 3, "Date: " + why + `: "0001-01-01T00:00:00Z"`},
		{"GoatCounter, in a year", goatAt, goat + "/a,false,0,s,true,2027-12-05T00:00:00Z\n", 3, "Date: " + why},
		{"access log, year 1", readLogAt, log("01/Jan/0001:00:00:00 +0000"), 2, why + `: "01/Jan/0001:00:00:00 +0000"`},
		{"access log, the day after tomorrow", readLogAt, log("07/Dec/2026:00:00:00 +0000"), 2, why},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantRefusal(t, tc.read(tc.in), tc.line, tc.reason)
		})
	}
	// The first and last days taken.
	for _, in := range []string{ownDay("1990-01-01"), ownDay("2026-12-06")} {
		if err := jsonAt(in); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	if err := readLogAt(log("06/Dec/2026:23:59:59 +0000")); err != nil {
		t.Errorf("a log line of tomorrow: %v", err)
	}
}

func jsonAt(in string) error { _, err := ownJSON(strings.NewReader(in), nil, importNow); return err }
func csvAt(in string) error  { _, err := ownCSV(strings.NewReader(in), importNow); return err }
func goatAt(in string) error {
	_, err := goatCounterCSV(strings.NewReader(in), defaultCap(nil), importNow)
	return err
}
