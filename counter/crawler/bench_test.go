package crawler

import (
	"testing"

	"github.com/x-way/crawlerdetect"
)

// benchAgents are typical browsers' user agents and a few bots'.
var benchAgents = []struct {
	name, ua string
	crawler  bool
}{
	{"chrome-desktop", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", false},
	{"safari-iphone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1", false},
	{"firefox", "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", false},
	{"chrome-android", "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36", false},
	{"googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", true},
	{"bingbot", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", true},
	{"curl", "curl/8.5.0", true},
	{"python-requests", "python-requests/2.31.0", true},
}

func TestBenchAgents(t *testing.T) {
	for _, tc := range benchAgents {
		if got := IsCrawler(tc.ua); got != tc.crawler {
			t.Errorf("%s: IsCrawler = %v, want %v", tc.name, got, tc.crawler)
		}
	}
}

// BenchmarkIsCrawler compares IsCrawler with crawlerdetect's, whose
// init-time compile is not counted.
func BenchmarkIsCrawler(b *testing.B) {
	for _, tc := range benchAgents {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				IsCrawler(tc.ua)
			}
		})
		b.Run(tc.name+"/crawlerdetect", func(b *testing.B) {
			for b.Loop() {
				crawlerdetect.IsCrawler(tc.ua)
			}
		})
	}
}

// BenchmarkFixtures runs over every fixture user agent; crawlerdetect
// takes some 200 µs a user agent there, too long to run it alongside.
func BenchmarkFixtures(b *testing.B) {
	uas := fixtureAgents(b)
	for b.Loop() {
		for _, ua := range uas {
			IsCrawler(ua)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(uas)), "ns/ua")
}
