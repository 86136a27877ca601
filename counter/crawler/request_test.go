package crawler

import (
	"bufio"
	"net/http"
	"os"
	"strings"
	"testing"
)

// chrome is a browser's User-Agent, a view's by every list.
const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36"

func TestIsBotRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers map[string]string
		want    bool
	}{
		{"a browser", map[string]string{"User-Agent": chrome}, false},
		{"a browser with its brands", map[string]string{"User-Agent": chrome, "Sec-CH-UA": `"Google Chrome";v="129", "Not=A?Brand";v="8", "Chromium";v="129"`}, false},
		{"Sec-CH-UA naming HeadlessChrome", map[string]string{"User-Agent": chrome, "Sec-CH-UA": `"HeadlessChrome";v="129", "Not=A?Brand";v="8", "Chromium";v="129"`}, true},
		// upstream's tests/UserAgentTest.php, http_from_header
		{"From naming Googlebot", map[string]string{"User-Agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_8_4) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/28.0.1500.71 Safari/537.36", "From": "googlebot(at)googlebot.com"}, true},
		{"From naming bingbot", map[string]string{"User-Agent": chrome, "From": "bingbot(at)microsoft.com"}, true},
		// Browsers send no From; upstream's patterns take any address
		// in it for a crawler's.
		{"From of any address", map[string]string{"User-Agent": chrome, "From": "reader@example.org"}, true},
		{"a device's User-Agent through Opera Mini", map[string]string{"User-Agent": "Opera/9.80 (J2ME/MIDP; Opera Mini/9.80 (S60; SymbOS; Opera Mobi/23.348; U; en) Presto/2.5.25 Version/10.54", "X-OperaMini-Phone-UA": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, true},
		{"X-Original-User-Agent", map[string]string{"User-Agent": chrome, "X-Original-User-Agent": "curl/8.5.0"}, true},
		{"X-Device-User-Agent", map[string]string{"User-Agent": chrome, "X-Device-User-Agent": "python-requests/2.31.0"}, true},
		{"Device-Stock-UA", map[string]string{"User-Agent": chrome, "Device-Stock-UA": "Wget/1.21.4"}, true},
		{"X-UCBrowser-Device-UA", map[string]string{"User-Agent": chrome, "X-UCBrowser-Device-UA": "facebookexternalhit/1.1"}, true},
		{"X-Bolt-Phone-UA", map[string]string{"User-Agent": chrome, "X-Bolt-Phone-UA": "Googlebot-Image/1.0"}, true},
		{"X-Skyfire-Phone", map[string]string{"User-Agent": chrome, "X-Skyfire-Phone": "Twitterbot/1.0"}, true},
		{"X-Scanner naming Netsparker", map[string]string{"User-Agent": chrome, "X-Scanner": "Netsparker"}, true},
		{"a Sec-CH-UA too long", map[string]string{"User-Agent": chrome, "Sec-CH-UA": strings.Repeat("a", MaxAgent+1)}, true},
		{"Cardyb", map[string]string{"User-Agent": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app) Chrome/W.X.Y.Z Safari/537.36"}, true},
		{"Perplexity-User", map[string]string{"User-Agent": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			if got := IsBotRequest(h.Get); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSecCHUAFixtures runs upstream's Sec-CH-UA fixtures as a Chrome's
// request would carry them.
func TestSecCHUAFixtures(t *testing.T) {
	for file, want := range map[string]bool{"sec_ch_ua-crawlers.txt": true, "sec_ch_ua-devices.txt": false} {
		f, err := os.Open("testdata/upstream/" + file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 0
		for sc := bufio.NewScanner(f); sc.Scan(); {
			if sc.Text() == "" {
				continue
			}
			n++
			h := http.Header{"User-Agent": {chrome}, "Sec-Ch-Ua": {sc.Text()}}
			if got := IsBotRequest(h.Get); got != want {
				t.Errorf("%s: %s: got %v, want %v", file, sc.Text(), got, want)
			}
		}
		if n == 0 {
			t.Errorf("%s: no lines", file)
		}
	}
}

// TestLinkPreviews runs each of our own tokens' real User-Agent: a bot's
// here, and not one upstream already knows (else the token is no longer
// needed).
func TestLinkPreviews(t *testing.T) {
	for _, ua := range []string{
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app) Chrome/W.X.Y.Z Safari/537.36",
		"web:app.bsky:v0.0.1 (by support@bsky.app)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
	} {
		if !IsBot(ua) || !IsLinkPreview(ua) {
			t.Errorf("%s: got a view, want a bot", ua)
		}
		if IsCrawler(ua) {
			t.Errorf("%s: upstream knows it now: take its token off linkPreviews", ua)
		}
	}
	if len(linkPreviews) != 3 {
		t.Errorf("got %d tokens, want each with its User-Agent here", len(linkPreviews))
	}
}

func BenchmarkIsBotRequest(b *testing.B) {
	h := http.Header{"User-Agent": {chrome}, "Sec-Ch-Ua": {`"Google Chrome";v="129", "Not=A?Brand";v="8", "Chromium";v="129"`}}
	b.ReportAllocs()
	for b.Loop() {
		IsBotRequest(h.Get)
	}
}
