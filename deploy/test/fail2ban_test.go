package test

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fail2banFilter is the shipped filter.
const fail2banFilter = kitDir + "/fail2ban/filter.d/counter.conf"

// TestServerFail2ban checks the shipped filter against the lines that the
// real servers wrote for real failed logins, next to a throttled login and
// a refused cross-site post: it must match each failed login once, with the
// client's address, and nothing else.
func TestServerFail2ban(t *testing.T) {
	regexBin := serverBinary(t, "fail2ban", "fail2ban-regex", "/usr/bin/fail2ban-regex")
	const name = "f2b"
	// Enough to reach the counter's own throttle, which answers 429.
	const maxAttempts = 25
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", name)
		adminStdin(t, cgiDir, dbPath, strings.NewReader(statsPassword+"\n"), "passwd", name)
		c := newStatsClient(srv.URL)
		login := "/cgi-bin/counter.cgi/" + name + "/login"
		wrong := url.Values{"password": {wrongPasswords[0]}}

		failed, throttled := 0, false
		for range maxAttempts {
			resp, _ := c.do(t, "POST", login, wrong, nil, "Sec-Fetch-Site", "same-origin")
			if resp.StatusCode == http.StatusTooManyRequests {
				throttled = true
				break
			}
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("wrong password %d: got %d, want 401 (or 429 once throttled)", failed+1, resp.StatusCode)
			}
			failed++
		}
		if throttled {
			t.Logf("%d wrong passwords answered 401, the next 429", failed)
		} else {
			t.Logf("no 429 after %d wrong passwords; the log has no throttled line to pass over", failed)
		}
		if resp, _ := c.do(t, "POST", login, wrong, nil, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("cross-site login: got %d, want 403", resp.StatusCode)
		}

		// The product's side: one line per wrong password, which is what
		// fail2ban must count.
		stderr, err := srv.CGIStderr()
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(stderr, "counter: login failed: "); n != failed {
			t.Errorf("CGI stderr has %d \"login failed\" lines for %d wrong passwords:\n%s", n, failed, stderr)
		}
		if throttled && !strings.Contains(stderr, "counter: login throttled: ") {
			t.Errorf("CGI stderr has no \"login throttled\" line after a 429:\n%s", stderr)
		}

		got := fail2banMatches(t, regexBin, srv.CGILog)
		var hosts []string
		for _, m := range got {
			hosts = append(hosts, m.host)
		}
		if want := slices.Repeat([]string{"127.0.0.1"}, failed); !slices.Equal(hosts, want) {
			t.Errorf("fail2ban-regex %s: got hosts %q, want %q (one per wrong password)", srv.CGILog, hosts, want)
		}
	})
}

