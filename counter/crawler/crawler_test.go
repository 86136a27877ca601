package crawler

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/x-way/crawlerdetect"
)

// TestFixtures runs crawlerdetect over its own fixtures and wants the
// same verdict for every user agent.
func TestFixtures(t *testing.T) {
	uas := fixtureAgents(t)
	if len(uas) < 100000 {
		t.Errorf("only %d fixture user agents", len(uas))
	}
	// crawlerdetect takes some 200 µs a user agent: share them out.
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	bad := make([]int, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(uas); i += workers {
				ua := uas[i]
				if got, want := IsCrawler(ua), crawlerdetect.IsCrawler(ua); got != want {
					if bad[w]++; bad[w] <= 10 {
						t.Errorf("user agent %d: IsCrawler(%q) = %v, want %v", i, ua, got, want)
					}
				}
			}
		})
	}
	wg.Wait()
	if n := sum(bad); n > 0 {
		t.Errorf("%d of %d user agents differ", n, len(uas))
	}
	t.Logf("%d user agents compared", len(uas))
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// fixtureAgents returns the user agents of crawlerdetect's fixtures,
// testdata/crawlers.txt and testdata/devices.txt.
func fixtureAgents(tb testing.TB) []string {
	tb.Helper()
	var uas []string
	for _, name := range []string{"crawlers.txt", "devices.txt"} {
		b, err := os.ReadFile(filepath.Join(libDir(tb), "testdata", name))
		if err != nil {
			tb.Fatal(err)
		}
		uas = append(uas, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	return uas
}

// trickyAgents are inputs the fixtures do not cover.
var trickyAgents = []string{
	"",
	" ",
	"\t\n\r\v\f \u0085\u00a0",
	"  Googlebot  ",
	"\u2003bot\u3000",
	"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
	"GOOGLEBOT",
	"curl/8.0",
	"CURL/8.0",
	"\u212Aube-probe/1.29",    // KELVIN SIGN folds to k
	"kube-probe/1.29",         //
	"Googlebo\u212A",          //
	"\u017Fpider",             // LONG S folds to s
	"\u017Fafari/1.0 bot",     //
	"Mozilla/5.0 \u017Fafari", //
	"Safari/1.2.3 Safari\u212A",
	"Sa\xffari bot",
	"\xff\xfe\xfd",
	"bot\xff",
	"\xe2\x84",      // a cut KELVIN SIGN
	"\xe2\x84bot",   //
	"\xc5\xbfpider", // LONG S as bytes
	"\xc5pider",
	"Java/1.8",
	" Java/1.8",
	"xJava/1.8",
	"b0t",
	"b0t\n",
	"\nb0t",
	"b0\nt",
	"a\nbot",
	"Apache-HttpClient/4.5",
	"Opera/9.80 (J2ME/MIDP; Opera Mini/9.80 (S60; SymbOS; Opera Mobi/23.348; U; en) Presto/2.5.25 Version/10.54",
	"Opera Mini/12.34.56.78/12.",
	"super/123/Android/456 bot",
	"CPU iPhone OS 1_2_3 like Mac OS X",
	"CPU iPhone OS 1_2_3 like Mac OS Y crawler",
	"like Gecko/20100101 like Gecko",
	"Mozilla.Mozilla.1.2..3",
	"日本語のユーザーエージェント",
	"Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/116.0.0.0 Mobile Safari/537.36",
	"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
	"Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0",
	strings.Repeat("a", 100000),
	strings.Repeat("a", 100000) + "bot",
	strings.Repeat("Mozilla/5.0 ", 5000),
	strings.Repeat("CPU iPhone OS 1_", 3000),
	strings.Repeat("\u212A", 3000) + "bot",
	strings.Repeat("x\xff", 3000) + "Spider",
}

func TestTricky(t *testing.T) {
	for _, ua := range trickyAgents {
		if got, want := IsCrawler(ua), crawlerdetect.IsCrawler(ua); got != want {
			t.Errorf("IsCrawler(%.80q) = %v, want %v", ua, got, want)
		}
	}
}

// TestEachPattern matches every crawler pattern's own text, each of its
// letters in the other case and with K and S as their Unicode folds, and
// the text with the exclusions around it.
func TestEachPattern(t *testing.T) {
	crawlers, err := readList(filepath.Join(libDir(t), "crawlers.go"), "crawlers")
	if err != nil {
		t.Fatal(err)
	}
	swap := strings.NewReplacer("k", "\u212A", "K", "\u212A", "s", "\u017F", "S", "\u017F")
	for _, pat := range crawlers {
		text := strings.NewReplacer(`\/`, "/", `\.`, ".", `\-`, "-", `\(`, "(", `\)`, ")", `\+`, "+", "^", "", "$", "").Replace(pat)
		for _, ua := range []string{
			text, strings.ToUpper(text), swap.Replace(text), "x" + text + "\n",
			"Mozilla/5.0 (Windows NT 10.0) " + text + " Safari/537.36",
		} {
			if got, want := IsCrawler(ua), crawlerdetect.IsCrawler(ua); got != want {
				t.Errorf("pattern %q: IsCrawler(%q) = %v, want %v", pat, ua, got, want)
			}
		}
	}
}

func FuzzIsCrawler(f *testing.F) {
	for _, ua := range trickyAgents {
		if len(ua) < 1000 {
			f.Add(ua)
		}
	}
	f.Fuzz(func(t *testing.T, ua string) {
		if got, want := IsCrawler(ua), crawlerdetect.IsCrawler(ua); got != want {
			t.Errorf("IsCrawler(%q) = %v, want %v", ua, got, want)
		}
	})
}
