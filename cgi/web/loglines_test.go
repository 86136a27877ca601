package web

import (
	"strings"
	"testing"

	"hitcounter/cgi/internal/logline"
)

// Bogus requests, each with a kilobyte or more of its own, write log
// lines of at most logline.MaxLine bytes that still say what happened.
func TestBogusRequestsLogShortLines(t *testing.T) {
	long := strings.Repeat("a", 1000)
	tests := []struct {
		name, method, target string
		header               []string
		want                 string // in the line
	}{
		{"a long name", "GET", "/" + long + ".png", nil, "invalid counter name"},
		{"not a counter path", "GET", "/demo." + long, nil, "not a counter path"},
		{"a long style", "GET", "/demo.png?digits=" + long, nil, "digits"},
		{"a long login name", "POST", "/" + long + "/login", []string{"Content-Type", "application/x-www-form-urlencoded"}, "invalid counter name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, logs := testApp(t, "demo")
			serve(a, tc.method, tc.target, tc.header...)
			if logs.Len() == 0 {
				t.Fatalf("nothing logged")
			}
			for _, l := range strings.SplitAfter(strings.TrimSuffix(logs.String(), "\n"), "\n") {
				if len(l) > logline.MaxLine {
					t.Errorf("a log line of %d bytes, want at most %d: %q", len(l), logline.MaxLine, l)
				}
			}
			if !strings.Contains(logs.String(), tc.want) {
				t.Errorf("log %q does not say %q", logs, tc.want)
			}
		})
	}
}
