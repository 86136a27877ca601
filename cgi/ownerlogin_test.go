package main

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/counter"
	"hitcounter/store"
)

// cgiPage is one request's answer from the built binary as a CGI child.
type cgiPage struct {
	status  int
	header  http.Header
	cookies []*http.Cookie
	body    string
	stderr  string
}

// cgiCall runs one request through the built binary as a web server
// would: method on path under the script, from addr, with cookies (a
// Cookie header's value, or "") and a form body for a POST.
func cgiCall(t *testing.T, db, method, path, addr, cookies, body string) cgiPage {
	t.Helper()
	env := append(hitEnv(t, db), "REQUEST_METHOD="+method, "PATH_INFO="+path,
		"REQUEST_URI=/cgi-bin/counter.cgi"+path, "QUERY_STRING=", "REMOTE_ADDR="+addr,
		"HTTP_SEC_FETCH_SITE=same-origin", "HTTP_USER_AGENT=Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	if method == "POST" {
		env = append(env, "CONTENT_TYPE=application/x-www-form-urlencoded", "CONTENT_LENGTH="+strconv.Itoa(len(body)))
	}
	if cookies != "" {
		env = append(env, "HTTP_COOKIE="+cookies)
	}
	cmd := exec.Command(counterBinary(t))
	cmd.Env = env
	cmd.Stdin = strings.NewReader(body)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v; stderr %s", method, path, err, errOut.String())
	}
	head, rest, ok := bytes.Cut(out.Bytes(), []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("%s %s: no end of headers in %.200q", method, path, out.Bytes())
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append([]byte("HTTP/1.1 200 OK\r\n"), append(head, "\r\n\r\n"...)...))), nil)
	if err != nil {
		t.Fatalf("%s %s: headers: %v", method, path, err)
	}
	io.Copy(io.Discard, resp.Body)
	status := http.StatusOK
	if s := resp.Header.Get("Status"); s != "" {
		if status, err = strconv.Atoi(strings.Fields(s)[0]); err != nil {
			t.Fatalf("%s %s: Status %q", method, path, s)
		}
	}
	return cgiPage{status, resp.Header, resp.Cookies(), string(rest), errOut.String()}
}

// cookieNamed is the cookie called name that p sets, as NAME=VALUE, or "".
func (p cgiPage) cookieNamed(name string) string {
	for _, c := range p.cookies {
		if c.Name == name && c.Value != "" {
			return c.Name + "=" + c.Value
		}
	}
	return ""
}

// opens reports whether cookies open the statistics page of counter name:
// the page itself, not the login form that stands in for it.
func opens(t *testing.T, db, name, cookies string) bool {
	t.Helper()
	p := cgiCall(t, db, "GET", "/"+name+"/stats", "192.0.2.50", cookies, "")
	return p.status == http.StatusOK && !strings.Contains(p.body, `action="login"`) && strings.Contains(p.body, "· statistics")
}

func form(password string) string { return "password=" + strings.ReplaceAll(password, " ", "+") }

const (
	ownerPassword  = "the owner's own password"
	friendPassword = "a friend's password"
	demoPassword   = "demo's password"
)

// ownerWorld makes counters demo and friend, protected by their own
// passwords, and open, public, and sets the owner's password.
func ownerWorld(t *testing.T) string {
	t.Helper()
	db, _ := grownDB(t, t.TempDir())
	for _, name := range []string{"friend", "open"} {
		if out, err := adminRun(t, db, "create", name); err != nil {
			t.Fatalf("create %s: %v %s", name, err, out)
		}
	}
	for _, set := range []struct{ password, args string }{
		{demoPassword, "passwd demo"}, {friendPassword, "passwd friend"}, {ownerPassword, "passwd -owner"},
	} {
		if out, code := adminStdin(t, db, set.password+"\n", strings.Fields(set.args)...); code != 0 {
			t.Fatalf("%s: %s", set.args, out)
		}
	}
	return db
}

