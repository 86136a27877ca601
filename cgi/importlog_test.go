package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// writeAccessLog writes about size bytes of an Apache combined log over
// 30 days of 2026, the same every time: a fifth of the requests for the
// home page ("/", "/index.html" or "/?utm_source=feed"), the rest for
// posts, images and style sheets; one in ten by a crawler; fifty thousand
// visitors of six browsers. It returns the requests for the home page, and
// by which kind of client.
func writeAccessLog(w io.Writer, size int64) (home, homeBots int64, err error) {
	agents := []string{
		"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
	}
	const bot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	homes := []string{"/", "/index.html", "/?utm_source=feed"}
	others := []string{"/posts/hello-world/", "/posts/a-longer-title-for-a-post/", "/img/header.jpg", "/css/site.css", "/about/", "/feed.xml"}
	bw := bufio.NewWriterSize(w, 1<<20)
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	step := time.Duration(int64(30*24*time.Hour) / (size / 215)) // 215 bytes a line, about
	x := uint64(88172645463325252)
	var written int64
	b := make([]byte, 0, 512)
	for i := int64(0); written < size; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		at := start.Add(time.Duration(i) * step)
		visitor := x % 50000
		path := others[x>>20%uint64(len(others))]
		if x>>24%5 == 0 {
			path = homes[x>>28%3]
		}
		ua := agents[visitor%uint64(len(agents))]
		if x>>32%10 == 0 {
			ua = bot
		}
		if path == homes[0] || path == homes[1] || path == homes[2] {
			home++
			if ua == bot {
				homeBots++
			}
		}
		b = b[:0]
		b = append(b, "198.51."...)
		b = strconv.AppendUint(b, visitor/250, 10)
		b = append(b, '.')
		b = strconv.AppendUint(b, visitor%250+1, 10)
		b = append(b, " - - ["...)
		b = at.AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
		b = append(b, `] "GET `...)
		b = append(b, path...)
		b = append(b, ` HTTP/1.1" 200 `...)
		b = strconv.AppendUint(b, 512+x>>40%20000, 10)
		b = append(b, ` "https://news.example/item?id=`...)
		b = strconv.AppendUint(b, x>>44%1000, 10)
		b = append(b, `" "`...)
		b = append(b, ua...)
		b = append(b, "\"\n"...)
		n, err := bw.Write(b)
		if err != nil {
			return 0, 0, err
		}
		written += int64(n)
	}
	return home, homeBots, bw.Flush()
}

// TestImportBigLog imports a generated gigabyte of access log (100 MB
// with -short) through the built binary and prints its peak memory beside
// that of a log a tenth the size: the memory of a log import is bounded by
// its visitors of two days, not by the size of the log. Every request for
// the home page comes out as a view, a reload or a bot's hit.
func TestImportBigLog(t *testing.T) {
	size := int64(1 << 30)
	if testing.Short() {
		size = 100 << 20
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	if out, err := adminRun(t, db, "create", "blog"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	importLog := func(size int64) (peakKB int64, took time.Duration, out string, home, homeBots int64) {
		t.Helper()
		path := filepath.Join(dir, fmt.Sprintf("access-%d.log", size))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		home, homeBots, err = writeAccessLog(f, size)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		cmd := exec.Command(counterBinary(t), "import", "-dry-run", "-log", path, "-path", "/", "blog")
		cmd.Env = testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
		peak := underGNUTime(t, cmd)
		start := time.Now()
		b, err := cmd.CombinedOutput()
		took = time.Since(start)
		if err != nil {
			t.Fatalf("import of %d MB: %v\n%s", size>>20, err, b)
		}
		return peak() >> 10, took, string(b), home, homeBots
	}
	smallRSS, smallTook, _, _, _ := importLog(size / 10)
	bigRSS, took, out, home, homeBots := importLog(size)
	t.Logf("import -dry-run -log of %d MB: peak RSS %d kB in %v (%.0f MB/s); of %d MB: %d kB in %v",
		size>>20, bigRSS, took.Round(time.Millisecond), float64(size>>20)/took.Seconds(), size/10>>20, smallRSS, smallTook.Round(time.Millisecond))
	if bigRSS > smallRSS+16<<10 {
		t.Errorf("peak memory %d kB for %d MB of log, %d kB for a tenth of it: not bounded", bigRSS, size>>20, smallRSS)
	}
	// The summary: about 30 days, each new, and views that with reloads
	// and bots account for every request for the home page.
	var days int
	var views, visitors uint64
	if _, err := fmt.Sscanf(out[strings.Index(out, "days: "):], "days: %d new", &days); err != nil || days < 28 || days > 31 {
		t.Errorf("%d days in the summary:\n%s", days, out)
	}
	if _, err := fmt.Sscanf(out[strings.Index(out, "views: "):], "views: 0 -> %d; visitors: 0 -> %d", &views, &visitors); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if views == 0 || int64(views) > home-homeBots || visitors == 0 || visitors > views {
		t.Errorf("%d views and %d visitors of %d requests for the home page, %d by bots", views, visitors, home, homeBots)
	}
}
