package test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestServerOwnerLogin: through each real server, the owner's login
// (passwd -owner, POST /cgi-bin/counter.cgi/login) sets its session on
// the script's whole path and its device token on the login alone, the
// session opens two protected counters' statistics and the owner's page
// at the script's root (the form, without it), and the owner's
// logout ends it while a counter's own login goes on.
func TestServerOwnerLogin(t *testing.T) {
	const ownerPassword = "the owner's " + statsPassword
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		c := newStatsClient(srv.URL)
		for _, name := range []string{"one", "two"} {
			admin(t, cgiDir, dbPath, "create", name)
			adminStdin(t, cgiDir, dbPath, strings.NewReader(statsPassword+"\n"), "passwd", name)
		}
		adminStdin(t, cgiDir, dbPath, strings.NewReader(ownerPassword+"\n"), "passwd", "-owner")
		const mount = "/cgi-bin/counter.cgi"

		if resp, body := c.do(t, "GET", mount+"/login", nil, nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, `action="login"`) {
			t.Fatalf("GET %s/login: %d %.200q", mount, resp.StatusCode, body)
		}
		resp, _ := c.do(t, "POST", mount+"/login", url.Values{"password": {ownerPassword}}, nil)
		var owner *http.Cookie
		for _, ck := range resp.Cookies() {
			switch {
			case ck.Name == "counter_owner_session" && ck.Path == mount+"/" && ck.HttpOnly && ck.SameSite == http.SameSiteStrictMode:
				owner = ck
			case ck.Name == "counter_owner_device" && ck.Path == mount+"/login" && ck.HttpOnly:
			default:
				t.Errorf("the owner's login set %s on %q", ck.Name, ck.Path)
			}
		}
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "./" || owner == nil {
			t.Fatalf("the owner's login: %d to %q, cookies %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Values("Set-Cookie"))
		}
		for _, name := range []string{"one", "two"} {
			resp, body := c.do(t, "GET", mount+"/"+name+"/stats", nil, owner)
			if !statsShown(resp, body) {
				t.Errorf("%s's statistics with the owner's session: %d %.200q", name, resp.StatusCode, body)
			}
			if !strings.Contains(body, `action="../logout"`) {
				t.Errorf("%s's statistics to the owner lack the owner's logout", name)
			}
		}
		if resp, body := c.do(t, "GET", mount+"/", nil, owner); resp.StatusCode != http.StatusOK || !strings.Contains(body, `action="logout"`) {
			t.Errorf("GET %s/ as the owner: %d %.200q; want the owner's page", mount, resp.StatusCode, body)
		}
		if resp, body := c.do(t, "GET", mount+"/", nil, nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, `action="login"`) {
			t.Errorf("GET %s/ without a login: %d %.200q; want the owner's form", mount, resp.StatusCode, body)
		}
		// Without the slash, the form's "login" would leave the script.
		if resp, body := c.do(t, "GET", mount, nil, nil); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != mount+"/" {
			t.Errorf("GET %s: %d to %q %.200q; want a 301 to %s/", mount, resp.StatusCode, resp.Header.Get("Location"), body, mount)
		}
		resp, _ = c.do(t, "POST", mount+"/one/login", url.Values{"password": {statsPassword}}, nil)
		session, err := checkLoginRedirect(resp, mount+"/one/")
		if err != nil {
			t.Fatal(err)
		}
		if resp, _ := c.do(t, "POST", mount+"/logout", url.Values{}, owner); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("the owner's logout: %d", resp.StatusCode)
		}
		if _, body := c.do(t, "GET", mount+"/two/stats", nil, owner); !strings.Contains(body, `action="login"`) {
			t.Errorf("the owner's session outlived its logout")
		}
		if resp, body := c.do(t, "GET", mount+"/one/stats", nil, session); !statsShown(resp, body) {
			t.Errorf("the owner's logout ended one's own login")
		}
	})
}

// statsShown reports whether the answer is a statistics page, not the
// login form that stands in for it.
func statsShown(resp *http.Response, body string) bool {
	return resp.StatusCode == http.StatusOK && strings.Contains(body, `<svg class="chart"`) && !strings.Contains(body, `action="login"`)
}

// TestServerFail2banOwner: a wrong password at the owner's login is the
// same line as at a counter's, with counter="*", and the shipped filter
// counts it with the client's address, through each real server.
func TestServerFail2banOwner(t *testing.T) {
	regexBin := serverBinary(t, "fail2ban", "fail2ban-regex", "/usr/bin/fail2ban-regex")
	const tries = 2
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", "f2b")
		adminStdin(t, cgiDir, dbPath, strings.NewReader(statsPassword+"\n"), "passwd", "-owner")
		c := newStatsClient(srv.URL)
		for i := range tries {
			if resp, _ := c.do(t, "POST", "/cgi-bin/counter.cgi/login", url.Values{"password": {wrongPasswords[0]}}, nil); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("wrong owner's password %d: got %d, want 401", i+1, resp.StatusCode)
			}
		}
		stderr, err := srv.CGIStderr()
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(stderr, `counter: login failed: counter="*" client=127.0.0.1`); n != tries {
			t.Errorf("CGI stderr has %d owner's \"login failed\" lines for %d wrong passwords:\n%s", n, tries, stderr)
		}
		var hosts []string
		for _, m := range fail2banMatches(t, regexBin, srv.CGILog) {
			hosts = append(hosts, m.host)
		}
		if len(hosts) != tries || hosts[0] != "127.0.0.1" || hosts[1] != "127.0.0.1" {
			t.Errorf("fail2ban-regex %s: got hosts %q, want 127.0.0.1 twice", srv.CGILog, hosts)
		}
	})
}
