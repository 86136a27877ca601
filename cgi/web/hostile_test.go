package web

import (
	"bytes"
	"fmt"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

const secret = "hunter2-session-key-0123456789"

// TestPanicLogsNoSecret: whatever a panic carries, the log gets one line
// with the kind of panic and where it happened, never the value.
func TestPanicLogsNoSecret(t *testing.T) {
	var nilMap map[string]int
	tests := []struct {
		name  string
		fn    func()
		inLog string
	}{
		{"string", func() { panic("password=" + secret) }, "type string"},
		{"error", func() { panic(fmt.Errorf("key %s", secret)) }, "type *errors.errorString"},
		{"struct", func() { panic(struct{ Key string }{secret}) }, "type struct"},
		{"index", func() { _ = []string{secret}[len(os.Args)+1] }, "index out of range"},
		{"nil map", func() { nilMap[secret]++ }, "assignment to entry in nil map"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			a := newApp(config.Config{}, logline.New(&logs))
			h := a.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { tc.fn() }))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/x.png", nil))
			if w.Code != 500 || strings.Contains(w.Body.String()+fmt.Sprint(w.Header()), secret) {
				t.Errorf("status %d, want 500 without the secret", w.Code)
			}
			checkImage(t, w, "image/png")
			line := logs.String()
			if strings.Contains(line, secret) || strings.Contains(line, "hunter2") {
				t.Errorf("log %q holds the secret", line)
			}
			if strings.Count(line, "\n") != 1 || !strings.Contains(line, tc.inLog) || !strings.Contains(line, "hostile_test.go:") {
				t.Errorf("log %q, want one line with %q and where it happened", line, tc.inLog)
			}
		})
	}
}

// TestRandomNamesLeaveTheFileAlone asks for thousands of counters that do
// not exist, valid names and not: every answer is a 404 or 400 image, and
// the file is byte for byte the same.
func TestRandomNamesLeaveTheFileAlone(t *testing.T) {
	a, _ := testApp(t, "page")
	noCosts(a) // their own writes, once a day or a build, are costs_test's
	before, err := os.ReadFile(a.cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-~!$"
	for i := range 3000 {
		name := make([]byte, 1+r.IntN(80))
		for j := range name {
			name[j] = alphabet[r.IntN(len(alphabet))]
		}
		ext := []string{".png", ".gif", ".svg", ".json"}[i%4]
		w := serve(a, "GET", "/"+string(name)+ext+"?digits=3", "Referer", "http://spam"+itoa(i)+".example/")
		if w.Code != 404 && w.Code != 400 {
			t.Fatalf("%q: status %d, want 404 or 400", name, w.Code)
		}
	}
	after, _ := os.ReadFile(a.cfg.DB)
	if !bytes.Equal(before, after) {
		t.Errorf("3000 unknown names changed the file: %d bytes, was %d", len(after), len(before))
	}
	if got := total(t, a, "page"); got != 0 {
		t.Errorf("page counted %d", got)
	}
}
