package web

import (
	"bufio"
	"bytes"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/store"
)

// addSeeds feeds the seed corpus of target, kept as plain files under the
// top-level testdata/fuzz/TARGET/ (and any extra globs), one input a file.
func addSeeds(f *testing.F, target string, extra ...string) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fuzz", target, "*"))
	for _, g := range extra {
		more, _ := filepath.Glob(g)
		files = append(files, more...)
	}
	if len(files) == 0 {
		f.Fatalf("no seeds in testdata/fuzz/%s", target)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

// fuzzApp is an app on a real database holding counter demo, whose log
// is reset for every input.
type fuzzApp struct {
	*App
	logs *bytes.Buffer
}

func newFuzzApp(f *testing.F) fuzzApp {
	a, logs := testApp(f, "demo")
	// The file may change only for a counted hit here: the costs' own
	// writes (a day's fold, a build's first requests) are costs_test's.
	noCosts(a)
	// On tmpfs when there is one: a counted hit syncs the file, and on a
	// disk the syncs, not the code, would set the pace.
	if dir, err := os.MkdirTemp("/dev/shm", "counter-fuzz-"); err == nil {
		f.Cleanup(func() { os.RemoveAll(dir) })
		b, err := os.ReadFile(a.cfg.DB)
		if err != nil {
			f.Fatal(err)
		}
		a.cfg.DB = filepath.Join(dir, "counter.db")
		if err := os.WriteFile(a.cfg.DB, b, 0o600); err != nil {
			f.Fatal(err)
		}
	}
	return fuzzApp{a, logs}
}

// run serves one input and checks what every input must keep: a status,
// log lines that are single, bounded and free of control bytes, and a
// file that changed only if this was a counted hit.
func (fa fuzzApp) run(t *testing.T, serve func() int) {
	t.Helper()
	fa.logs.Reset()
	before, err := os.ReadFile(fa.cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	totalBefore := total(t, fa.App, "demo")
	status := serve()
	if status < 100 || status > 599 {
		t.Fatalf("status %d", status)
	}
	after, _ := os.ReadFile(fa.cfg.DB)
	if status != http.StatusOK && !bytes.Equal(before, after) {
		t.Fatalf("a refused request (%d) changed the file", status)
	}
	if got := total(t, fa.App, "demo"); got != totalBefore && (status != http.StatusOK || got != totalBefore+1) {
		t.Fatalf("total went from %d to %d with status %d", totalBefore, got, status)
	}
	lines := strings.Split(strings.TrimSuffix(fa.logs.String(), "\n"), "\n")
	if len(lines) > 2 {
		t.Fatalf("%d log lines for one request: %q", len(lines), lines)
	}
	for _, l := range lines {
		if len(l)+len("\n") > logline.MaxLine {
			t.Fatalf("log line of %d bytes", len(l))
		}
		for _, c := range []byte(l) {
			if c < 0x20 || c == 0x7f {
				t.Fatalf("control byte %#x in log line %q", c, l)
			}
		}
	}
}

// FuzzRoute sends "METHOD PATH?QUERY" (the path as a web server passes it
// in PATH_INFO) to the handler: only a GET of an existing counter's image
// may write, and only one hit.
func FuzzRoute(f *testing.F) {
	addSeeds(f, "FuzzRoute")
	f.Add("GET /demo.png?digits=7")
	f.Add("HEAD /demo.svg")
	fa := newFuzzApp(f)
	f.Fuzz(func(t *testing.T, line string) {
		method, target, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		path, query, _ := strings.Cut(target, "?")
		fa.run(t, func() int {
			r := httptest.NewRequest("GET", "/", nil)
			r.Method, r.URL.Path, r.URL.RawQuery = method, path, query
			w := httptest.NewRecorder()
			fa.Handler().ServeHTTP(w, r)
			if w.Code == http.StatusOK && method == http.MethodGet && strings.HasPrefix(w.Header().Get("Content-Type"), "image/") {
				if name, _, _ := cutLast(strings.TrimPrefix(path, "/"), "."); name != "demo" {
					t.Fatalf("%s %q drew a counter", method, path)
				}
			}
			return w.Code
		})
	})
}

// FuzzSessionCookie: a cookie that verifies is exactly one the code signs:
// same name, same expiry, same MAC, nothing added or changed.
func FuzzSessionCookie(f *testing.F) {
	key := bytes.Repeat([]byte{7}, 32)
	hash := []byte("$2a$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234")
	good := signSession(key, "demo", testNow.Add(time.Hour), hash)
	addSeeds(f, "FuzzSessionCookie")
	f.Add(good)
	f.Add(good + "=")
	f.Add(strings.Replace(good, ".", "..", 1))
	f.Fuzz(func(t *testing.T, value string) {
		if !validSession(key, value, "demo", hash, testNow) {
			return
		}
		parts := strings.Split(value, ".")
		exp, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			t.Fatalf("%q verified with expiry %q", value, parts[1])
		}
		if made := signSession(key, "demo", time.Unix(exp, 0), hash); made != value {
			t.Fatalf("%q verified, but the code signs %q", value, made)
		}
		if validSession(key, value, "demo", append(hash[:len(hash):len(hash)], 'x'), testNow) || validSession(key, value, "demx", hash, testNow) {
			t.Fatalf("%q verifies for another hash or name", value)
		}
	})
}

// FuzzLoginForm posts "CONTENT-TYPE\nBODY" as a login to a protected
// counter: the password check runs only for a form field of 1 to 72
// bytes, exactly as url.ParseQuery reads it, only the right one logs in,
// and nothing is ever written.
func FuzzLoginForm(f *testing.F) {
	addSeeds(f, "FuzzLoginForm")
	f.Add("application/x-www-form-urlencoded\npassword=right+password")
	fa := newFuzzApp(f)
	db, err := store.Open(fa.cfg.DB, store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	err = db.SetPasswordHash("demo", []byte("$2a$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234"))
	db.Close()
	if err != nil {
		f.Fatal(err)
	}
	const right = "right password"
	now := testNow
	fa.cfg.Now = func() time.Time { return now }
	var checked [][]byte
	fa.verify = func(_, pw []byte) (bool, bool, error) {
		checked = append(checked, pw)
		return string(pw) == right, false, nil
	}
	f.Fuzz(func(t *testing.T, in string) {
		ct, body, _ := strings.Cut(in, "\n")
		now = now.Add(2 * time.Hour) // past the throttle's windows
		checked = nil
		fa.run(t, func() int {
			r := httptest.NewRequest("POST", "/demo/login", strings.NewReader(body))
			r.Header.Set("Content-Type", ct)
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			w := httptest.NewRecorder()
			fa.Handler().ServeHTTP(w, r)
			mt, _, _ := mime.ParseMediaType(ct)
			form, formErr := url.ParseQuery(body)
			want := form.Get("password")
			if len(checked) > 1 {
				t.Fatalf("%d password checks for one login", len(checked))
			}
			if len(checked) == 1 {
				pw := string(checked[0])
				if mt != "application/x-www-form-urlencoded" || formErr != nil || pw != want || len(pw) < 1 || len(pw) > counter.MaxPasswordLen || len(body) > maxLoginBody {
					t.Fatalf("checked %q for a %q body of %d bytes (form field %q, %v)", pw, mt, len(body), want, formErr)
				}
			}
			if (w.Code == http.StatusSeeOther) != (len(checked) == 1 && string(checked[0]) == right) {
				t.Fatalf("status %d after checking %q", w.Code, checked)
			}
			return w.Code
		})
	})
}

// FuzzCGIEnv hands a CGI environment, one KEY=VALUE a line, to the CGI
// transport as the web server would: the answer is always a well-formed
// CGI response and whatever it refuses writes nothing.
func FuzzCGIEnv(f *testing.F) {
	addSeeds(f, "FuzzCGIEnv", filepath.Join("..", "..", "testdata", "cgienv", "*.env"))
	fa := newFuzzApp(f)
	f.Fuzz(func(t *testing.T, in string) {
		var environ []string
		for _, l := range strings.Split(in, "\n") {
			if strings.Contains(l, "=") {
				environ = append(environ, l)
			}
		}
		fa.run(t, func() int {
			var out bytes.Buffer
			if err := gateway.ServeCGI(fa.Handler(), environ, strings.NewReader("password=x"), &out, gateway.Options{Log: fa.log, Refuse: fa.Refuse}); err != nil {
				t.Fatalf("ServeCGI: %v", err)
			}
			head, _, ok := bytes.Cut(out.Bytes(), []byte("\r\n\r\n"))
			if !ok {
				t.Fatalf("no end of headers in %.200q", out.Bytes())
			}
			h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(head, "\r\n\r\n"...)))).ReadMIMEHeader()
			if err != nil {
				t.Fatalf("headers %q: %v", head, err)
			}
			status, err := strconv.Atoi(strings.Fields(h.Get("Status") + " x")[0])
			if err != nil || h.Get("Content-Type") == "" {
				t.Fatalf("headers %q", head)
			}
			return status
		})
	})
}