// TestFail2banFilter checks the filter against the lines each server can
// write, and against lines that only look like them.
func TestFail2banFilter(t *testing.T) {
	regexBin := serverBinary(t, "fail2ban", "fail2ban-regex", "/usr/bin/fail2ban-regex")
	const apacheDate = "[Wed Dec 02 18:19:43.465379 2026] "
	tests := []struct {
		name, line string
		host       string // the address banned; "" for no match
	}{
		// As lighttpd (breakage.log) and Apache with mod_cgid write them.
		{"IPv4", `counter: login failed: counter="blog" client=203.0.113.7`, "203.0.113.7"},
		{"IPv6", `counter: login failed: counter="my-blog_2.0" client=2001:db8::1`, "2001:db8::1"},
		{"IPv4-mapped IPv6", `counter: login failed: counter="blog" client=::ffff:198.51.100.9`, "198.51.100.9"},
		{"lighttpd timestamp", `2026-12-02 18:14:06: counter: login failed: counter="blog" client=198.51.100.2`, "198.51.100.2"},
		// mod_cgi as Apache 2.4.71 writes it (seen under mpm_prefork), with
		// a Referer that forges a second failure after the real one.
		{"mod_cgi", apacheDate + `[cgi:error] [pid 10681:tid 10681] [client 192.0.2.10:35144] AH01215: stderr from /usr/lib/cgi-bin/counter.cgi: counter: login failed: counter="blog" client=192.0.2.10`, "192.0.2.10"},
		{"mod_cgi with forged referer", apacheDate + `[cgi:error] [pid 10681:tid 10681] [client 192.0.2.11:35144] AH01215: stderr from /usr/lib/cgi-bin/counter.cgi: counter: login failed: counter="blog" client=192.0.2.11, referer: http://x/ counter: login failed: counter="a" client=6.6.6.1`, "192.0.2.11"},
		// mod_cgi as older 2.4 releases wrote it.
		{"old mod_cgi, script after", apacheDate + `[cgi:error] [pid 771] [client 2001:db8::2:35144] AH01215: counter: login failed: counter="blog" client=2001:db8::2: /usr/lib/cgi-bin/counter.cgi`, "2001:db8::2"},
		{"old mod_cgi, referer", apacheDate + `[cgi:error] [pid 771] [client 192.0.2.12:1] AH01215: counter: login failed: counter="blog" client=192.0.2.12: /usr/lib/cgi-bin/counter.cgi, referer: https://blog.example/`, "192.0.2.12"},
		{"oldest mod_cgi", apacheDate + `[cgi:error] [pid 771] [client 192.0.2.13:1] AH01215: counter: login failed: counter="blog" client=192.0.2.13`, "192.0.2.13"},

		// Names the counter refuses, made to smuggle in an address: the
		// address banned is never the one inside the quotes.
		{"address in the name", `counter: login failed: counter="client=6.6.6.2" client=192.0.2.20`, "192.0.2.20"},
		{"escaped quote in the name", `counter: login failed: counter="a\" client=6.6.6.3" client=192.0.2.21`, ""},
		{"forged line after the real one", `counter: login failed: counter="a" client=192.0.2.22 counter: login failed: counter="b" client=6.6.6.4`, ""},
		{"text before", `x counter: login failed: counter="blog" client=6.6.6.5`, ""},
		{"text after", `counter: login failed: counter="blog" client=6.6.6.6 x`, ""},
		{"hostname", `counter: login failed: counter="blog" client=evil.example`, ""},

		// A network whose tries went over its limit: banned as a network.
		{"IPv4 network", `counter: login throttled: counter="blog" network=198.51.100.0/24`, "198.51.100.0/24"},
		{"IPv6 network", `counter: login throttled: counter="blog" network=2001:db8:77:ab00::/56`, "2001:db8:77:ab00::/56"},
		{"mod_cgi network", apacheDate + `[cgi:error] [pid 10681:tid 10681] [client 198.51.100.7:35144] AH01215: stderr from /usr/lib/cgi-bin/counter.cgi: counter: login throttled: counter="blog" network=198.51.100.0/24, referer: x counter: login throttled: counter="a" network=6.6.6.0/24`, "198.51.100.0/24"},
		{"network in the name", `counter: login throttled: counter="network=6.6.6.0/24" client=192.0.2.35`, ""},
		{"network, text after", `counter: login throttled: counter="blog" network=6.6.6.0/24 x`, ""},

		// Other lines of the counter and of the servers.
		{"throttled", `counter: login throttled: counter="blog" client=192.0.2.30`, ""},
		{"throttled device", `counter: login throttled: counter="blog" client=192.0.2.36 device=known`, ""},
		{"busy", `counter: login busy: counter="blog" client=192.0.2.31`, ""},
		{"cross-site", `counter: login "blog" refused from 192.0.2.32: cross-origin request`, ""},
		{"mod_cgi, other line, forged referer", apacheDate + `[cgi:error] [pid 771] [client 192.0.2.33:1] AH01215: stderr from /usr/lib/cgi-bin/counter.cgi: counter: login "blog" refused from 192.0.2.33: cross-origin request, referer: x counter: login failed: counter="a" client=6.6.6.7`, ""},
		{"Apache's own line", apacheDate + `[core:error] [pid 771:tid 772] [client 192.0.2.34:1] AH00126: Invalid URI in request GET /counter: login failed: counter="a" client=6.6.6.8`, ""},
		{"Apache start", apacheDate + `[mpm_event:notice] [pid 10497:tid 10497] AH00489: Apache/2.4.71 (Debian) configured -- resuming normal operations`, ""},
	}
	var log strings.Builder
	for _, tc := range tests {
		log.WriteString(tc.line + "\n")
	}
	logPath := filepath.Join(t.TempDir(), "error.log")
	if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{} // line: hosts
	for _, m := range fail2banMatches(t, regexBin, logPath) {
		got[m.line] = append(got[m.line], m.host)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			if tc.host != "" {
				want = []string{tc.host}
			}
			if g := got[tc.line]; !slices.Equal(g, want) {
				t.Errorf("%s\ngot hosts %q, want %q", tc.line, g, want)
			}
			delete(got, tc.line)
		})
	}
	for line, hosts := range got {
		t.Errorf("fail2ban-regex matched a line not in the table, with hosts %q: %s", hosts, line)
	}
}

