package test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLighttpdLogImports has a real lighttpd write its default access
// log (its second field the host asked for) of requests this test sends
// for a page, then imports the log into a counter with a referrer list:
// the views, the reload, the bots (a crawler, Bluesky's link preview, a
// Chrome with Sec-CH-UA naming HeadlessChrome is a view here: a log keeps
// no such header), the request for a foreign host, and the referring
// hosts are what the test sent.
func TestLighttpdLogImports(t *testing.T) {
	bin := serverBinary(t, "lighttpd", lighttpdBins...)
	cgiDir, dbPath := installCounter(t)
	accessLog := filepath.Join(t.TempDir(), "access.log")
	srv := startLighttpdWith(t, bin, cgiDir, dbPath, false, nil,
		`server.modules += ( "mod_accesslog" )`, `accesslog.filename = "`+accessLog+`"`, "")
	const (
		chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36"
		safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	)
	sent := []struct{ host, ua string }{
		{"blog.example", firefoxUA},  // a view by a new visitor
		{"blog.example", firefoxUA},  // a reload
		{"www.blog.example", safari}, // a view by another
		{"blog.example", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},                                                                  // a bot
		{"blog.example", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app) Chrome/W.X.Y.Z Safari/537.36"}, // a link preview
		{"mirror.example", chrome}, // a host not on the list: foreign
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for _, s := range sent {
		req, err := http.NewRequestWithContext(context.Background(), "GET", srv.URL+"/ok.txt", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = s.host
		req.Header.Set("User-Agent", s.ua)
		req.Header.Set("Referer", "https://news.example/item?id=1")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET /ok.txt for %s: got %d, want 200", s.host, resp.StatusCode)
		}
	}
	// lighttpd writes its log a moment later.
	var log []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		log, _ = os.ReadFile(accessLog)
		if strings.Count(string(log), "\n") >= len(sent)+1 {
			break
		}
	}
	// The first line is the test's own request that waited for the
	// server to answer, with Go's User-Agent: a bot's too.
	if got := strings.Count(string(log), "\n"); got < len(sent)+1 {
		t.Fatalf("got %d lines of access log, want %d:\n%s", got, len(sent)+1, log)
	}
	admin(t, cgiDir, dbPath, "create", "page")
	admin(t, cgiDir, dbPath, "config", "page", "referrers=blog.example,*.blog.example")
	out := admin(t, cgiDir, dbPath, "import", "-log", accessLog, "-path", "/ok.txt", "page")
	for _, want := range []string{"views: 0 -> 2; visitors: 0 -> 2", "referring hosts: 2 changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("import: got\n%s\nwant %q in it\nlog:\n%s", out, want, log)
		}
	}
	_, body, err := get(context.Background(), client, "GET", srv.URL+"/cgi-bin/counter.cgi/page/stats.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"reloads":1`, `"bots":3`, `"foreign":1`, `"blog.example"`, `"www.blog.example"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("stats.json: got %s\nwant %s in it", body, want)
		}
	}
	if strings.Contains(string(body), "news.example") {
		t.Errorf("stats.json: got %s\nwant no news.example: a Referer is where a reader came from", body)
	}
}
