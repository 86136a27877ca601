package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// TestBotsThroughTheBinary sends, as CGI hits on the built binary, each
// User-Agent and header signal that counter/crawler added to
// Crawler-Detect's User-Agent list: each is a bot's hit, counted on the
// bots row of stats.json, and the browser beside them a view.
func TestBotsThroughTheBinary(t *testing.T) {
	const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36"
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	for i, tc := range []struct {
		name string
		env  []string // HTTP_ variables besides the User-Agent
		ua   string
		bot  bool
	}{
		{"a browser", nil, chrome, false},
		{"a browser's own brands", []string{`HTTP_SEC_CH_UA="Google Chrome";v="129", "Not=A?Brand";v="8", "Chromium";v="129"`}, chrome, false},
		{"Bluesky's Cardyb", nil, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app) Chrome/W.X.Y.Z Safari/537.36", true},
		{"Bluesky's web:app.bsky", nil, "web:app.bsky:v0.0.1 (by support@bsky.app)", true},
		{"Perplexity-User", nil, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", true},
		{"Sec-CH-UA naming HeadlessChrome", []string{`HTTP_SEC_CH_UA="HeadlessChrome";v="129", "Not=A?Brand";v="8", "Chromium";v="129"`}, chrome, true},
		{"From naming Googlebot", []string{"HTTP_FROM=googlebot(at)googlebot.com"}, chrome, true},
		{"X-OperaMini-Phone-UA", []string{"HTTP_X_OPERAMINI_PHONE_UA=Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, chrome, true},
		{"X-Device-User-Agent", []string{"HTTP_X_DEVICE_USER_AGENT=python-requests/2.31.0"}, chrome, true},
		{"X-Original-User-Agent", []string{"HTTP_X_ORIGINAL_USER_AGENT=curl/8.5.0"}, chrome, true},
		{"X-Skyfire-Phone", []string{"HTTP_X_SKYFIRE_PHONE=Twitterbot/1.0"}, chrome, true},
		{"X-Bolt-Phone-UA", []string{"HTTP_X_BOLT_PHONE_UA=Googlebot-Image/1.0"}, chrome, true},
		{"Device-Stock-UA", []string{"HTTP_DEVICE_STOCK_UA=Wget/1.21.4"}, chrome, true},
		{"X-UCBrowser-Device-UA", []string{"HTTP_X_UCBROWSER_DEVICE_UA=facebookexternalhit/1.1"}, chrome, true},
		{"X-Scanner", []string{"HTTP_X_SCANNER=Netsparker"}, chrome, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("c%d", i)
			if out, err := adminRun(t, db, "create", name); err != nil {
				t.Fatalf("create: %v %s", err, out)
			}
			env := append(hitEnv(t, db), "PATH_INFO=/"+name+".png", "HTTP_USER_AGENT="+tc.ua, "REMOTE_ADDR=192.0.2.7")
			ans, stderr := runCGI(t, append(env, tc.env...))
			if ans.status != 200 {
				t.Fatalf("got status %d, want 200: %s", ans.status, stderr)
			}
			stats := get(t, db, "/"+name+"/stats.json")
			want := `"views":1`
			if tc.bot {
				want = `"bots":1`
			}
			if !bytes.Contains(stats, []byte(want)) || tc.bot == bytes.Contains(stats, []byte(`"views":1`)) {
				t.Errorf("got %s\nwant %s in it", stats, want)
			}
		})
	}
}