// TestOwnerLoginOpensEveryCounterCGI, through the built binary as CGI:
// the owner's login (POST /login) opens every counter's statistics,
// private or public, and their exports, and sets no cookie that would
// stop counting the owner's views; a counter's own password opens that
// counter alone, not another's and not the owner's page at the root; a
// wrong owner's password is one fail2ban line, counter="*".
func TestOwnerLoginOpensEveryCounterCGI(t *testing.T) {
	db := ownerWorld(t)
	page := cgiCall(t, db, "GET", "/login", "192.0.2.50", "", "")
	if page.status != http.StatusOK || !strings.Contains(page.body, `<form class="login" method="post" action="login">`) {
		t.Fatalf("GET /login: %d %.300s", page.status, page.body)
	}
	if root := cgiCall(t, db, "GET", "/", "192.0.2.50", "", ""); root.status != http.StatusOK || !strings.Contains(root.body, `action="login"`) || strings.Contains(root.body, "friend") {
		t.Errorf("GET / without a login: %d %.300s; want the owner's form, no counter named", root.status, root.body)
	}

	in := cgiCall(t, db, "POST", "/login", "192.0.2.50", "", form(ownerPassword))
	owner := in.cookieNamed("counter_owner_session")
	if in.status != http.StatusSeeOther || in.header.Get("Location") != "./" || owner == "" || in.cookieNamed("counter_owner_device") == "" {
		t.Fatalf("the owner's login: %d to %q, cookies %v; want 303 to ./ with a session and a device cookie", in.status, in.header.Get("Location"), in.cookies)
	}
	for _, c := range in.cookies {
		want := map[string]string{"counter_owner_session": "/cgi-bin/counter.cgi/", "counter_owner_device": "/cgi-bin/counter.cgi/login"}[c.Name]
		if want == "" || c.Path != want || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
			t.Errorf("the owner's login set cookie %s on %q (HttpOnly %v, SameSite %v); want only the owner's session and device, on %q", c.Name, c.Path, c.HttpOnly, c.SameSite, want)
		}
	}
	for _, name := range []string{"demo", "friend", "open"} {
		if !opens(t, db, name, owner) {
			t.Errorf("the owner's session does not open %s's statistics", name)
		}
		if p := cgiCall(t, db, "GET", "/"+name+"/stats.csv", "192.0.2.50", owner, ""); p.status != http.StatusOK {
			t.Errorf("the owner's session: %s's stats.csv answered %d", name, p.status)
		}
	}
	if root := cgiCall(t, db, "GET", "/", "192.0.2.50", owner, ""); root.status != http.StatusOK || !strings.Contains(root.body, `action="logout"`) {
		t.Errorf("GET / as the owner: %d %.300s; want the owner's page", root.status, root.body)
	}
	if again := cgiCall(t, db, "GET", "/login", "192.0.2.50", owner, ""); again.status != http.StatusSeeOther {
		t.Errorf("GET /login as the owner: %d, want 303 on", again.status)
	}
	// The owner's views still count: the login set no owner-device mark.
	if p := cgiCall(t, db, "GET", "/friend/stats", "192.0.2.50", owner, ""); !strings.Contains(p.body, `action="../logout"`) {
		t.Errorf("friend's statistics to the owner lack the owner's logout")
	}

	in = cgiCall(t, db, "POST", "/friend/login", "192.0.2.60", "", form(friendPassword))
	friend := in.cookieNamed("counter_session")
	if in.status != http.StatusSeeOther || friend == "" {
		t.Fatalf("friend's login: %d, cookies %v", in.status, in.cookies)
	}
	if !opens(t, db, "friend", friend) {
		t.Errorf("friend's session does not open friend's statistics")
	}
	if opens(t, db, "demo", friend) {
		t.Errorf("friend's session opens demo's statistics")
	}
	if root := cgiCall(t, db, "GET", "/", "192.0.2.60", friend, ""); strings.Contains(root.body, `action="logout"`) || !strings.Contains(root.body, `action="login"`) {
		t.Errorf("GET / with friend's session: %.300s; want the owner's form", root.body)
	}
	// A counter's password is not the owner's, nor the other way round.
	if p := cgiCall(t, db, "POST", "/login", "198.51.100.9", "", form(friendPassword)); p.status != http.StatusUnauthorized ||
		!strings.Contains(p.stderr, `counter: login failed: counter="*" client=198.51.100.9`) || p.cookieNamed("counter_owner_session") != "" {
		t.Errorf("the owner's login with friend's password: %d, stderr %q; want 401 and fail2ban's line", p.status, p.stderr)
	}
	if p := cgiCall(t, db, "POST", "/friend/login", "198.51.100.10", "", form(ownerPassword)); p.status != http.StatusUnauthorized {
		t.Errorf("friend's login with the owner's password: %d, want 401", p.status)
	}
}

