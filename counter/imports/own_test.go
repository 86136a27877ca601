package imports

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// exportJSON is the shape of stats.json as encoding/json reads it: the
// reference that OwnJSON, which the binary links instead, must agree with.
type exportJSON struct {
	Name         string           `json:"name"`
	Show         string           `json:"show"`
	Total        json.Number      `json:"total"`
	Visitors     json.Number      `json:"visitors"`
	Created      *string          `json:"created"`
	TalliedSince *string          `json:"tallied_since"`
	Days         []map[string]any `json:"days"`
	Referrers    []struct {
		Host  string      `json:"host"`
		Views json.Number `json:"views"`
	} `json:"referrers"`
	PageDays []struct {
		Date     string      `json:"date"`
		Page     string      `json:"page"`
		Views    json.Number `json:"views"`
		Visitors json.Number `json:"visitors"`
	} `json:"page_days"`
}

func number(t *testing.T, n json.Number) uint64 {
	t.Helper()
	if n == "" {
		return 0
	}
	var v uint64
	if err := json.Unmarshal([]byte(n), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// referenceImport reads an export with encoding/json.
func referenceImport(t *testing.T, data []byte) counter.Imported {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var e exportJSON
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	imp := counter.Imported{Name: e.Name, Total: number(t, e.Total), HasTotal: e.Total != "",
		Visitors: number(t, e.Visitors), HasVisitors: e.Visitors != "", HasShow: e.Show != ""}
	if e.Show == "visitors" {
		imp.Show = counter.ShowVisitors
	}
	for _, p := range []struct {
		s  *string
		to *time.Time
	}{{e.Created, &imp.Created}, {e.TalliedSince, &imp.TalliedSince}} {
		if p.s != nil {
			tm, err := time.Parse(time.RFC3339, *p.s)
			if err != nil {
				t.Fatal(err)
			}
			*p.to = tm.UTC()
		}
	}
	cols := exportColumns()
	for _, d := range e.Days {
		day := counter.Day{Date: d["date"].(string)}
		for i, c := range cols {
			if v, ok := d[c]; ok {
				setColumn(&day.Tally, i, number(t, v.(json.Number)))
			}
		}
		imp.Days = append(imp.Days, day)
	}
	var book dayBook
	for _, d := range imp.Days {
		book.add(d, 0)
	}
	imp.Days = book.sorted()
	for _, r := range e.Referrers {
		imp.Referrers = append(imp.Referrers, counter.Referrer{Host: r.Host, Hits: number(t, r.Views)})
	}
	for _, d := range e.PageDays {
		imp.PageDays = append(imp.PageDays, counter.PageDay{Date: d.Date, Page: d.Page, Views: number(t, d.Views), Visitors: number(t, d.Visitors)})
	}
	sortPageDays(imp.PageDays)
	return imp
}

func TestOwnJSONReadsWhatEncodingJSONReads(t *testing.T) {
	files := []string{"../../testdata/import/own-bom-crlf.json", "../../testdata/import/own-site.json"}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := OwnJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			got = flat(got)
			if want := referenceImport(t, data); !reflect.DeepEqual(got, want) {
				t.Errorf("OwnJSON read\n%+v\nencoding/json\n%+v", got, want)
			}
		})
	}
}

func TestOwnJSONExactPast2To53(t *testing.T) {
	data, err := os.ReadFile("../../testdata/import/own-bom-crlf.json")
	if err != nil {
		t.Fatal(err)
	}
	imp, err := OwnJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if imp.Total != 18446744073709551615 || imp.Days[1].Views != 9007199254740993 || imp.Visitors != 9007199254740993 {
		t.Errorf("total %d, views %d, visitors %d: not exact", imp.Total, imp.Days[1].Views, imp.Visitors)
	}
	if imp.Days[0].Date != "2026-01-01" || imp.Days[1].NotCounted[counter.Bot] != 4 {
		t.Errorf("days %+v", imp.Days)
	}
}

func TestOwnJSONRefusals(t *testing.T) {
	day := `{"date":"2026-01-01","views":1}`
	for _, tc := range []struct {
		name, in string
		line     int
		reason   string
	}{
		{"empty", ``, 1, "expected \"{\""},
		{"not an object", `[1]`, 1, "expected \"{\""},
		{"no name", `{"days":[]}`, 0, "names no counter"},
		{"bad name", `{"name":"../x"}`, 1, "not a counter name"},
		{"bad show", `{"name":"a","show":"all"}`, 1, `show is not views or visitors: "all"`},
		{"negative", "{\"name\":\"a\",\n\"total\":-1}", 2, "not a whole number"},
		{"fraction", `{"name":"a","total":1.5}`, 1, "not a whole number"},
		{"negative zero", `{"name":"a","total":-0}`, 1, "not a whole number"},
		{"exponent", `{"name":"a","total":1e3}`, 1, "not a whole number"},
		{"past 2^64", `{"name":"a","total":18446744073709551616}`, 1, "more than 18446744073709551615"},
		{"leading zero", `{"name":"a","total":01}`, 1, "leading zero"},
		{"leading zero, unknown key", `{"name":"0","":00}`, 1, "leading zero"},
		{"bad number, unknown key", `{"name":"a","x":[1.]}`, 1, "not a number"},
		{"minus alone", `{"name":"a","x":-}`, 1, "not a number"},
		{"string count", `{"name":"a","total":"1"}`, 1, "must be a number"},
		{"bad date", `{"name":"a","days":[{"date":"2026-02-30","views":1}]}`, 1, "not a day"},
		{"duplicate day", "{\"name\":\"a\",\"days\":[\n" + day + ",\n" + day + "]}", 3, `a day given twice, first on line 2: "2026-01-01"`},
		{"duplicate page day", "{\"name\":\"a\",\"page_days\":[\n" + `{"date":"2026-01-01","page":"/a"},` + "\n" + `{"date":"2026-01-01","page":"/a"}]}`, 3, "given twice"},
		{"trailing comma", `{"name":"a","days":[` + day + `,]}`, 1, `expected "{", found another character: "]"`},
		{"unended", `{"name":"a","days":[` + day, 1, "the end of the file"},
		{"garbage after", `{"name":"a"} x`, 1, "more after the end"},
		{"deep", `{"name":"a","x":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`, 1, "nested deeper"},
		{"long string", `{"name":"` + strings.Repeat("a", 5000) + `"}`, 1, "longer than"},
		{"control", "{\"name\":\"a\tb\"}", 1, "control character"},
		{"lone surrogate", `{"name":"a","x":"\ud83d"}`, 1, "surrogate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OwnJSON(strings.NewReader(tc.in))
			wantRefusal(t, err, tc.line, tc.reason)
		})
	}
}

