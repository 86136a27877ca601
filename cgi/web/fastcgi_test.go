package web

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/gateway"
)

// startFastCGI serves a's handler as FastCGI on a unix socket until the
// test ends, and returns the socket's path.
func startFastCGI(t testing.TB, a *App) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	closeApp := a.longLived()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- gateway.ServeFastCGI(ctx, ln, a.Handler(), gateway.Options{Log: a.log, Refuse: a.Refuse})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeFastCGI returned %v after cancel, want nil", err)
		}
		closeApp()
	})
	return sock
}

func TestFastCGIServesTheApp(t *testing.T) {
	a, _ := testApp(t, "demo")
	c := fcgitest.MustDial(t, startFastCGI(t, a))
	// Three requests on one kept connection, with ids as lighttpd and
	// mod_fcgid use them.
	for i, tc := range []struct {
		env    map[string]string
		status int
		ctype  string
	}{
		{fcgitest.Env("GET", "/demo.png", "digits=4"), 200, "image/png"},
		{fcgitest.Env("GET", "/demo.json", ""), 200, "application/json"},
		{fcgitest.Env("GET", "/nope.png", ""), 404, "image/png"},
	} {
		out, status, err := c.Request(uint16(i+1), true, tc.env, nil, 0)
		if err != nil || status != fcgitest.RequestComplete {
			t.Fatalf("request %d: %v, protocol status %d", i, err, status)
		}
		ans := fcgitest.MustParse(t, out)
		if ans.Status != tc.status || ans.Header.Get("Content-Type") != tc.ctype {
			t.Errorf("%s: status %d %q, want %d %q", tc.env["PATH_INFO"], ans.Status, ans.Header.Get("Content-Type"), tc.status, tc.ctype)
		}
		if got := ans.Header.Get("Content-Length"); got != fmt.Sprint(len(ans.Body)) {
			t.Errorf("%s: Content-Length %s for %d bytes", tc.env["PATH_INFO"], got, len(ans.Body))
		}
	}
	if n := total(t, a, "demo"); n != 1 {
		t.Errorf("count %d after one image and one JSON request, want 1", n)
	}
}

// TestFastCGIReadsBodyRecords posts a login form split over many stdin
// records, then a second request on the same connection: the body is read
// whole, and the next request starts where it should.
func TestFastCGIReadsBodyRecords(t *testing.T) {
	a, logs := testApp(t, "demo")
	protect(t, a, "demo", 4)
	c := fcgitest.MustDial(t, startFastCGI(t, a))
	form := []byte("password=wrong+password&next=stats")
	env := fcgitest.Env("POST", "/demo/login", "",
		"CONTENT_TYPE", "application/x-www-form-urlencoded",
		"CONTENT_LENGTH", fmt.Sprint(len(form)),
		"HTTP_ORIGIN", "http://127.0.0.1",
		"HTTP_SEC_FETCH_SITE", "same-origin")
	out, _, err := c.Request(7, true, env, form, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ans := fcgitest.MustParse(t, out); ans.Status != http.StatusUnauthorized {
		t.Errorf("wrong password: status %d, want 401; log %s", ans.Status, logs)
	}
	if !strings.Contains(logs.String(), "login failed") {
		t.Errorf("no failed-login line in %q", logs)
	}
	out, _, err = c.Request(8, false, fcgitest.Env("GET", "/demo.json", ""), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ans := fcgitest.MustParse(t, out); ans.Status != 200 {
		t.Errorf("request after the post: status %d", ans.Status)
	}
}