// TestLogoutsApartCGI: the owner's logout ends the owner's sessions and
// no counter's; a counter's logout ends its own sessions, not another
// counter's and not the owner's; a copy of a session cookie that logged
// out is refused.
func TestLogoutsApartCGI(t *testing.T) {
	db := ownerWorld(t)
	login := func(path, password string) string {
		t.Helper()
		p := cgiCall(t, db, "POST", path, "192.0.2.50", "", form(password))
		for _, c := range []string{"counter_session", "counter_owner_session"} {
			if v := p.cookieNamed(c); v != "" {
				return v
			}
		}
		t.Fatalf("login at %s: %d, no session", path, p.status)
		return ""
	}
	owner, demo, friend := login("/login", ownerPassword), login("/demo/login", demoPassword), login("/friend/login", friendPassword)

	out := cgiCall(t, db, "POST", "/logout", "192.0.2.50", owner, "")
	if out.status != http.StatusSeeOther || out.header.Get("Location") != "./" {
		t.Errorf("the owner's logout: %d to %q", out.status, out.header.Get("Location"))
	}
	if opens(t, db, "demo", owner) {
		t.Errorf("a copy of the owner's session still opens demo after the owner's logout")
	}
	if !opens(t, db, "demo", demo) || !opens(t, db, "friend", friend) {
		t.Errorf("the owner's logout ended a counter's session")
	}

	owner = login("/login", ownerPassword)
	if p := cgiCall(t, db, "POST", "/friend/logout", "192.0.2.50", friend, ""); p.status != http.StatusSeeOther {
		t.Errorf("friend's logout: %d", p.status)
	}
	if opens(t, db, "friend", friend) {
		t.Errorf("a copy of friend's session still opens friend after its logout")
	}
	if !opens(t, db, "demo", demo) {
		t.Errorf("friend's logout ended demo's session")
	}
	if !opens(t, db, "friend", owner) || !opens(t, db, "demo", owner) {
		t.Errorf("friend's logout ended the owner's session")
	}
	// A logout at friend by the owner's session ends nobody's.
	cgiCall(t, db, "POST", "/friend/logout", "192.0.2.50", owner, "")
	if !opens(t, db, "friend", owner) {
		t.Errorf("a counter's logout with the owner's session ended the owner's")
	}
}

