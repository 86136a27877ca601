package gateway

import (
	"fmt"
	"net/http"
	"net/http/cgi"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// describe is what a test compares of a request from an environment: every
// field RequestFromMap sets, or its error.
func describe(env map[string]string, from func(map[string]string) (*http.Request, error)) string {
	r, err := from(env)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%s %s %d.%d close=%v host=%q len=%d url=%q tls=%v remote=%q header=%v trailer=%v",
		r.Method, r.Proto, r.ProtoMajor, r.ProtoMinor, r.Close, r.Host, r.ContentLength, r.URL.String(),
		r.TLS != nil, r.RemoteAddr, r.Header, r.Trailer)
}

// ours and theirs build a request from env with requestFromEnv and with
// net/http/cgi, the source of truth.
func ours(env map[string]string) (*http.Request, error)   { return requestFromEnv(env) }
func theirs(env map[string]string) (*http.Request, error) { return cgi.RequestFromMap(env) }

// capturedEnv reads one of testdata/cgienv's environments, as Debian's
// lighttpd and Apache set them.
func capturedEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	return env
}

// TestRequestFromEnvIsRequestFromMap builds the request of every captured
// environment, and of environments with each field odd or missing, both
// ways: they must agree on every field and every error.
func TestRequestFromEnvIsRequestFromMap(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/cgienv/*.env")
	if len(files) < 8 {
		t.Fatalf("found %d captured environments, want 8", len(files))
	}
	base := capturedEnv(t, files[0])
	edits := map[string]map[string]string{
		"as captured":          {},
		"no method":            {"REQUEST_METHOD": ""},
		"HTTP/1.0":             {"SERVER_PROTOCOL": "HTTP/1.0"},
		"HTTP/2.0":             {"SERVER_PROTOCOL": "HTTP/2.0"},
		"server-side include":  {"SERVER_PROTOCOL": "INCLUDED"},
		"bad protocol":         {"SERVER_PROTOCOL": "HTTP/x"},
		"no protocol":          {"SERVER_PROTOCOL": ""},
		"body":                 {"CONTENT_LENGTH": "42", "CONTENT_TYPE": "application/x-www-form-urlencoded"},
		"bad length":           {"CONTENT_LENGTH": "4x2"},
		"negative length":      {"CONTENT_LENGTH": "-1"},
		"HTTPS on":             {"HTTPS": "on"},
		"HTTPS ON":             {"HTTPS": "ON"},
		"HTTPS 1":              {"HTTPS": "1"},
		"HTTPS off":            {"HTTPS": "off"},
		"no host":              {"HTTP_HOST": ""},
		"no host, bad URI":     {"HTTP_HOST": "", "REQUEST_URI": "%zz"},
		"bad URI":              {"REQUEST_URI": "/a b%zz"},
		"no URI":               {"REQUEST_URI": "", "QUERY_STRING": "digits=3"},
		"no URI, no query":     {"REQUEST_URI": "", "QUERY_STRING": ""},
		"no port":              {"REMOTE_PORT": ""},
		"bad port":             {"REMOTE_PORT": "http"},
		"IPv6 peer":            {"REMOTE_ADDR": "2001:db8::1", "REMOTE_PORT": "443"},
		"headers":              {"HTTP_X_FORWARDED_FOR": "192.0.2.1", "HTTP_COOKIE": "a=b; c=d", "HTTP_SEC_FETCH_SITE": "same-origin"},
		"odd header names":     {"HTTP_": "empty", "HTTP__X": "underscore", "HTTP_ACCEPT__LANGUAGE": "x"},
		"host with port":       {"HTTP_HOST": "example.org:8080"},
		"host that is no host": {"HTTP_HOST": "a b"},
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			env := capturedEnv(t, f)
			if got, want := describe(env, ours), describe(env, theirs); got != want {
				t.Errorf("requestFromEnv:\n%s\nnet/http/cgi:\n%s", got, want)
			}
		})
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			for k, v := range edit {
				if v == "" {
					delete(env, k)
				} else {
					env[k] = v
				}
			}
			if got, want := describe(env, ours), describe(env, theirs); got != want {
				t.Errorf("requestFromEnv:\n%s\nnet/http/cgi:\n%s", got, want)
			}
		})
	}
}

// FuzzRequestFromEnv builds requests from environments the fuzzer makes
// both ways; they must agree.
func FuzzRequestFromEnv(f *testing.F) {
	f.Add("GET", "HTTP/1.1", "127.0.0.1", "/cgi-bin/counter.cgi/x.png?digits=3", "", "", "on", "127.0.0.1", "5000", "Mozilla/5.0")
	f.Add("POST", "INCLUDED", "", "", "12", "text/plain", "", "::1", "", "")
	f.Add("GET", "HTTP/9.9", "a:b", "%zz", "x", "", "1", "", "-1", "a\x00b")
	f.Fuzz(func(t *testing.T, method, proto, host, uri, length, ctype, https, addr, port, ua string) {
		env := map[string]string{}
		for k, v := range map[string]string{
			"REQUEST_METHOD": method, "SERVER_PROTOCOL": proto, "HTTP_HOST": host, "REQUEST_URI": uri,
			"CONTENT_LENGTH": length, "CONTENT_TYPE": ctype, "HTTPS": https, "REMOTE_ADDR": addr,
			"REMOTE_PORT": port, "HTTP_USER_AGENT": ua, "SCRIPT_NAME": "/cgi-bin/counter.cgi",
			"PATH_INFO": "/x.png", "QUERY_STRING": ua,
		} {
			if v != "" {
				env[k] = v
			}
		}
		if got, want := describe(env, ours), describe(env, theirs); got != want {
			t.Errorf("requestFromEnv:\n%s\nnet/http/cgi:\n%s", got, want)
		}
	})
}
