package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/testenv"
	"hitcounter/store"
)

var (
	hitOnce     sync.Once
	hitPath     string
	hitBuildErr error
)

// hitBinary builds the hit binary (./hit) once, as install.sh does: the
// full tool's path, counterBinary's, fixed in it at build time.
func hitBinary(t *testing.T) string {
	t.Helper()
	tool := counterBinary(t)
	hitOnce.Do(func() {
		hitPath = filepath.Join(filepath.Dir(tool), "counter-hit.cgi")
		hitPath, hitBuildErr = buildHit(hitPath, tool)
	})
	if hitBuildErr != nil {
		t.Fatalf("build: %v", hitBuildErr)
	}
	return hitPath
}

// buildHit builds the hit binary at out, to exec the full tool at tool.
func buildHit(out, tool string) (string, error) {
	b, err := exec.Command("go", "build", "-ldflags", "-X main.toolPath="+tool, "-o", out, "./hit").CombinedOutput()
	if err != nil {
		return "", errors.New(string(b))
	}
	return out, nil
}

// runPlain runs bin with env and stdin, and returns what it wrote.
func runPlain(t *testing.T, bin string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	return runCmd(t, cmd, stdin)
}

// runCmd runs cmd with stdin, and returns what it wrote and its exit code;
// a run that did not start or exit fails t.
func runCmd(t *testing.T, cmd *exec.Cmd, stdin string) (stdout, stderr string, code int) {
	t.Helper()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return out.String(), errOut.String(), code
}

// sameWorld makes a database with what the requests of TestHitBinaryAnswersAsTheFullTool
// ask for, and two copies of it, each with a run directory of its own.
func sameWorld(t *testing.T) (dbFull, dbHit, ownerToken string) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "made.db")
	mustAdmin(t, db, "create", "page")
	mustAdmin(t, db, "create", "visits", "show=visitors", "reload=30m", "ignore=192.0.2.200/32", "referrers=example.org,*.example.org")
	mustAdmin(t, db, "create", "blog", "-site", "-hosts", "blog.example")
	mustAdmin(t, db, "theme", "add", "pix", pngFolder(t))
	mustAdmin(t, db, "theme", "add", "anim", gifFolder(t))
	mustAdmin(t, db, "create", "themed")
	mustAdmin(t, db, "config", "themed", "theme=pix")
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.OwnerKey()
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"full", "hit"} {
		if err := os.MkdirAll(filepath.Join(dir, side, "run"), 0o700); err != nil {
			t.Fatal(err)
		}
		copyFile(t, db, filepath.Join(dir, side, "counter.db"))
	}
	return filepath.Join(dir, "full", "counter.db"), filepath.Join(dir, "hit", "counter.db"), imagehit.OwnerToken("page", key)
}

// hitRequest is one CGI request: its method, PATH_INFO, query and the
// variables that differ from a plain browser's view from 192.0.2.1.
type hitRequest struct {
	name, method, path, query string
	env                       []string
	stdin                     string
}

const firefoxUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// cgiEnv is a lighttpd-like CGI environment of request r on database db.
func (r hitRequest) cgiEnv(db string) []string {
	method := r.method
	if method == "" {
		method = "GET"
	}
	env := []string{
		"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "SERVER_SOFTWARE=lighttpd/1.4",
		"REQUEST_METHOD=" + method, "SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + r.path,
		"QUERY_STRING=" + r.query, "REQUEST_URI=/cgi-bin/counter.cgi" + r.path + "?" + r.query,
		"HTTP_HOST=example.org", "REMOTE_ADDR=192.0.2.1", "REMOTE_PORT=40000",
		"HTTP_USER_AGENT=" + firefoxUA, "HTTP_ACCEPT=image/avif,image/webp,*/*",
		"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run"),
		"PATH=" + os.Getenv("PATH"),
	}
	return append(env, r.env...)
}