// TestPasswdOwnerCGI: passwd -owner stores the owner's password at cost
// 10 (read from stdin as passwd NAME reads one), -owner with a name or
// without one and no -owner are usage errors, and -owner -clear removes
// the login: the form then says how to set one, and a login sets nothing.
func TestPasswdOwnerCGI(t *testing.T) {
	db, _ := grownDB(t, t.TempDir())
	php12 := "$2y$12$" + strings.Repeat("a", 53)
	steps := []struct {
		stdin    string
		args     string
		exit     int
		contains string
	}{
		{php12 + "\n", "passwd -owner -hash", 0, "cost 12"},
		{"hunter2\n", "passwd -owner -hash", 1, "not a bcrypt hash"},
		{ownerPassword + "\n", "passwd -owner", 0, "the owner's password is set"},
		{"x\n", "passwd -owner demo", 2, "-owner takes no counter's name"},
		{"x\n", "passwd", 2, "a counter's NAME, or -owner"},
		{"", "passwd -owner -clear -hash", 2, "do not go together"},
		{"\n", "passwd -owner", 1, "empty"},
	}
	for i, st := range steps {
		if out, code := adminStdin(t, db, st.stdin, strings.Fields(st.args)...); code != st.exit || !strings.Contains(out, st.contains) {
			t.Fatalf("%s: exit %d, %q; want %d containing %q", st.args, code, out, st.exit, st.contains)
		}
		if i == 0 {
			if h := ownerLoginIn(t, db).PasswordHash; string(h) != php12 {
				t.Errorf("passwd -owner -hash stored %q, want the hash as it is", h)
			}
		}
	}
	o := ownerLoginIn(t, db)
	if cost, err := bcrypt.Cost(o.PasswordHash); err != nil || cost != counter.PasswordCost {
		t.Errorf("the owner's hash has cost %d (%v), want %d", cost, err, counter.PasswordCost)
	}
	if bcrypt.CompareHashAndPassword(o.PasswordHash, []byte(ownerPassword)) != nil {
		t.Errorf("the owner's hash does not take the password typed")
	}
	owner := cgiCall(t, db, "POST", "/login", "192.0.2.50", "", form(ownerPassword)).cookieNamed("counter_owner_session")
	if owner == "" {
		t.Fatalf("no owner's session")
	}
	if out, code := adminStdin(t, db, "", "passwd", "-owner", "-clear"); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("passwd -owner -clear: %d %s", code, out)
	}
	if o := ownerLoginIn(t, db); o.IsSet() {
		t.Errorf("the owner's hash is still stored after -clear")
	}
	if p := cgiCall(t, db, "GET", "/login", "192.0.2.50", "", ""); p.status != http.StatusOK || !strings.Contains(p.body, "counter passwd -owner") || strings.Contains(p.body, "<form") {
		t.Errorf("GET /login with no owner's password: %d %.300s; want how to set one, no form", p.status, p.body)
	}
	if p := cgiCall(t, db, "POST", "/login", "192.0.2.50", "", form(ownerPassword)); p.status != http.StatusSeeOther || p.cookieNamed("counter_owner_session") != "" {
		t.Errorf("a login with no owner's password: %d, cookies %v; want 303 and none", p.status, p.cookies)
	}
	if p := cgiCall(t, db, "GET", "/", "192.0.2.50", owner, ""); strings.Contains(p.body, `action="logout"`) {
		t.Errorf("the owner's session outlived -clear")
	}
}

func ownerLoginIn(t *testing.T, db string) store.OwnerLogin {
	t.Helper()
	d, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	o, err := d.OwnerLogin()
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// v7Session is a session cookie for counter name as the version 7 binary
// signed it: name.expiry.mac, an HMAC-SHA256 under the file's one session
// key, bound to the password hash.
func v7Session(key []byte, name string, expires time.Time, hash []byte) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	m := hmac.New(sha256.New, key)
	sum := sha256.Sum256(hash)
	m.Write([]byte("counter-session-v1\x00" + name + "\x00" + exp + "\x00"))
	m.Write(sum[:])
	b64 := base64.RawURLEncoding
	return "counter_session=" + b64.EncodeToString([]byte(name)) + "." + exp + "." + b64.EncodeToString(m.Sum(nil))
}

