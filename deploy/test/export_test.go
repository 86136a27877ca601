package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Sizes of the site that TestServerStreamedExports exports: 10,000
// page-days, about 700 KB of CSV, well past the 64 KiB that counter.cgi
// holds back to send whole, and ten of the pieces it reads the file in.
// A past day keeps the rows of its 200 most viewed pages (schema 5), so
// the site has 200 pages over 50 days.
const (
	streamPages = 200
	streamDays  = 50
)

// streamPage is the key of page i of that site.
func streamPage(i int) string { return fmt.Sprintf("/posts/2026/a-fairly-long-slug-of-a-post-%04d", i) }

// writeStreamSite writes the site's history in the counter's own JSON
// export, for its import command.
func writeStreamSite(t *testing.T, path string) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"name":"big","page_days":[`)
	today := time.Now().UTC()
	for d := range streamDays {
		date := today.AddDate(0, 0, d-streamDays).Format(time.DateOnly)
		for p := range streamPages {
			if d > 0 || p > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"date":%q,"page":%q,"views":%d,"visitors":%d}`, date, streamPage(p), p%9+1, p%4)
		}
	}
	b.WriteString("]}\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServerStreamedExports fetches the exports of a site long enough to
// stream through each server set-up: counter.cgi sends them without a
// length as it reads them, and each server must pass them on whole. HEAD
// answers with no body, and the counter logs nothing. The CSV is the same
// bytes through every server.
func TestServerStreamedExports(t *testing.T) {
	var first []byte
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", "big", "-site", "-hosts", "big.example")
		file := filepath.Join(filepath.Dir(dbPath), "big-daily.json")
		writeStreamSite(t, file)
		admin(t, cgiDir, dbPath, "import", file)
		client := &http.Client{Timeout: time.Minute}
		base := srv.URL + "/cgi-bin/counter.cgi/big/"
		for _, name := range []string{"stats.csv", "stats.json"} {
			resp, body, err := getAll(client, http.MethodGet, base+name)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s: %v after %d bytes", name, err, len(body))
				continue
			}
			if err := checkStreamExport(name, body); err != nil {
				t.Errorf("GET %s (%d bytes): %v", name, len(body), err)
			}
			if name == "stats.csv" {
				if first == nil {
					first = body
				} else if !bytes.Equal(body, first) {
					t.Errorf("stats.csv differs from the first server's")
				}
			}
			resp, body, err = getAll(client, http.MethodHead, base+name)
			if err != nil || resp.StatusCode != http.StatusOK || len(body) != 0 {
				t.Errorf("HEAD %s: %v, %d bytes of body; want 200 and none", name, err, len(body))
			}
		}
		if log, err := srv.CGIStderr(); err != nil || log != "" {
			t.Errorf("counter.cgi's stderr: %q, %v; want nothing", log, err)
		}
	})
}

// getAll sends one request and reads its whole answer, however long.
func getAll(client *http.Client, method, url string) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// checkStreamExport says how the export name of the site is not whole.
func checkStreamExport(name string, body []byte) error {
	last := []byte(streamPage(streamPages - 1))
	if name == "stats.csv" {
		if n, want := bytes.Count(body, []byte("\r\n")), 1+streamDays+streamPages*streamDays; n != want {
			return fmt.Errorf("%d lines, want %d", n, want)
		}
		if end := body[bytes.LastIndex(body[:len(body)-2], []byte("\r\n"))+2:]; !bytes.Contains(end, last) {
			return fmt.Errorf("last line %q, want the last page's", end)
		}
		return nil
	}
	var v struct {
		PageDays []struct{ Page string } `json:"page_days"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	if n := len(v.PageDays); n != streamPages*streamDays || v.PageDays[n-1].Page != string(last) {
		return fmt.Errorf("%d page-days, want %d, the last page's last", n, streamPages*streamDays)
	}
	return nil
}