// hitRequests are served by the hit binary itself; each runs in turn on
// both copies, so the visitor tables and counts go the same way.
func hitRequests(owner string) []hitRequest {
	return []hitRequest{
		{name: "a new visitor", path: "/page.png"},
		{name: "a reload", path: "/page.png"},
		{name: "another visitor", path: "/page.png", env: []string{"REMOTE_ADDR=2001:db8::7"}},
		{name: "gif", path: "/page.gif", env: []string{"REMOTE_ADDR=192.0.2.2"}},
		{name: "svg", path: "/page.svg", env: []string{"REMOTE_ADDR=192.0.2.3"}},
		{name: "extension in capitals", path: "/page.PNG", env: []string{"REMOTE_ADDR=192.0.2.4"}},
		{name: "head", method: "HEAD", path: "/page.png"},
		{name: "count=0", path: "/page.png", query: "count=0"},
		{name: "style", path: "/page.png", query: "digits=8&fg=ff0000&bg=00000000&size=30", env: []string{"REMOTE_ADDR=192.0.2.5"}},
		{name: "a badge", path: "/visits.svg", query: "style=badge&label=seen", env: []string{"HTTP_REFERER=https://example.org/a/"}},
		{name: "led", path: "/page.png", query: "theme=led", env: []string{"REMOTE_ADDR=192.0.2.6"}},
		{name: "nixie gif", path: "/page.gif", query: "theme=nixie", env: []string{"REMOTE_ADDR=192.0.2.7"}},
		{name: "odometer svg", path: "/page.svg", query: "theme=odometer", env: []string{"REMOTE_ADDR=192.0.2.8"}},
		{name: "retro", path: "/page.png", query: "theme=retro&digits=4", env: []string{"REMOTE_ADDR=192.0.2.9"}},
		{name: "a digit set", path: "/page.png", query: "theme=pix", env: []string{"REMOTE_ADDR=192.0.2.10"}},
		{name: "an animated set", path: "/page.gif", query: "theme=anim", env: []string{"REMOTE_ADDR=192.0.2.11"}},
		{name: "a set in svg", path: "/page.svg", query: "theme=pix&size=40", env: []string{"REMOTE_ADDR=192.0.2.12"}},
		{name: "a counter's own set", path: "/themed.png", env: []string{"REMOTE_ADDR=192.0.2.13"}},
		{name: "no such set", path: "/page.png", query: "theme=nosuch"},
		{name: "a site's page", path: "/blog.png", env: []string{"HTTP_REFERER=https://blog.example/posts/one/"}},
		{name: "a site's page named", path: "/blog.svg", query: "page=/posts/two/&show=page", env: []string{"REMOTE_ADDR=192.0.2.14"}},
		{name: "a site's bad page", path: "/blog.png", query: "page=../x", env: []string{"REMOTE_ADDR=192.0.2.15"}},
		{name: "a foreign referrer", path: "/visits.png", env: []string{"HTTP_REFERER=https://other.example/", "REMOTE_ADDR=192.0.2.16"}},
		{name: "an ignored address", path: "/visits.png", env: []string{"REMOTE_ADDR=192.0.2.200"}},
		{name: "the owner", path: "/page.png", env: []string{"HTTP_COOKIE=a=b; counter_owner=" + owner, "REMOTE_ADDR=192.0.2.17"}},
		{name: "a forged owner", path: "/page.png", env: []string{"HTTP_COOKIE=counter_owner=o1.xyz", "REMOTE_ADDR=192.0.2.18"}},
		{name: "a bot", path: "/page.png", env: []string{"HTTP_USER_AGENT=Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}},
		{name: "no user agent", path: "/page.png", env: []string{"HTTP_USER_AGENT=", "REMOTE_ADDR=192.0.2.19"}},
		{name: "a prefetch", path: "/page.png", env: []string{"HTTP_SEC_PURPOSE=prefetch", "REMOTE_ADDR=192.0.2.20"}},
		{name: "github's proxy", path: "/page.png", env: []string{"HTTP_USER_AGENT=github-camo (876de43e)", "REMOTE_ADDR=140.82.115.88"}},
		{name: "github's agent elsewhere", path: "/page.png", env: []string{"HTTP_USER_AGENT=github-camo (876de43e)", "REMOTE_ADDR=192.0.2.21"}},
		{name: "a trusted proxy", path: "/page.png", env: []string{"REMOTE_ADDR=10.0.0.1", "COUNTER_TRUSTED_PROXIES=10.0.0.1", "HTTP_X_FORWARDED_FOR=198.51.100.1, 10.0.0.1"}},
		{name: "a typo", path: "/page.png", query: "digts=3", env: []string{"REMOTE_ADDR=192.0.2.22"}},
		{name: "a bad colour", path: "/page.png", query: "fg=zzz"},
		{name: "a bad colour, blank", path: "/page.gif", query: "fg=zzz", env: []string{"COUNTER_ERRORS=blank"}},
		{name: "no such counter", path: "/nosuch.png"},
		{name: "a bad name", path: "/bad!name.svg"},
		{name: "a long query", path: "/page.png", query: strings.Repeat("x", 5000)},
		{name: "a badge in png", path: "/page.png", query: "style=badge"},
		{name: "no database", path: "/page.png", env: []string{"COUNTER_DB=/nonexistent/counter.db"}},
		{name: "costs off", path: "/page.png", env: []string{"COUNTER_COSTS=off", "REMOTE_ADDR=192.0.2.23"}},
		{name: "the script", path: "/page.js"},
		{name: "the script, HEAD", method: "HEAD", path: "/blog.JS"},
		{name: "a script's count", path: "/page.count", query: "page=/&ref=News.Example:443", env: []string{"REMOTE_ADDR=192.0.2.24"}},
		{name: "the image joined to it", path: "/page.png", env: []string{"REMOTE_ADDR=192.0.2.24"}},
		{name: "a site's count with pages", path: "/blog.count", query: "page=/posts/one/&p=/posts/one/&p=/posts/two/&p=/none/", env: []string{"HTTP_REFERER=https://blog.example/posts/one/", "REMOTE_ADDR=192.0.2.25"}},
		{name: "a bot's count", path: "/blog.count", query: "page=/posts/one/", env: []string{"HTTP_USER_AGENT=curl/8.0"}},
		{name: "a count of 101 pages", path: "/blog.count", query: "page=/" + strings.Repeat("&p=/a/", 101)},
		{name: "a count's bad name", path: "/bad!name.count"},
		{name: "no such counter's count", path: "/nosuch.count"},
	}
}

// TestHitBinaryAnswersAsTheFullTool runs the hit binary and the full tool
// on the same requests, in turn, each on its own copy of one database, and
// compares their answers byte for byte, then the databases' counts. The
// requests that the hit binary passes on to the full tool (every one that
// is not an image's GET or HEAD) go the same way, and must answer the same
// too.
func TestHitBinaryAnswersAsTheFullTool(t *testing.T) {
	full, hit := counterBinary(t), hitBinary(t)
	// The requests it serves itself go to one that has no full tool to
	// exec, so that they cannot pass for its own.
	alone, err := buildHit(filepath.Join(t.TempDir(), "counter.cgi"), filepath.Join(t.TempDir(), "no-tool"))
	if err != nil {
		t.Fatal(err)
	}
	dbFull, dbHit, owner := sameWorld(t)
	type run struct {
		hitRequest
		bin string
	}
	var runs []run
	for _, r := range hitRequests(owner) {
		runs = append(runs, run{r, alone})
	}
	for _, r := range passedOn() {
		runs = append(runs, run{r, hit})
		// And the one without the full tool cannot answer them.
		if out, _, _ := runPlain(t, alone, r.cgiEnv(t.TempDir()+"/counter.db"), r.stdin); !strings.HasPrefix(out, "Status: 500") {
			t.Errorf("%s: the hit binary answered without the full tool: %.100q", r.name, out)
		}
	}
	for _, r := range runs {
		wantOut, wantErr, wantCode := runPlain(t, full, r.cgiEnv(dbFull), r.stdin)
		gotOut, gotErr, gotCode := runPlain(t, r.bin, r.cgiEnv(dbHit), r.stdin)
		if gotOut != wantOut || gotCode != wantCode {
			t.Errorf("%s: the hit binary answered (exit %d)\n%.600q\nthe full tool (exit %d)\n%.600q", r.name, gotCode, gotOut, wantCode, wantOut)
		}
		if gotErr != wantErr {
			t.Errorf("%s: the hit binary logged %q, the full tool %q", r.name, gotErr, wantErr)
		}
		if !strings.HasPrefix(wantOut, "Status: ") {
			t.Errorf("%s: no CGI answer: %.200q", r.name, wantOut)
		}
	}
	listFull := mustAdmin(t, dbFull, "list")
	listHit := mustAdmin(t, dbHit, "list")
	if listFull != listHit {
		t.Errorf("the counts differ: after the hit binary\n%s\nafter the full tool\n%s", listHit, listFull)
	}
	if !strings.Contains(listFull, "page ") {
		t.Errorf("list: %s", listFull)
	}
}

// passedOn are requests the hit binary does not serve: it execs the full
// tool for them, with the same environment and stdin.
func passedOn() []hitRequest {
	form := "password=wrong"
	return []hitRequest{
		{name: "json", path: "/page.json"},
		{name: "shields", path: "/page.shields.json"},
		{name: "statistics", path: "/page/stats", env: []string{"COUNTER_COSTS=off"}}, // the costs, timed, differ
		{name: "an export", path: "/page/stats.csv"},
		{name: "a login, with its body", method: "POST", path: "/page/login", stdin: form,
			env: []string{"CONTENT_TYPE=application/x-www-form-urlencoded", "CONTENT_LENGTH=14", "HTTP_ORIGIN=http://example.org", "HTTP_SEC_FETCH_SITE=same-origin"}},
		{name: "a POST to an image", method: "POST", path: "/page.png"},
		{name: "an unclean path", path: "/page.png/"},
		{name: "a path of two segments", path: "/x/page.png"},
		{name: "dot segments", path: "/./page.png"},
		{name: "the root", path: "/"},
		{name: "a bad Host", path: "/page.png", env: []string{"HTTP_HOST=bad host"}},
		{name: "a bad REQUEST_URI", path: "/page.png", env: []string{"REQUEST_URI=/%zz"}},
		{name: "a bad protocol", path: "/page.png", env: []string{"SERVER_PROTOCOL=HTTP/x"}},
		{name: "a bad length", path: "/page.png", env: []string{"CONTENT_LENGTH=x"}},
		{name: "an image with a body", path: "/page.png", stdin: "abc", env: []string{"CONTENT_LENGTH=3", "REMOTE_ADDR=192.0.2.24"}},
		{name: "no method", method: "", path: "/page.png", env: []string{"REQUEST_METHOD="}},
	}
}

// TestHitBinaryPassesCommandsOn: an admin command typed to counter.cgi,
// with its stdin, reaches the full tool.
func TestHitBinaryPassesCommandsOn(t *testing.T) {
	full, hit := counterBinary(t), hitBinary(t)
	db := filepath.Join(t.TempDir(), "counter.db")
	env := testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db, "PATH=" + os.Getenv("PATH")})
	if out, errOut, code := runPlain(t, hit, env, "", "create", "blog", "-start", "41"); code != 0 || !strings.Contains(out, "created blog at 41") {
		t.Fatalf("create through the hit binary: exit %d, %q %q", code, out, errOut)
	}
	// A password from stdin, as an owner pipes it.
	if _, errOut, code := runPlain(t, hit, env, "a long enough password\n", "passwd", "blog"); code != 0 {
		t.Fatalf("passwd through the hit binary: exit %d, %q", code, errOut)
	}
	for _, args := range [][]string{{"list"}, {"show", "blog"}, {"help"}, {"nosuchcommand"}, {}} {
		wantOut, wantErr, wantCode := runPlain(t, full, env, "", args...)
		gotOut, gotErr, gotCode := runPlain(t, hit, env, "", args...)
		if gotOut != wantOut || gotErr != wantErr || gotCode != wantCode {
			t.Errorf("%q: the hit binary: exit %d %q %q; the full tool: exit %d %q %q", args, gotCode, gotOut, gotErr, wantCode, wantOut, wantErr)
		}
	}
	if out := mustAdmin(t, db, "list"); !strings.Contains(out, "password") {
		t.Errorf("list after passwd: %s", out)
	}
}

