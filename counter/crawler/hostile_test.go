package crawler

import (
	"strconv"
	"strings"
	"testing"
)

// hostileUA is an 8 KiB User-Agent that a browser never sends: the
// needles of crawler patterns that need a program, none of them matching,
// repeated. It is not a crawler by crawlerdetect's verdict either, so the
// hit goes on to count as a view.
func hostileUA() string {
	var parts []string
	for k := 0; k < len(needles)/needleSize; k++ {
		nd := needleAt(needles, k)
		if !nd.exact && !IsCrawler("zz"+nd.text+"zz") {
			parts = append(parts, nd.text)
		}
	}
	base := "zz"
	for _, p := range parts {
		if c := base + p + "zz"; !IsCrawler(c) {
			base = c
		}
	}
	return strings.Repeat(base, 8192/len(base)+1)[:8192]
}

// BenchmarkHostileUserAgent times the worst User-Agent we know of, in
// the sizes the hit path lets through (cgi/web judges a longer one a bot
// without asking) and a web server would: the needles of the patterns
// that need a program, none of them matching, over and over. Anchored
// patterns try one start only; 8 KiB took 11 ms before that, 2.6 ms
// after, a browser's about 2 us.
func BenchmarkHostileUserAgent(b *testing.B) {
	ua := hostileUA()
	if IsCrawler(ua) {
		b.Fatal("the hostile User-Agent became a crawler's")
	}
	for _, n := range []int{1024, 8192} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				IsCrawler(ua[:n])
			}
		})
	}
}