// TestMigrateV7LoginCGI: the committed version 7 file with passwords, in
// place, under this binary: sessions signed as version 7 signed them open
// their counters before and after the first hit moves the file to schema
// 8; a counter's logout ends its own and not the other's; its counters'
// passwords still log in, and passwd -owner adds the owner's login.
func TestMigrateV7LoginCGI(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	b, err := os.ReadFile("../testdata/format/counter-v7-login.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cookies := map[string]string{}
	d, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"blog", "friend"} {
		key, err := d.SessionKey(name) // the file's one key: it is version 7's
		if err != nil {
			t.Fatal(err)
		}
		info, err := d.Counter(name)
		if err != nil {
			t.Fatal(err)
		}
		cookies[name] = v7Session(key, name, time.Now().Add(time.Hour), info.PasswordHash)
	}
	d.Close()
	for _, name := range []string{"blog", "friend"} {
		if !opens(t, db, name, cookies[name]) {
			t.Fatalf("%s's v7 session does not open it in the v7 file", name)
		}
	}
	if p := cgiCall(t, db, "GET", "/open.png", "203.0.113.5", "", ""); p.status != http.StatusOK {
		t.Fatalf("a hit: %d %s", p.status, p.stderr)
	}
	if out, err := adminRun(t, db, "check"); err != nil || !strings.Contains(out, "schema 8,") {
		t.Fatalf("check after the first hit: %v %s; want schema 8", err, out)
	}
	for _, name := range []string{"blog", "friend"} {
		if !opens(t, db, name, cookies[name]) {
			t.Errorf("%s's v7 session does not open it after the upgrade", name)
		}
	}
	if opens(t, db, "blog", cookies["friend"]) {
		t.Errorf("friend's v7 session opens blog")
	}
	cgiCall(t, db, "POST", "/friend/logout", "192.0.2.50", cookies["friend"], "")
	if opens(t, db, "friend", cookies["friend"]) {
		t.Errorf("friend's v7 session outlived its logout")
	}
	if !opens(t, db, "blog", cookies["blog"]) {
		t.Errorf("friend's logout ended blog's v7 session")
	}
	in := cgiCall(t, db, "POST", "/friend/login", "192.0.2.50", "", "password="+strings.ReplaceAll("friend's v7 password", " ", "+"))
	if s := in.cookieNamed("counter_session"); in.status != http.StatusSeeOther || !opens(t, db, "friend", s) {
		t.Errorf("friend's v7 password after the upgrade: %d", in.status)
	}
	if out, code := adminStdin(t, db, ownerPassword+"\n", "passwd", "-owner"); code != 0 {
		t.Fatalf("passwd -owner: %s", out)
	}
	owner := cgiCall(t, db, "POST", "/login", "192.0.2.50", "", form(ownerPassword)).cookieNamed("counter_owner_session")
	if !opens(t, db, "blog", owner) || !opens(t, db, "friend", owner) {
		t.Errorf("the owner's login does not open the migrated counters")
	}
	if !opens(t, db, "blog", cookies["blog"]) {
		t.Errorf("passwd -owner ended blog's v7 session")
	}
}

// TestBareScriptGoesToItsRootCGI: the script asked for without the
// slash (/cgi-bin/counter.cgi, as one types it) sends the browser on to
// its root: from there the owner's form, whose action is "login", would
// post to /cgi-bin/login, outside the script.
func TestBareScriptGoesToItsRootCGI(t *testing.T) {
	db := ownerWorld(t)
	for _, method := range []string{"GET", "HEAD"} {
		p := cgiCall(t, db, method, "", "192.0.2.50", "", "")
		if p.status != http.StatusMovedPermanently || p.header.Get("Location") != "/cgi-bin/counter.cgi/" {
			t.Errorf("%s /cgi-bin/counter.cgi: %d to %q, want 301 to /cgi-bin/counter.cgi/; body %.200q", method, p.status, p.header.Get("Location"), p.body)
		}
	}
	if p := cgiCall(t, db, "GET", "/", "192.0.2.50", "", ""); p.status != http.StatusOK || !strings.Contains(p.body, `action="login"`) {
		t.Errorf("GET /cgi-bin/counter.cgi/: %d %.200q, want the owner's form", p.status, p.body)
	}
}
