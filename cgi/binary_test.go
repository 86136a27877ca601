package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"hitcounter/cgi/admin"
	"hitcounter/cgi/testenv"
	"hitcounter/counter"
	"hitcounter/counter/draw"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// counterBinary builds the real binary once for the whole test run, and
// counter-themedecode beside it.
func counterBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "counter-bin")
		if err != nil {
			buildErr = err
			return
		}
		// Run by root, theme add starts the decoder as nobody, who must
		// reach it.
		if err := os.Chmod(dir, 0o755); err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "counter.cgi")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
			return
		}
		// theme add's decoder, beside it as in a build's dist/.
		out, err = exec.Command("go", "build", "-o", filepath.Join(dir, admin.DecoderName), "./themedecode").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(swapEnv); spec != "" {
		os.Exit(swapLinks(spec))
	}
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// readEnv reads a captured CGI environment, one KEY=VALUE a line.
func readEnv(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "=") {
			env = append(env, l)
		}
	}
	return env
}

// cgiAnswer is a CGI program's output, parsed.
type cgiAnswer struct {
	status int
	header http.Header
	body   []byte
}

func parseCGI(t *testing.T, out []byte) cgiAnswer {
	t.Helper()
	ans, err := parseAnswer(out)
	if err != nil {
		t.Fatal(err)
	}
	return ans
}

// parseAnswer is parseCGI for a goroutine, which may not stop the test.
func parseAnswer(out []byte) (cgiAnswer, error) {
	head, body, ok := bytes.Cut(out, []byte("\r\n\r\n"))
	if !ok {
		return cgiAnswer{}, fmt.Errorf("no end of headers in %.200q", out)
	}
	mh, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(head, "\r\n\r\n"...)))).ReadMIMEHeader()
	if err != nil {
		return cgiAnswer{}, fmt.Errorf("headers: %v in %.200q", err, out)
	}
	h := http.Header(mh)
	status, err := strconv.Atoi(strings.Fields(h.Get("Status") + " x")[0])
	if err != nil {
		return cgiAnswer{}, fmt.Errorf("Status header %q", h.Get("Status"))
	}
	return cgiAnswer{status, h, body}, nil
}

// runCGI runs the binary with env as a web server would, plus args.
func runCGI(t *testing.T, env []string, args ...string) (cgiAnswer, string) {
	t.Helper()
	cmd := exec.Command(counterBinary(t), args...)
	cmd.Env = testenv.OwnRunDir(t, env)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("CGI run: %v; stderr %s", err, errOut.String())
	}
	return parseCGI(t, out.Bytes()), errOut.String()
}

func adminRun(t *testing.T, db string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(counterBinary(t), args...)
	cmd.Env = testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestCapturedEnvironments replays the CGI environments that Debian's
// lighttpd and Apache really set (testdata/cgienv, made by
// deploy/test/capture-cgienv.sh), directly, through an alias and behind a
// rewrite, against the built binary.
func TestCapturedEnvironments(t *testing.T) {
	files, _ := filepath.Glob("../testdata/cgienv/*.env")
	if len(files) < 8 {
		t.Fatalf("found %d captured environments, want 8", len(files))
	}
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "demo", "reload=off"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	var want uint64
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			env := append(readEnv(t, f), "COUNTER_DB="+db, "COUNTER_RUN_DIR="+filepath.Join(filepath.Dir(db), "run"))
			ans, stderr := runCGI(t, env)
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			if ans.status != 200 || ans.header.Get("Content-Type") != "image/png" {
				t.Fatalf("status %d, type %q", ans.status, ans.header.Get("Content-Type"))
			}
			head := strings.HasSuffix(f, "-head.env")
			if !head {
				want++
				img, err := png.Decode(bytes.NewReader(ans.body))
				if err != nil {
					t.Fatalf("PNG: %v", err)
				}
				// The captured query asks for 7 digits.
				s, _ := counter.ParseStyle("digits=7&fg=f00")
				d, _ := draw.NewDrawing(counter.Digits(want, 7), s)
				if wd, _ := d.Size(); img.Bounds().Dx() != wd {
					t.Errorf("width %d, want %d: the query string was lost", img.Bounds().Dx(), wd)
				}
			} else if len(ans.body) != 0 {
				t.Errorf("HEAD answered %d bytes of body", len(ans.body))
			}
			if ans.header.Get("Content-Length") == "" || ans.header.Get("Cache-Control") == "" {
				t.Errorf("headers %v", ans.header)
			}
			json, _ := runCGI(t, append(readEnv(t, f), "COUNTER_DB="+db, "PATH_INFO=/demo.json", "REQUEST_METHOD=GET"))
			if got := string(json.body); !strings.HasPrefix(got, `{"name":"demo","count":`+strconv.FormatUint(want, 10)+`,`) {
				t.Errorf("count %s, want %d", got, want)
			}
		})
	}
}

// TestArgumentsNeverReachAdminCommands: Apache passes a query without '='
// as arguments ("?delete+demo" runs "counter.cgi delete demo"), so under
// CGI the arguments must be ignored.
func TestArgumentsNeverReachAdminCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	adminRun(t, db, "create", "demo")
	env := append(readEnv(t, "../testdata/cgienv/apache-direct.env"), "COUNTER_DB="+db, "QUERY_STRING=delete+demo")
	ans, _ := runCGI(t, env, "delete", "demo")
	if ans.status != 200 {
		t.Errorf("status %d, want 200", ans.status)
	}
	if out, _ := adminRun(t, db, "list"); !strings.Contains(out, "demo") {
		t.Errorf("list after the request: %q; the counter is gone", out)
	}
}

