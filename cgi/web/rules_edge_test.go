package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"hitcounter/counter"
)

// Edges of the counting rules and the owner's cookie that an outside
// review found, each a bug before it was fixed.

// kindOf sends one hit and reads which kind of the day's tally it added to.
func (c *clockApp) kindOf(t *testing.T, h hit) counter.Kind {
	t.Helper()
	before, _ := c.today(t)
	c.send(h)
	after, _ := c.today(t)
	if after.Views > before.Views {
		return counter.View
	}
	for _, k := range counter.NotCountedKinds {
		if after.NotCounted[k] > before.NotCounted[k] {
			return k
		}
	}
	t.Fatal("the hit was not tallied")
	return 0
}

// A page on a host of more than 100 bytes, which ReferrerHost cannot
// read, is foreign on a counter with a referrer list: it is not "no
// Referer", which counts.
func TestUnreadableRefererIsForeign(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		c := newClockApp(t, mode, "referrers=example.org")
		long := strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + ".evil.example"
		got := c.kindOf(t, hit{addr: "192.0.2.1", ua: chromeUA, hdr: []string{"Referer", "https://" + long + "/page"}})
		if got != counter.Foreign {
			t.Errorf("a hit from a page on %d-byte host %s...: got %v, want foreign", len(long), long[:20], got)
		}
	})
}

// A zoned link-local peer (as REMOTE_ADDR can be, "fe80::1%eth0") is on
// an ignore list that holds fe80::/10, though netip.Prefix.Contains is
// false for any zoned address.
func TestZonedAddressIgnored(t *testing.T) {
	c := newClockApp(t, OneRequest, "ignore=fe80::/10")
	if got := c.kindOf(t, hit{addr: "fe80::1%eth0", ua: chromeUA}); got != counter.Ignored {
		t.Errorf("a hit from fe80::1%%eth0 with fe80::/10 ignored: got %v, want ignored", got)
	}
}

// A GET of the statistics page with a cookie named counter_owner, which
// anyone can send to a public page, writes nothing: it used to make the
// owner key in a write transaction (two fdatasyncs, and the migration of
// a version 1 file).
func TestStatsGETWritesNothing(t *testing.T) {
	c := newClockApp(t, OneRequest)
	before, err := os.ReadFile(c.cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/c/stats", nil)
	r.AddCookie(&http.Cookie{Name: ownerCookie, Value: "x"})
	w := httptest.NewRecorder()
	c.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("GET /c/stats: %d", w.Code)
	}
	after, err := os.ReadFile(c.cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("an anonymous GET of the public statistics page with a made-up owner cookie changed the database file")
	}
}
