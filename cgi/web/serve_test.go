package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"html"
	"image/gif"
	"image/png"
	"io"
	"net"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/gateway"
	"hitcounter/counter"
	"hitcounter/store"
)

// startServer runs gateway.ServeHTTP on a loopback port until the test ends.
func startServer(t *testing.T, a *App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gateway.ServeHTTP(ctx, ln, a.Handler(), gateway.Options{Log: a.log, Refuse: a.Refuse}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP returned %v after cancel, want nil", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func TestLocalServer(t *testing.T) {
	a, _ := testApp(t, "demo")
	a.demo = true
	base := startServer(t, a)
	client := &http.Client{Timeout: 5 * time.Second}
	tests := []struct {
		method, path string
		status       int
		ct           string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8"},
		{"GET", "/demo.png", 200, "image/png"},
		{"HEAD", "/demo.svg", 200, "image/svg+xml"},
		{"GET", "/demo.json", 200, "application/json"},
		{"GET", "/nope.gif", 404, "image/gif"},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		req.Header.Set("User-Agent", firefoxUA)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.ct {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, tc.ct)
		}
		if tc.method == "HEAD" && len(body) != 0 {
			t.Errorf("HEAD %s: %d bytes of body", tc.path, len(body))
		}
	}
	if got := total(t, a, "demo"); got != 1 {
		t.Errorf("total %d, want 1 (only the GET of demo.png counts)", got)
	}
}

// TestDemoPageImages loads the local server's page as a newcomer's browser
// would and fetches every image it links: each must answer 200 and decode
// with the standard decoders, and each must count its hit.
func TestDemoPageImages(t *testing.T) {
	a, _ := testApp(t, "demo")
	a.demo = true
	base := startServer(t, a) + "/"
	client := &http.Client{Timeout: 5 * time.Second}
	page := fetch(t, client, base)
	srcs := regexp.MustCompile(`<img src="([^"]*)"`).FindAllStringSubmatch(string(page), -1)
	if len(srcs) < 3 {
		t.Fatalf("%d images on the page, want at least 3:\n%s", len(srcs), page)
	}
	for _, m := range srcs {
		src := html.UnescapeString(m[1])
		body := fetch(t, client, base+src)
		var err error
		switch ext := path.Ext(strings.SplitN(src, "?", 2)[0]); ext {
		case ".png":
			_, err = png.Decode(bytes.NewReader(body))
		case ".gif":
			_, err = gif.Decode(bytes.NewReader(body))
		case ".svg":
			err = decodeXML(body)
		default:
			t.Errorf("%s: an image of type %q", src, ext)
		}
		if err != nil {
			t.Errorf("%s does not decode: %v", src, err)
		}
	}
	if got := total(t, a, "demo"); got != uint64(len(srcs)) {
		t.Errorf("total %d after one view of the page, want %d (one per image)", got, len(srcs))
	}
}

// fetch GETs url and returns its body, failing unless it answers 200.
func fetch(t *testing.T, client *http.Client, url string) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", firefoxUA)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %d %q, want 200", url, resp.StatusCode, body)
	}
	return body
}

// decodeXML reads body whole as XML.
func decodeXML(body []byte) error {
	d := xml.NewDecoder(bytes.NewReader(body))
	for {
		if _, err := d.Token(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

func TestLocalServerRefusesGarbage(t *testing.T) {
	a, logs := testApp(t, "demo")
	base := startServer(t, a)
	for _, raw := range []string{
		"NOT HTTP\r\n\r\n",
		// A header over the 64 KiB a request may be.
		"GET /demo.png HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(conn, raw)
		status, _ := bufio.NewReader(conn).ReadString('\n')
		conn.Close()
		if !strings.HasPrefix(status, "HTTP/1.1 400") {
			t.Errorf("%.20q: answered %q, want a 400", raw, status)
		}
	}
	if got := total(t, a, "demo"); got != 0 {
		t.Errorf("total %d, want 0", got)
	}
	if !strings.Contains(logs.String(), "bad request") {
		t.Errorf("log %q", logs.String())
	}
}

// TestDemoPageSaysWhatCounts: the demo page says what a load of it
// counts, counter by counter, and it is so: under the default settings
// a first load of its images counts one view and a second none.
func TestDemoPageSaysWhatCounts(t *testing.T) {
	a, _ := testApp(t)
	a.demo = true
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	visitors := counter.DefaultSettings()
	visitors.Show = counter.ShowVisitors
	elsewhere := counter.DefaultSettings()
	elsewhere.Referrers = []string{"example.org"}
	for name, s := range map[string]counter.Settings{"plain": counter.DefaultSettings(), "every": {}, "people": visitors, "theirs": elsewhere} {
		if err := db.CreateWith(name, 0, testNow, s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	base := startServer(t, a) + "/"
	client := &http.Client{Timeout: 5 * time.Second}
	page := string(fetch(t, client, base))
	if strings.Contains(page, "Every reload") {
		t.Errorf("the page still says every reload counts")
	}
	seven := strconv.Itoa(3 + len(counter.LookNames())) // three images, then the looks
	for _, want := range []string{
		"within the\ncounter's reload window",
		"bots and scripts",
		"<h2>plain</h2>\n<p>The " + seven + " images below are one counter: a browser's first load of this page counts one view, not " + seven + " (the images after the first are its reloads), and loading the page again within 30 minutes counts nothing.</p>",
		"<h2>every</h2>\n<p>This counter counts every hit (reload=off): each load of this page adds " + seven + " views, one per image.</p>",
		"<h2>people</h2>\n<p>The " + seven + " images below are one counter: a browser's first load of this page counts one view, not " + seven + " (the images after the first are its reloads), and loading the page again within 30 minutes counts nothing. Its images show unique visitors: this browser adds one a day.</p>",
		"<h2>theirs</h2>\n<p>This counter counts only on the sites on its list (referrers=), and this page is not one: loading it counts nothing; the statistics page lists its hits as foreign.</p>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q:\n%s", want, page)
		}
	}
	// What it says of the default settings is what happens.
	srcs := regexp.MustCompile(`<img src="(plain\.[^"]*)"`).FindAllStringSubmatch(page, -1)
	if want := 3 + len(counter.LookNames()); len(srcs) != want {
		t.Fatalf("%d images of plain, want %d", len(srcs), want)
	}
	for load := 1; load <= 2; load++ {
		for _, m := range srcs {
			fetch(t, client, base+html.UnescapeString(m[1]))
		}
		if got := total(t, a, "plain"); got != 1 {
			t.Errorf("after load %d of the page, plain counted %d, want 1", load, got)
		}
	}
}
