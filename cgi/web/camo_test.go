package web

import (
	"net/http"
	"net/netip"
	"testing"

	"hitcounter/counter"
)

// A hit that says it is GitHub's image proxy is one only from GitHub's
// addresses: from anywhere else it is judged as any hit, and the counter's
// ignore list and referrer list hold against it. The attack of issue 25,
// 20 hits from an ignored address on a foreign page, counts nothing; the
// proxy itself still counts every time.
func TestForgedGitHubCamo(t *testing.T) {
	settings := []string{"ignore=198.51.100.0/24", "referrers=example.org"}
	const ignored, stranger = "198.51.100.7", "203.0.113.9"
	foreign := []string{"Referer", "https://evil.example/readme"}
	cases := []struct {
		name string
		hit  hit
		// proxy is set when the hit is GitHub's proxy and counts.
		proxy bool
	}{
		{"forged, from an ignored address", hit{addr: ignored, ua: camoUA}, false},
		{"forged, from an ignored address, on a foreign page", hit{addr: ignored, ua: camoUA, hdr: foreign}, false},
		{"forged, on a foreign page", hit{addr: stranger, ua: camoUA, hdr: foreign}, false},
		{"forged, from an ignored IPv6 address mapped", hit{addr: "::ffff:" + ignored, ua: camoUA}, false},
		{"the proxy", hit{addr: camoAddr, ua: camoUA}, true},
		{"the proxy, on IPv6", hit{addr: "2a0a:a440::1", ua: camoUA}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachMode(t, func(t *testing.T, mode Mode) {
				app := newClockApp(t, mode, settings...)
				const n = 20
				for i := range n {
					if w := app.send(c.hit); w.Code != http.StatusOK {
						t.Fatalf("hit %d: status %d", i, w.Code)
					}
				}
				got, info := app.today(t)
				var want counter.Tally
				for range n {
					if c.proxy {
						want.Add(counter.Outcome{Kind: counter.GitHub})
					} else {
						want.Add(counter.Outcome{Kind: counter.Bot})
					}
				}
				if got != want || info.Count != want.Views {
					t.Errorf("after %d hits: tally %+v, count %d\nwant %+v, count %d", n, got, info.Count, want, want.Views)
				}
				if n := total(t, app.App, "c"); n != want.Views {
					t.Errorf("the image shows %d, want %d", n, want.Views)
				}
			})
		})
	}
}

// Behind a front end the owner trusts, the proxy is known by the address
// the front end names; a stranger who names GitHub's address in his own
// X-Forwarded-For is still a stranger.
func TestGitHubCamoBehindTrustedProxy(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		app := newClockApp(t, mode)
		app.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
		xff := []string{"X-Forwarded-For", camoAddr}
		app.send(hit{addr: "10.0.0.1", ua: camoUA, hdr: xff})    // through the front end
		app.send(hit{addr: "203.0.113.9", ua: camoUA, hdr: xff}) // straight, with a forged header
		got, _ := app.today(t)
		if got.GitHub != 1 || got.Views != 1 || got.NotCounted[counter.Bot] != 1 {
			t.Errorf("tally %+v; want one view through GitHub's proxy and one bot", got)
		}
	})
}