// TestHitBinaryWithoutTheFullTool: a full tool that is missing, or that
// is a link, is not run: one line says so, a CGI request gets a 500 (an
// image for an image's path, which the hit binary serves itself still).
func TestHitBinaryWithoutTheFullTool(t *testing.T) {
	dir := t.TempDir()
	tool := counterBinary(t)
	link := filepath.Join(dir, "counter-tool-link")
	if err := os.Symlink(tool, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, tool, want string }{
		{"missing", filepath.Join(dir, "nothing"), "no such file"},
		{"a link", link, "is a link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin, err := buildHit(filepath.Join(dir, "hit-"+strings.ReplaceAll(tc.name, " ", "")), tc.tool)
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runPlain(t, bin, []string{"PATH=" + os.Getenv("PATH")}, "", "list")
			if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, tc.tool) {
				t.Errorf("list: exit %d, %q %q; want exit 1 and one line naming %s: %s", code, out, errOut, tc.tool, tc.want)
			}
			db := filepath.Join(t.TempDir(), "counter.db")
			mustAdmin(t, db, "create", "page")
			for _, r := range []struct {
				req  hitRequest
				want string
			}{
				{hitRequest{name: "json", path: "/page.json"}, "Content-Type: text/plain"},
				{hitRequest{name: "stats of an image's name", path: "/x/page.png"}, "Content-Type: image/png"},
			} {
				out, errOut, _ := runPlain(t, bin, r.req.cgiEnv(db), "")
				a := parseCGI(t, []byte(out))
				if a.status != 500 || !strings.Contains(out, r.want) || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
					t.Errorf("%s: status %d, %.200q, log %q; want 500, %s, one line", r.req.name, a.status, out, errOut, r.want)
				}
			}
			out, _, _ = runPlain(t, bin, hitRequest{path: "/page.png"}.cgiEnv(db), "")
			if !strings.HasPrefix(out, "Status: 200 OK") {
				t.Errorf("an image without the full tool: %.100q", out)
			}
		})
	}
}

// TestHitBinaryFindsTheToolAsInstalled: built without a path, as build.sh
// builds it, counter.cgi in DIR/cgi-bin runs DIR/counter/counter-tool,
// the layout of /usr/lib under any install root; one writable by others
// is not run.
func TestHitBinaryFindsTheToolAsInstalled(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"cgi-bin", "counter"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "cgi-bin", "counter.cgi")
	if b, err := exec.Command("go", "build", "-o", bin, "./hit").CombinedOutput(); err != nil {
		t.Fatalf("build: %s", b)
	}
	tool := filepath.Join(dir, "counter", "counter-tool")
	b, err := os.ReadFile(counterBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tool, b, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "counter.db")
	env := testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
	if out, errOut, code := runPlain(t, bin, env, "", "create", "blog"); code != 0 || !strings.Contains(out, "created blog") {
		t.Fatalf("create: exit %d, %q %q", code, out, errOut)
	}
	if err := os.Chmod(tool, 0o777); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runPlain(t, bin, env, "", "list"); code != 1 || out != "" || !strings.Contains(errOut, "writable by others") {
		t.Errorf("a tool writable by all: exit %d, %q %q; want exit 1 and why", code, out, errOut)
	}
}
