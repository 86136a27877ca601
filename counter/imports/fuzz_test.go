package imports

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"hitcounter/counter"
)

// FuzzOwnJSON feeds OwnJSON any bytes: it never panics, refuses with an
// ImportError, and what it takes, encoding/json takes as JSON too.
func FuzzOwnJSON(f *testing.F) {
	for _, file := range []string{"../../testdata/import/own-bom-crlf.json", "../../testdata/import/own-site.json"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"name":"a","days":[{"date":"2026-01-01","views":1}],"x":[{"y":"\u00e9"}]}`))
	f.Add([]byte(`{"name":"0","":00}`))   // found by the fuzzer: a leading zero under a key not read
	f.Add([]byte("{\"name\":\"0\"}\x00")) // found by the fuzzer: a NUL byte after the value
	f.Fuzz(func(t *testing.T, b []byte) {
		imp, err := OwnJSON(bytes.NewReader(b))
		if err != nil {
			var ie *counter.ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is no ImportError", err)
			}
			return
		}
		if !json.Valid(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))) {
			t.Fatalf("OwnJSON took %q, which is not JSON", b)
		}
		if counter.CheckName(imp.Name) != nil || len(imp.Days) > MaxDays {
			t.Fatalf("took %+v", imp)
		}
	})
}

// FuzzLogLine feeds the access log reader any line: it never panics,
// and refuses with an ImportError, which names the line unless the file
// as a whole is at fault (a damaged gzip file).
func FuzzLogLine(f *testing.F) {
	f.Add(apache("198.51.100.1", "02/Jan/2026:10:00:00 +0000", "GET / HTTP/1.1", "200", "https://x.example/", firefox))
	f.Add(`2001:db8::1 blog.example - [02/Jan/2026:10:00:01 +0000] "GET /blog/index.html HTTP/1.1" 304 0 "-" "` + safari + "\"\r\n")
	f.Add(`198.51.100.1 - - [02/Jan/2026:10:00:00 +0000] "GET /a\"b HTTP/1.1" 200 - "\\"` + "\n")
	f.Add("\x1f\x8b") // found by the fuzzer: a gzip header cut short
	s, err := counter.NewSite("blog.example")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, o := range []LogOptions{{Path: "/", Settings: counter.DefaultSettings()}, {Settings: s}} {
			lr, err := NewLogReader(o)
			if err != nil {
				t.Fatal(err)
			}
			if err := lr.Read(strings.NewReader(line)); err != nil {
				var ie *counter.ImportError
				if !errors.As(err, &ie) || ie.Line < 1 && !strings.Contains(ie.Reason, "gzip") {
					t.Fatalf("error %v is no ImportError with a line", err)
				}
				continue
			}
			for _, d := range lr.Result().AllPageDays() {
				if key, err := counter.PageKey(d.Page, nil); err != nil || key != d.Page && d.Page != counter.OtherPages {
					t.Fatalf("page %q is no page key", d.Page)
				}
			}
		}
	})
}
