package imports

import (
	"errors"
	"io"
	"strings"
	"testing"

	"hitcounter/counter"
)

// TestRefusalsQuoteAnExcerpt feeds every reader a line whose bad field is
// long and starts with a terminal's escape sequences: each refusal names
// the line, quotes at most counter.MaxExcerpt bytes of the field, escaped,
// and says what is wrong without it in its Reason.
func TestRefusalsQuoteAnExcerpt(t *testing.T) {
	// evil starts by setting the terminal's title and clearing its screen.
	evil := "\x1b]0;owned\x07\x1b[2J\u202e" + strings.Repeat("A", 3000)
	jsonEvil := `\u001b]0;owned\u0007\u001b[2J\u202e` + strings.Repeat("A", 3000)
	log := func(stamp string) string {
		return `198.51.100.1 - - [` + stamp + `] "GET / HTTP/1.1" 200 5 "-" "` + firefox + "\"\n"
	}
	read := map[string]func(io.Reader) error{
		"counts": func(r io.Reader) error { _, err := Counts(r); return err },
		"json":   func(r io.Reader) error { _, err := OwnJSON(r); return err },
		"csv":    func(r io.Reader) error { _, err := OwnCSV(r); return err },
		"goat":   func(r io.Reader) error { _, err := GoatCounterCSV(r, nil); return err },
		"log": func(r io.Reader) error {
			lr, err := NewLogReader(LogOptions{Path: "/", Settings: counter.DefaultSettings()})
			if err != nil {
				return err
			}
			return lr.Read(r)
		},
	}
	const goat = "2Path,Event,Bot,Session,FirstVisit,Date\n"
	for _, tc := range []struct {
		name, reader, in string
		line             int
	}{
		{"a lone count", "counts", "# old counter\n" + evil + "\n", 2},
		{"a counter name", "counts", "blog 1\n" + evil + " 2\n", 2},
		{"a count", "counts", "blog " + evil + "\n", 1},
		{"a name", "json", `{"name":"` + jsonEvil + `"}`, 1},
		{"show", "json", "{\"name\":\"a\",\n\"show\":\"" + jsonEvil + `"}`, 2},
		{"a date", "json", `{"name":"a","days":[{"date":"` + jsonEvil + `"}]}`, 1},
		{"a time", "json", `{"name":"a","created":"` + jsonEvil + `"}`, 1},
		{"a number", "json", `{"name":"a","total":01}`, 1},
		{"an escape", "json", "{\"name\":\"a\\\x1b\"}", 1},
		{"a character", "json", "{\x1b}", 1},
		{"a referrer twice", "json", `{"name":"a","referrers":[{"host":"` + jsonEvil + `"},` + "\n" + `{"host":"` + jsonEvil + `"}]}`, 2},
		{"a page twice", "json", `{"name":"a","page_days":[{"date":"2026-01-01","page":"/` + jsonEvil[:200] + `"},` + "\n" + `{"date":"2026-01-01","page":"/` + jsonEvil[:200] + `"}]}`, 2},
		{"a page", "json", `{"name":"a","page_days":[{"date":"2026-01-01","page":"` + jsonEvil[:200] + `"}]}`, 1},
		{"a CSV date", "csv", "date,views\n\"" + evil + "\",1\n", 2},
		{"a CSV count", "csv", "date,views\n2026-01-01,\"" + evil + "\"\n", 2},
		{"GoatCounter's version", "goat", strings.Repeat("9", 3000) + "Path,Event,Bot,Session,FirstVisit,Date\n", 1},
		{"GoatCounter's event", "goat", goat + "/a,\"" + evil + "\",0,s,true,2026-01-02T09:15:00Z\n", 2},
		{"GoatCounter's date", "goat", goat + "/a,false,0,s,true,\"" + evil + "\"\n", 2},
		{"a log's time", "log", log("02/Jan/2026:10:00:00 +0000") + log(evil), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := read[tc.reader](strings.NewReader(tc.in))
			var ie *counter.ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v; want an ImportError", err)
			}
			msg := err.Error()
			if ie.Line != tc.line || ie.Quote == "" {
				t.Errorf("%q: line %d, quote %q; want line %d and a quote", msg, ie.Line, ie.Quote, tc.line)
			}
			if strings.ContainsAny(ie.Reason, "\x1b\u202e") || strings.Contains(ie.Reason, "owned") {
				t.Errorf("reason %q quotes the file", ie.Reason)
			}
			for _, c := range msg {
				if c < 0x20 || c == 0x7f || c == '\u202e' {
					t.Fatalf("%q holds the control character %U", msg, c)
				}
			}
			if strings.Contains(msg, strings.Repeat("A", counter.MaxExcerpt)) {
				t.Errorf("%q quotes more than %d bytes of the file", msg, counter.MaxExcerpt)
			}
			if len(ie.Quote) > 2*(6*counter.MaxExcerpt+5) {
				t.Errorf("quote of %d bytes: %q", len(ie.Quote), ie.Quote)
			}
		})
	}
}
