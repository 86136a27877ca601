package test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// TestServerLoginFlood runs the flood of issue 11 against real lighttpd,
// as CGI and as FastCGI: 8 clients (96 under FastCGI, more than the 64
// logins and the 64 bodies a FastCGI process takes in hand) post wrong passwords as fast as they
// can, each moving to another address every 4 tries, half from IPv4 (one
// /24) and half from IPv6 (households of one /48, each moving through the
// /64s of its /56), forwarded by 127.0.0.1, which the
// counter trusts. Meanwhile the owner logs in from a browser that has
// logged in before. The owner must get in every time; the strangers'
// bcrypt runs stay within their networks' limits; and fail2ban-regex, on
// the log the server wrote, bans the /24 and the households' /56s, never
// the whole /48, and no single address five times.
func TestServerLoginFlood(t *testing.T) {
	regexBin := serverBinary(t, "fail2ban", "fail2ban-regex", "/usr/bin/fail2ban-regex")
	bin := serverBinary(t, "lighttpd", lighttpdBins...)
	const (
		name          = "flood"
		triesPerAddr  = 4
		ownerLogins   = 10
		ownerAddr     = "203.0.113.9"
		networkLimit  = 15 // tries a minute per network, as the README says
		maxRetry      = 5  // the shipped jail's
		floodDuration = 5 * time.Second
	)
	for _, fastCGI := range []bool{false, true} {
		// FastCGI holds back the answer to a client refused again for
		// 2 s, so there each attacker sends far fewer tries: more of them
		// make a flood that goes over the networks' limits all the same.
		label, attackers := "lighttpd", 8
		if fastCGI {
			label, attackers = "lighttpd-fastcgi", 96
		}
		t.Run(label, func(t *testing.T) {
			cgiDir, dbPath := installCounter(t)
			trusted := `"COUNTER_RUN_DIR" => "` + testenv.RunDirOf(dbPath) + `", "COUNTER_TRUSTED_PROXIES" => "127.0.0.1",`
			srv := startLighttpdWith(t, bin, cgiDir, dbPath, fastCGI, map[string]string{
				`"COUNTER_RUN_DIR" => "/run/counter",`: trusted,
			})
			admin(t, cgiDir, dbPath, "create", name)
			adminStdin(t, cgiDir, dbPath, strings.NewReader(statsPassword+"\n"), "passwd", name)
			c := newStatsClient(srv.URL)
			login := "/cgi-bin/counter.cgi/" + name + "/login"
			right := url.Values{"password": {statsPassword}}

			// The owner's browser logs in once before the flood.
			resp, _ := c.do(t, "POST", login, right, nil, "X-Forwarded-For", ownerAddr)
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("the owner's first login: got %d, want 303", resp.StatusCode)
			}
			var device *http.Cookie
			for _, ck := range resp.Cookies() {
				if ck.Name == "counter_device" {
					device = ck
				}
			}
			if device == nil {
				t.Fatalf("the first login gave no device cookie: %v", resp.Header)
			}

			var (
				stop    atomic.Bool
				mu      sync.Mutex
				flood   = map[int]int{}
				addrs   atomic.Int64
				wg      sync.WaitGroup
				floodHC = &http.Client{Timeout: 20 * time.Second,
					CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			)
			for a := range attackers {
				wg.Go(func() {
					local := map[int]int{}
					for i := 0; !stop.Load(); i++ {
						// Addresses of the /24 in turn, or a new /64 of
						// the attacker's /56 each time.
						if i%triesPerAddr == 0 {
							addrs.Add(1)
						}
						n := i / triesPerAddr
						addr := fmt.Sprintf("198.51.100.%d", (a*37+n)%254+1)
						if a%2 == 1 {
							addr = fmt.Sprintf("2001:db8:77:%x::1", (a%16)<<8|n%256)
						}
						local[postLogin(floodHC, srv.URL+login, "wrong", addr)]++
					}
					mu.Lock()
					defer mu.Unlock()
					for s, k := range local {
						flood[s] += k
					}
				})
			}
			owner := map[int]int{}
			start := time.Now()
			for range ownerLogins {
				time.Sleep(floodDuration / ownerLogins)
				resp, _ := c.do(t, "POST", login, right, device, "X-Forwarded-For", ownerAddr)
				owner[resp.StatusCode]++
			}
			stop.Store(true)
			wg.Wait()
			t.Logf("%s: in %v, %d address changes: flood answers %v; the owner's %d logins: %v",
				label, time.Since(start).Round(time.Millisecond), addrs.Load(), flood, ownerLogins, owner)
			if owner[http.StatusSeeOther] != ownerLogins {
				t.Errorf("got the owner's logins %v, want %d × 303", owner, ownerLogins)
			}

			stderr, err := srv.CGIStderr()
			if err != nil {
				t.Fatal(err)
			}
			// Each wrong password checked is a "login failed" line; the owner
			// sent none. Two networks, each at most networkLimit a minute.
			runs := strings.Count(stderr, "counter: login failed: ")
			t.Logf("bcrypt runs for the flood: %d, cap %d (2 networks × %d a minute)", runs, 2*networkLimit, networkLimit)
			if runs > 2*networkLimit {
				t.Errorf("got %d bcrypt runs for the flood, want at most %d", runs, 2*networkLimit)
			}

			perHost := map[string]int{}
			for _, m := range fail2banMatches(t, regexBin, srv.CGILog) {
				perHost[m.host]++
			}
			t.Logf("fail2ban-regex matches per host: %v", summarise(perHost))
			if perHost["198.51.100.0/24"] < maxRetry {
				t.Errorf("fail2ban-regex: %d matches for 198.51.100.0/24, want at least %d (a ban)", perHost["198.51.100.0/24"], maxRetry)
			}
			banned56 := 0
			for host, n := range perHost {
				if strings.HasPrefix(host, "2001:db8:77:") && strings.HasSuffix(host, "/56") && n >= maxRetry {
					banned56++
				}
			}
			if banned56 == 0 || perHost["2001:db8:77::/48"] > 0 {
				t.Errorf("fail2ban-regex: %d IPv6 /56s banned and %d matches for the /48; want a /56 banned and the /48 never named", banned56, perHost["2001:db8:77::/48"])
			}
			for host, n := range perHost {
				if !strings.Contains(host, "/") && n >= maxRetry {
					t.Errorf("fail2ban-regex: %d matches for the single address %s, which the counter lets try 5 times a minute", n, host)
				}
			}
		})
	}
}

// postLogin posts a password from addr, forwarded by the trusted proxy,
// and returns the status, or 0 on a transport error.
func postLogin(hc *http.Client, u, password, addr string) int {
	req, err := http.NewRequest("POST", u, strings.NewReader(url.Values{"password": {password}}.Encode()))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// summarise shows the networks and how many single addresses matched.
func summarise(perHost map[string]int) string {
	var b strings.Builder
	addrs, most := 0, 0
	for host, n := range perHost {
		if strings.Contains(host, "/") {
			fmt.Fprintf(&b, "%s: %d, ", host, n)
		} else {
			addrs++
			most = max(most, n)
		}
	}
	fmt.Fprintf(&b, "%d single addresses, at most %d each", addrs, most)
	return b.String()
}