// TestMalformedCGIEnvironment: what no web server sends for a well-formed
// request (a bad Host, a bad escape in the path, a missing protocol or
// method) gets a 400, as an image when an image was asked for, one log
// line, and counts nothing.
func TestMalformedCGIEnvironment(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	adminRun(t, db, "create", "demo")
	base := readEnv(t, "../testdata/cgienv/lighttpd-direct.env")
	tests := []struct {
		name string
		set  []string
	}{
		{"bad protocol", []string{"SERVER_PROTOCOL=HTTP/x"}},
		{"no protocol", []string{"SERVER_PROTOCOL="}},
		{"no method", []string{"REQUEST_METHOD="}},
		{"bad escape in the path", []string{"REQUEST_URI=/cgi-bin/counter.cgi/%zz.png"}},
		{"control byte in the path", []string{"REQUEST_URI=/cgi-bin/counter.cgi/\x01demo.png"}},
		{"host with a space", []string{"HTTP_HOST=bad host"}},
		{"host with a slash", []string{"HTTP_HOST=evil.example/x"}},
		{"host with a bad port", []string{"HTTP_HOST=example.org:99999"}},
		{"host with an escape", []string{"HTTP_HOST=a%zz"}},
		{"bad content length", []string{"CONTENT_LENGTH=lots"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := append(append(base[:len(base):len(base)], "COUNTER_DB="+db), tc.set...)
			ans, stderr := runCGI(t, env)
			if ans.status != 400 || ans.header.Get("Content-Type") != "image/png" {
				t.Errorf("status %d, type %q; want 400 and a PNG", ans.status, ans.header.Get("Content-Type"))
			}
			if _, err := png.Decode(bytes.NewReader(ans.body)); err != nil {
				t.Errorf("body: %v", err)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line", stderr)
			}
		})
	}
	json, _ := runCGI(t, append(base[:len(base):len(base)], "COUNTER_DB="+db, "PATH_INFO=/demo.json"))
	if got := string(json.body); !strings.HasPrefix(got, `{"name":"demo","count":0,`) {
		t.Errorf("after the malformed requests: %s, want a count of 0", got)
	}
}

func TestAdminCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	tests := []struct {
		args     []string
		exit     int
		contains string
	}{
		{[]string{"list"}, 1, "missing"},
		{[]string{"create", "blog", "-start", "41"}, 0, "created blog at 41"},
		{[]string{"create", "-start", "5", "home"}, 0, "created home at 5"},
		{[]string{"create", "blog"}, 1, "already exists"},
		{[]string{"create", "../etc"}, 2, "invalid counter name"},
		{[]string{"create"}, 2, "usage: counter create NAME"},
		{[]string{"set", "blog", "100"}, 0, ""},
		{[]string{"set", "blog", "1.5"}, 2, "not a count"},
		{[]string{"set", "blog", "-1"}, 2, "usage: counter set NAME N"},
		{[]string{"set", "nope", "1"}, 1, "no such counter"},
		{[]string{"create", "shop", "3", "show=visitors", "referrers=*.example.org"}, 0, "created shop at 3, showing visitors"},
		{[]string{"create", "cafe", "show=sometimes"}, 2, `invalid setting "show=sometimes"`},
		{[]string{"config", "cafe"}, 1, "no such counter"},
		{[]string{"config", "blog"}, 0, "show=views\nreload=30m\nignore=\nreferrers=\n"},
		{[]string{"config", "blog", "show=visitors", "ignore+=192.0.2.0/24,2001:db8::1"}, 0, "show=visitors\nreload=30m\nignore=192.0.2.0/24,2001:db8::1\nreferrers=\n"},
		{[]string{"config", "blog", "ignore-=2001:db8::1", "-db", db}, 0, "ignore=192.0.2.0/24\n"},
		{[]string{"config", "blog", "show=views", "colour=red"}, 2, `no key "colour"`},
		{[]string{"config", "blog", "show=views", "reload=2d"}, 2, `invalid setting "reload=2d"`},
		{[]string{"config", "blog"}, 0, "show=visitors\nreload=30m\nignore=192.0.2.0/24\n"},
		{[]string{"config", "shop", "referrers="}, 0, "show=visitors\nreload=30m\nignore=\nreferrers=\n"},
		{[]string{"config", "nope"}, 1, "no such counter"},
		{[]string{"config"}, 2, "usage: counter config NAME [KEY=VALUE ...]"},
		{[]string{"list"}, 0, "blog  100"},
		{[]string{"list"}, 0, "NAME  COUNT  CREATED"},
		{[]string{"list"}, 0, "UTC  visitors  0         ignore    public\n"},
		{[]string{"check"}, 0, "3 counter(s), 108 view(s) in all, schema 8,"},
		{[]string{"delete", "home"}, 0, ""},
		{[]string{"delete", "home"}, 1, "no such counter"},
		{[]string{"help"}, 0, "counter create NAME"},
		{[]string{"help"}, 0, "counter config NAME KEY=VALUE ..."},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{nil, 2, "no command"},
		{[]string{"list", "-bogus"}, 2, "flag provided but not defined"},
	}
	for _, tc := range tests {
		out, err := adminRun(t, db, tc.args...)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != tc.exit || !strings.Contains(out, tc.contains) {
			t.Errorf("counter.cgi %s: exit %d, output %q; want exit %d containing %q", strings.Join(tc.args, " "), code, out, tc.exit, tc.contains)
		}
	}
	if out, _ := adminRun(t, db, "list"); strings.Contains(out, "home") {
		t.Errorf("deleted counter still listed: %q", out)
	}
}
