package test

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// v7Release is a commit of main whose binary writes schema version 7, the
// last before the owner's login and a session key per counter (124904c,
// main when schema 8 was made). Its file (written by schema 7's store,
// store/format_v7login_test.go): blog and friend, counters with
// passwords, and open, a public one, with the one session key of schema 7.
var v7Release = &release{commit: "124904c07c0768fc0534362c2848174aa00443d7", file: "testdata/format/counter-v7-login.db", schema: 7}

// cgiRequest runs bin as the CGI child of a same-origin request: method
// on path under the script, from addr, with a Cookie header if cookie is
// not "", and body as a form. It returns the answer's header block and its
// stderr.
func cgiRequest(t *testing.T, bin, db, method, path, cookie, body string) (string, string) {
	t.Helper()
	env := []string{
		"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=" + method, "SERVER_PROTOCOL=HTTP/1.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "REQUEST_URI=/cgi-bin/counter.cgi" + path,
		"HTTP_HOST=127.0.0.1", "REMOTE_ADDR=192.0.2.30", "HTTP_USER_AGENT=" + firefoxUA, "HTTP_SEC_FETCH_SITE=same-origin",
		"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + db + ".run", "COUNTER_WAIT=10s",
	}
	if method == "POST" {
		env = append(env, "CONTENT_TYPE=application/x-www-form-urlencoded", "CONTENT_LENGTH="+strconv.Itoa(len(body)))
	}
	if cookie != "" {
		env = append(env, "HTTP_COOKIE="+cookie)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = testenv.OwnRunDir(t, env)
	cmd.Stdin = strings.NewReader(body)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", method, path, err, errOut.String())
	}
	head, rest, _ := strings.Cut(out.String(), "\r\n\r\n")
	return head + "\r\n\r\n" + rest, errOut.String()
}

var sessionSet = regexp.MustCompile(`(?m)^Set-Cookie: (counter(?:_owner)?_session=[A-Za-z0-9_.-]+);`)

// statsOpen reports whether cookie opens counter name's statistics under
// bin: the page, not the login form.
func statsOpen(t *testing.T, bin, db, name, cookie string) bool {
	t.Helper()
	out, _ := cgiRequest(t, bin, db, "GET", "/"+name+"/stats", cookie, "")
	return strings.Contains(out, `<svg class="chart"`) && !strings.Contains(out, `action="login"`)
}

// TestMigrateV7File: sessions the schema 7 release's binary made, on its
// own file, open their counters under this tree's binary before and after
// its first hit moves the file to schema 8; a counter's logout then ends
// its own sessions and not the other counter's; passwd -owner adds the
// owner's login; and the v7 binary refuses the migrated file.
func TestMigrateV7File(t *testing.T) {
	bin, old := buildCounter(t), v7Release.build(t)
	db := v7Release.copyFile(t)
	env := []string{"COUNTER_DB=" + db}
	listed, errOut, err := runBin(t, old, env, "list")
	if err != nil || !strings.Contains(listed, "friend") {
		t.Fatalf("the v7 binary's list of its own file: %v\n%s%s", err, listed, errOut)
	}
	if out, errOut, err := runBin(t, bin, env, "list"); err != nil || out != listed {
		t.Errorf("the new binary lists the v7 file otherwise (%v):\n%s%s\nthe v7 binary:\n%s", err, out, errOut, listed)
	}
	sessions := map[string]string{}
	for name, password := range map[string]string{"blog": "blog's v7 password", "friend": "friend's v7 password"} {
		out, errOut := cgiRequest(t, old, db, "POST", "/"+name+"/login", "", "password="+strings.ReplaceAll(password, " ", "+"))
		m := sessionSet.FindStringSubmatch(out)
		if !strings.HasPrefix(out, "Status: 303") || m == nil {
			t.Fatalf("the v7 binary's login to %s: %.300q\n%s", name, out, errOut)
		}
		sessions[name] = m[1]
	}
	if n := checkFile(t, bin, db); n != 7 {
		t.Fatalf("after the v7 binary's logins: schema %d, want 7", n)
	}
	for name, cookie := range sessions {
		if !statsOpen(t, bin, db, name, cookie) {
			t.Errorf("%s's v7 session does not open it under the new binary, before the upgrade", name)
		}
	}
	if out, errOut, err := runBin(t, bin, browserEnv(db, "open", "192.0.2.10")); err != nil || !strings.HasPrefix(out, "Status: 200") {
		t.Fatalf("first hit by the new binary: %v\n%.200q\n%s", err, out, errOut)
	}
	if n := checkFile(t, bin, db); n != schemaNow {
		t.Errorf("after the first hit: schema %d, want %d", n, schemaNow)
	}
	for name, cookie := range sessions {
		if !statsOpen(t, bin, db, name, cookie) {
			t.Errorf("%s's v7 session does not open it after the upgrade", name)
		}
	}
	if statsOpen(t, bin, db, "blog", sessions["friend"]) {
		t.Errorf("friend's v7 session opens blog")
	}
	cgiRequest(t, bin, db, "POST", "/friend/logout", sessions["friend"], "")
	if statsOpen(t, bin, db, "friend", sessions["friend"]) {
		t.Errorf("friend's v7 session outlived its logout")
	}
	if !statsOpen(t, bin, db, "blog", sessions["blog"]) {
		t.Errorf("friend's logout ended blog's v7 session")
	}
	out, errOut, err := runBinStdin(t, bin, env, "the owner's password\n", "passwd", "-owner")
	if err != nil {
		t.Fatalf("passwd -owner on the migrated file: %v\n%s%s", err, out, errOut)
	}
	out, _ = cgiRequest(t, bin, db, "POST", "/login", "", "password=the+owner%27s+password")
	m := sessionSet.FindStringSubmatch(out)
	if m == nil || !statsOpen(t, bin, db, "friend", m[1]) || !statsOpen(t, bin, db, "blog", m[1]) {
		t.Errorf("the owner's login on the migrated file does not open its counters: %.300q", out)
	}
	before := fileSum(t, db)
	out, errOut, err = runBin(t, old, browserEnv(db, "open", "192.0.2.12"))
	if err != nil || strings.HasPrefix(out, "Status: 200") || !strings.Contains(errOut, "newer version of the counter") {
		t.Errorf("a hit by the v7 binary on the migrated file: %v\n%.200q\nstderr %s\nwant a refusal naming the newer version", err, out, errOut)
	}
	if fileSum(t, db) != before {
		t.Errorf("the v7 binary changed the migrated file")
	}
	if out, errOut, err := runBin(t, bin, env, "check"); err != nil {
		t.Errorf("check after all: %v\n%s%s", err, out, errOut)
	}
}

// runBinStdin is runBin with stdin.
func runBinStdin(t testing.TB, bin string, env []string, stdin string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = testenv.OwnRunDir(t, env)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}