func TestOwnCSV(t *testing.T) {
	in := "\xef\xbb\xbfdate,page,views,visitors,github,reloads,bots,prefetches,owner,foreign,ignored\r\n" +
		"2026-01-01,,5,3,1,0,2,0,0,0,0\r\n" +
		"2026-01-02,,18446744073709551615,1,0,0,0,0,0,0,0\r\n" +
		"2026-01-01,/posts/hello,4,2,,,,,,,\r\n" +
		"2026-01-01,\"/a,b\",1,1,,,,,,,\r\n"
	imp, err := OwnCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := counter.Imported{
		Days: []counter.Day{
			{Date: "2026-01-01", Tally: counter.Tally{Views: 5, Visitors: 3, GitHub: 1}},
			{Date: "2026-01-02", Tally: counter.Tally{Views: 18446744073709551615, Visitors: 1}},
		},
		PageDays: []counter.PageDay{{Date: "2026-01-01", Page: "/a,b", Views: 1, Visitors: 1}, {Date: "2026-01-01", Page: "/posts/hello", Views: 4, Visitors: 2}},
	}
	want.Days[0].NotCounted[counter.Bot] = 2
	if imp = flat(imp); !reflect.DeepEqual(imp, want) {
		t.Errorf("got %+v\nwant %+v", imp, want)
	}
	// An export of version 1 had a date and views alone.
	if imp, err := OwnCSV(strings.NewReader("date,views\n2020-05-01,7\n")); err != nil || imp.Days[0].Views != 7 {
		t.Errorf("version 1 export: %+v, %v", imp, err)
	}
}

func TestOwnCSVRefusals(t *testing.T) {
	const header = "date,views,visitors\r\n"
	const pages = "date,page,views,visitors\n"
	for _, tc := range []struct {
		name, in string
		line     int
		reason   string
	}{
		{"empty", "", 0, "empty"},
		{"no views", "date,hits\r\n", 1, "no date or no views"},
		{"short line", header + "2026-01-01,1\r\n", 2, "wrong number of fields"},
		{"bad number", header + "2026-01-01,1,x\r\n", 2, `visitors is not a whole number from 0 to 18446744073709551615: "x"`},
		{"negative", header + "2026-01-01,-1,0\r\n", 2, `views is not a whole number from 0 to 18446744073709551615: "-1"`},
		{"past 2^64", header + "2026-01-01,18446744073709551616,0\r\n", 2, "18446744073709551616"},
		{"bad date", header + "2026-1-1,1,1\r\n", 2, "not a day"},
		{"duplicate day", header + "2026-01-01,1,1\r\n2026-01-02,1,1\r\n2026-01-01,2,2\r\n", 4, `a day given twice, first on line 2: "2026-01-01"`},
		{"bad quote", header + "2026-01-01,\"1,1\r\n", 2, "quote"},
		{"page days given twice", pages + "2026-01-01,/b,1,1\n2026-01-01,/a,1,1\n2026-01-01,/a,2,2\n2026-01-01,/b,1,1\n", 4, `a page's day given twice, first on line 3: "/a" on 2026-01-01`},
		{"a page day three times", pages + "2026-01-01,/a,1,1\n2026-01-02,/a,1,1\n2026-01-01,/a,1,1\n2026-01-01,/a,1,1\n", 4, `given twice, first on line 2: "/a" on 2026-01-01`},
		{"no page's path", pages + "2026-01-01,/a/../b,1,1\n", 2, `no page's path, such as /posts/hello: "/a/../b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OwnCSV(strings.NewReader(tc.in))
			wantRefusal(t, err, tc.line, tc.reason)
		})
	}
}

// wantRefusal fails t unless err refuses a file at line for reason.
func wantRefusal(t *testing.T, err error, line int, reason string) {
	t.Helper()
	var ie *counter.ImportError
	if !errors.As(err, &ie) || !errors.Is(err, counter.ErrImport) {
		t.Fatalf("error %v; want an ImportError", err)
	}
	if ie.Line != line || !strings.Contains(ie.Error(), reason) {
		t.Errorf("line %d %q; want line %d, %q", ie.Line, ie.Error(), line, reason)
	}
}

// flat is imp with its page days as PageDays, to compare.
func flat(imp counter.Imported) counter.Imported {
	imp.PageDays, imp.PageRows = imp.AllPageDays(), nil
	return imp
}