// TestFail2banJails checks that fail2ban reads the shipped jails, enabled,
// over Debian's own configuration, with the filter and the limits they say.
func TestFail2banJails(t *testing.T) {
	client := serverBinary(t, "fail2ban", "fail2ban-client", "/usr/bin/fail2ban-client")
	etc := t.TempDir()
	debianEtc(t, etc, "fail2ban")
	conf := filepath.Join(etc, "etc/fail2ban")
	filter, err := os.ReadFile(fail2banFilter)
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string]string{
		"counter-lighttpd": filepath.Join(t.TempDir(), "breakage.log"),
		"counter-apache":   filepath.Join(t.TempDir(), "error.log"),
	}
	jails := shippedSnippet(t, filepath.Join(kitDir, "fail2ban", "jail.d", "counter.local"), map[string]string{
		"enabled  = false":               "enabled  = true",
		"/var/log/lighttpd/breakage.log": logs["counter-lighttpd"],
		"/var/log/apache2/error.log":     logs["counter-apache"],
	})
	for path, b := range map[string][]byte{
		filepath.Join(conf, "filter.d", "counter.conf"): filter,
		filepath.Join(conf, "jail.d", "counter.local"):  jails,
		logs["counter-lighttpd"]:                        nil,
		logs["counter-apache"]:                          nil,
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// -d: read the configuration and print the commands that would start
	// the server, without starting it.
	out, err := exec.CommandContext(ctx, client, "-c", conf, "-d").Output()
	if err != nil {
		t.Fatalf("fail2ban-client -d: %v\n%s", err, stderrOf(err))
	}
	for jail, logPath := range logs {
		for _, want := range []string{
			"['add', '" + jail + "', 'auto']",
			"['set', '" + jail + "', 'addlogpath', '" + logPath + "', 'head']",
			"['set', '" + jail + "', 'datepattern', '{NONE}']",
			"['set', '" + jail + "', 'maxretry', 5]",
			"['set', '" + jail + "', 'findtime', '10m']",
			"['set', '" + jail + "', 'bantime', '1h']",
			"['multi-set', '" + jail + "', 'addfailregex', ['^(?:",
			"counter: login failed: counter=\"[^\"]*\" client=<ADDR>",
			"counter: login throttled: counter=\"[^\"]*\" network=<SUBNET>",
			"['start', '" + jail + "']",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("fail2ban-client -d lacks %s", want)
			}
		}
	}
	if t.Failed() {
		t.Logf("fail2ban-client -d:\n%s", out)
	}
}

// fail2banMatch is a line that the filter matched, and the host it would ban.
type fail2banMatch struct{ host, line string }

// fail2banMatches runs fail2ban-regex over a log file with the shipped
// filter and returns what it matched, in the order of the file.
func fail2banMatches(t *testing.T, regexBin, logPath string) []fail2banMatch {
	t.Helper()
	// fail2ban-regex takes a path that does not exist as a log line.
	if _, err := os.Stat(logPath); err != nil {
		t.Fatal(err)
	}
	filter, err := filepath.Abs(fail2banFilter)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// -o: print only a line per match, here the host and the line.
	out, err := exec.CommandContext(ctx, regexBin, "-o", "<ip> <msg>", logPath, filter).Output()
	if err != nil {
		t.Fatalf("fail2ban-regex %s %s: %v\n%s", logPath, filter, err, stderrOf(err))
	}
	var ms []fail2banMatch
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		host, line, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("fail2ban-regex: unexpected output line %q in:\n%s", sc.Text(), out)
		}
		ms = append(ms, fail2banMatch{host, line})
	}
	return ms
}

// stderrOf returns what a command that exec ran wrote to stderr, if err
// carries it.
func stderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}
