package main

import (
	"bytes"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/cgi/testenv"
	"hitcounter/counter"
	"hitcounter/store"
	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestClusterFaults runs three FastCGI services of the full tool (built
// -tags etcd) on a real three-member etcd cluster, behind one nginx that
// balances across them, under load from many visitors with browsers'
// User-Agents, each coming back, and breaks things midway:
//
//   - the etcd leader killed (SIGKILL) and started again: every hit
//     answered with the counted image is counted, and no other, and
//     check passes;
//   - one service killed (SIGKILL) and started again: the count lies
//     between the hits answered and those plus the hits in flight when
//     it died (nginx sends them on to another);
//   - two members killed, the leader left alone: the hits that follow
//     answer the dashes image with 503 within a bounded wait and one log
//     line each; the count lies between the hits answered and those plus
//     the hits in flight at the stop (a commit the lone leader took may
//     apply, once, when the others are back); the members started
//     again, the services count again by themselves;
//   - VisitorsAcrossHosts: visitors whose hits reach different services
//     are one visitor each, their other hits reloads.
func TestClusterFaults(t *testing.T) {
	nginx := serverBin(t, "nginx", "/usr/sbin/nginx")
	cl := etcdtest.StartCluster(t, 3)
	dir := t.TempDir()
	tool := filepath.Join(dir, "counter-tool")
	if out, err := exec.Command("go", "build", "-tags", "etcd", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("build -tags etcd: %v\n%s", err, out)
	}
	db := etcdkv.Scheme + cl.Endpoints() + "/faults"
	env := []string{"PATH=" + os.Getenv("PATH"), "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}
	admin := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := runPlain(t, tool, append(env, "COUNTER_DB="+db), "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}
	admin("create", "page", "reload=off")
	admin("create", "visits")

	svcs := make([]*clusterService, 3)
	for i := range svcs {
		svcs[i] = startClusterService(t, tool, filepath.Join(dir, fmt.Sprintf("svc%d", i)), db)
	}
	base := startBalancer(t, nginx, filepath.Join(dir, "nginx"), svcs)
	glance := clusterGlance(t, db)
	count := func(name string) int64 { return int64(glance(name).Count) }

	// 1. The leader killed midway. A hit may meet the election and be
	// answered with the dashes; only one whose commit's outcome the
	// service could not learn (it says so) may count all the same.
	start := time.Now()
	leader := cl.Leader()
	mark := logMark(svcs)
	r := hitLoad(t, base, 400, 12, func() {
		cl.Members[leader].Stop()
	})
	if err := cl.Members[leader].Start(); err != nil {
		t.Fatal(err)
	}
	got := count("page")
	lines := mark.since()
	unknown := int64(0)
	for _, l := range lines {
		if strings.Contains(l, kv.ErrUnknownOutcome.Error()) {
			unknown++
		}
	}
	t.Logf("leader killed: %d hits answered as counted, %d with dashes, %d otherwise (%v), %d counted, %d log lines (%d outcomes unknown), %v",
		r.counted, r.dashes, r.other, r.statuses, got, len(lines), unknown, time.Since(start).Round(time.Millisecond))
	if len(lines) > 0 {
		t.Logf("leader killed: the first log line: %s", lines[0])
	}
	if got < r.counted || got > r.counted+unknown || r.other != 0 {
		t.Errorf("leader killed: %d counted, %d answered as counted, %d commits' outcome unknown, %d answered neither way", got, r.counted, unknown, r.other)
	}
	if out := admin("check"); !strings.Contains(out, fmt.Sprintf(" %d view(s)", got)) {
		t.Errorf("check after the leader's kill: %s, want %d views", out, got)
	}
	if err := cl.Members[leader].WaitReady(20 * time.Second); err != nil {
		t.Fatalf("the member killed did not come back: %v", err)
	}

	// 2. A service killed midway.
	start = time.Now()
	before := got
	var killing, dead time.Time
	victim := svcs[1]
	r = hitLoad(t, base, 400, 12, func() {
		killing = time.Now()
		victim.kill()
		dead = time.Now()
	})
	// In flight: sent before it was dead, answered after it was killed,
	// and sent to it first (X-Upstream names every service nginx tried).
	inFlight, toVictim := r.outstanding(killing, dead, victim.sock)
	victim.start(t)
	got = count("page") - before
	t.Logf("service killed: %d hits answered as counted, %d otherwise (%v), %d counted, %d in flight at the kill (%d of them through it), %v",
		r.counted, r.other, r.statuses, got, inFlight, toVictim, time.Since(start).Round(time.Millisecond))
	if got < r.counted || got > r.counted+int64(toVictim) {
		t.Errorf("service killed: %d counted, want from %d answered to %d with its hits in flight", got, r.counted, r.counted+int64(toVictim))
	}

	// 3. A majority stopped midway: the two followers, so that the
	// leader, left alone, still takes the commits in flight, which may
	// apply once the others are back (and no more than once).
	start = time.Now()
	before += got
	leader = cl.Leader()
	stopped := []int{(leader + 1) % 3, (leader + 2) % 3}
	mark = logMark(svcs)
	var stopping, gone time.Time
	const outageHits = 48
	r = hitLoad(t, base, outageHits, 12, func() {
		stopping = time.Now()
		for _, m := range stopped {
			cl.Members[m].Stop()
		}
		gone = time.Now()
	})
	inFlight, _ = r.outstanding(stopping, gone, "")
	after := 0 // hits sent once the majority was gone, all to fail
	for _, h := range r.hits {
		if h.start.After(gone) {
			after++
			if h.status != http.StatusServiceUnavailable || !h.image {
				t.Errorf("majority gone: a hit answered %d (an image: %v), want 503 with the dashes image", h.status, h.image)
			}
		}
	}
	lines = mark.since()
	failed := outageHits - r.counted
	t.Logf("majority stopped: %d answered as counted, %d with dashes (%v), %d in flight at the stop, %d sent after it, slowest %v, %d log lines, %v",
		r.counted, r.dashes, r.statuses, inFlight, after, r.slowest.Round(time.Millisecond), len(lines), time.Since(start).Round(time.Millisecond))
	if len(lines) > 0 {
		t.Logf("majority stopped: the first log line: %s", lines[0])
	}
	if r.dashes != failed || int64(r.statuses[http.StatusServiceUnavailable]) != failed || after == 0 {
		t.Errorf("majority stopped: %d of %d hits not answered as counted, %d of them with the dashes image, %d with 503; %d sent once it was gone",
			failed, outageHits, r.dashes, r.statuses[http.StatusServiceUnavailable], after)
	}
	if int64(len(lines)) > failed {
		t.Errorf("majority stopped: %d log lines for %d hits not counted, want one each at most:\n%s", len(lines), failed, strings.Join(lines, "\n"))
	}
	// Each of a hit's steps waits COUNTER_WAIT (2 s) at most: its
	// facts, its visitor mark, its commit, the mark taken back.
	if r.slowest > 15*time.Second {
		t.Errorf("majority stopped: a hit waited %v", r.slowest)
	}
	for _, m := range stopped {
		if err := cl.Members[m].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range cl.Members {
		if err := m.WaitReady(20 * time.Second); err != nil {
			t.Fatalf("the majority did not come back: %v", err)
		}
	}

	got = count("page") - before
	t.Logf("majority back: %d counted of the hits while it was stopped", got)
	if got < r.counted || got > r.counted+int64(inFlight) {
		t.Errorf("majority stopped: %d counted, want from %d answered to %d with those in flight", got, r.counted, r.counted+int64(inFlight))
	}
	before += got

	// 4. Back: the services count again by themselves.
	start = time.Now()
	r = hitLoad(t, base, 200, 12, nil)
	got = count("page") - before
	t.Logf("majority back: %d answered as counted, %d otherwise (%v), %d counted, %v", r.counted, r.other, r.statuses, got, time.Since(start).Round(time.Millisecond))
	if got != r.counted || r.counted == 0 {
		t.Errorf("majority back: %d counted, %d answered as counted", got, r.counted)
	}
	admin("check")

	t.Run("VisitorsAcrossHosts", func(t *testing.T) {
		// Each visitor comes three times, the balancer sending each
		// time to the next service: one visitor, one view, two reloads.
		const visitors = 30
		var wg sync.WaitGroup
		for v := range visitors {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					hitBalanced(t, http.DefaultClient, base+"/cgi-bin/counter.cgi/visits.png", clusterVisitor(1000+v))
				}
			}()
		}
		wg.Wait()
		g := glance("visits")
		views, seen, reloads := g.Count, g.Today.Visitors, g.Today.NotCounted[counter.Reload]
		t.Logf("%d visitors' three hits each through three services: %d views, %d visitors, %d reloads", visitors, views, seen, reloads)
		if views != visitors || seen != visitors || reloads != 2*visitors {
			t.Errorf("%d views, %d visitors and %d reloads, want %d, %d and %d: the hosts do not share the visitor marks",
				views, seen, reloads, visitors, visitors, 2*visitors)
		}
	})
}

// clusterService is one FastCGI service of the full tool, on its own
// socket and runtime directory, as each web server of a cluster runs it.
type clusterService struct {
	tool, dir, db, sock, logPath string
	cmd                          *exec.Cmd
	exited                       chan struct{}
	starts                       int // start lines in its log
}

func startClusterService(t *testing.T, tool, dir, db string) *clusterService {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	s := &clusterService{tool: tool, dir: dir, db: db, sock: filepath.Join(dir, "fcgi.sock"), logPath: filepath.Join(dir, "stderr.log")}
	s.start(t)
	t.Cleanup(s.kill)
	return s
}

// start starts the service on its socket, made anew, as systemd would
// after a crash.
func (s *clusterService) start(t *testing.T) {
	t.Helper()
	os.Remove(s.sock)
	ln, err := net.Listen("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := ln.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	defer lf.Close()
	log, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(s.tool)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "COUNTER_DB=" + s.db, "COUNTER_RUN_DIR=" + filepath.Join(s.dir, "run"),
		"COUNTER_TRUSTED_PROXIES=127.0.0.1"}
	cmd.Stdin, cmd.Stderr = lf, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.exited) }()
	// Serving once it says so: its start line is not one of a hit's.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(s.logPath); bytes.Count(b, []byte(", serving\n")) > s.starts {
			s.starts++
			return
		}
		select {
		case <-s.exited:
			t.Fatalf("service %s exited at start", s.dir)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("service %s did not say it serves within 10s", s.dir)
		}
	}
}

// kill kills the service with SIGKILL and waits for it.
func (s *clusterService) kill() {
	s.cmd.Process.Kill()
	<-s.exited
}

func (s *clusterService) logLines() []string {
	b, _ := os.ReadFile(s.logPath)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")[:strings.Count(string(b), "\n")]
}

// logMarks are where the services' logs stood.
type logMarks struct {
	svcs []*clusterService
	at   []int
}

func logMark(svcs []*clusterService) logMarks {
	m := logMarks{svcs: svcs}
	for _, s := range svcs {
		m.at = append(m.at, len(s.logLines()))
	}
	return m
}

// since returns the services' log lines written since the mark, but their
// start lines.
func (m logMarks) since() []string {
	var lines []string
	for i, s := range m.svcs {
		for _, l := range s.logLines()[m.at[i]:] {
			if !strings.HasSuffix(l, ", serving") {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// startBalancer starts nginx on a free loopback port with the shipped
// location snippet and an upstream of the services' sockets, and returns
// its base URL. It believes the X-Forwarded-For of the test's visitors,
// as the services believe its own (COUNTER_TRUSTED_PROXIES), and says in
// X-Upstream which services a request went to.
func startBalancer(t *testing.T, bin, dir string, svcs []*clusterService) string {
	t.Helper()
	for _, d := range []string{"temp/body", "temp/fastcgi", "temp/proxy", "temp/uwsgi", "temp/scgi"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	snippet, err := os.ReadFile("../deploy/nginx/counter.conf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "counter.conf"), snippet, 0o644); err != nil {
		t.Fatal(err)
	}
	// What Debian's /etc/nginx/fastcgi_params holds, which the snippet
	// includes.
	params := `fastcgi_param QUERY_STRING $query_string;
fastcgi_param REQUEST_METHOD $request_method;
fastcgi_param CONTENT_TYPE $content_type;
fastcgi_param CONTENT_LENGTH $content_length;
fastcgi_param SCRIPT_NAME $fastcgi_script_name;
fastcgi_param REQUEST_URI $request_uri;
fastcgi_param DOCUMENT_URI $document_uri;
fastcgi_param DOCUMENT_ROOT $document_root;
fastcgi_param SERVER_PROTOCOL $server_protocol;
fastcgi_param REQUEST_SCHEME $scheme;
fastcgi_param HTTPS $https if_not_empty;
fastcgi_param GATEWAY_INTERFACE CGI/1.1;
fastcgi_param SERVER_SOFTWARE nginx/$nginx_version;
fastcgi_param REMOTE_ADDR $remote_addr;
fastcgi_param REMOTE_PORT $remote_port;
fastcgi_param SERVER_ADDR $server_addr;
fastcgi_param SERVER_PORT $server_port;
fastcgi_param SERVER_NAME $server_name;
fastcgi_param REDIRECT_STATUS 200;
`
	if err := os.WriteFile(filepath.Join(dir, "fastcgi_params"), []byte(params), 0o644); err != nil {
		t.Fatal(err)
	}
	var upstream strings.Builder
	for _, s := range svcs {
		fmt.Fprintf(&upstream, "\t\tserver unix:%s;\n", s.sock)
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	errorLog := filepath.Join(dir, "error.log")
	for attempt := 1; ; attempt++ {
		port := freeLoopbackPort(t)
		conf := filepath.Join(dir, "nginx.conf")
		text := fmt.Sprintf(`daemon off;
%[1]s
worker_processes 2;
pid %[2]s/nginx.pid;
error_log %[3]s warn;
events { worker_connections 512; }
http {
	access_log off;
	client_body_temp_path %[2]s/temp/body;
	fastcgi_temp_path %[2]s/temp/fastcgi;
	proxy_temp_path %[2]s/temp/proxy;
	uwsgi_temp_path %[2]s/temp/uwsgi;
	scgi_temp_path %[2]s/temp/scgi;
	upstream counter_fastcgi {
%[4]s		keepalive 8;
	}
	server {
		listen %[5]s;
		root %[2]s;
		set_real_ip_from 127.0.0.1;
		real_ip_header X-Forwarded-For;
		add_header X-Upstream $upstream_addr always;
		include %[2]s/counter.conf;
	}
}
`, user, dir, errorLog, upstream.String(), port)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-p", dir, "-e", errorLog, "-c", conf)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		out, err := os.Create(filepath.Join(dir, "stderr.log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		out.Close()
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		stop := func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
			}
		}
		base := "http://" + port
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if c, err := net.Dial("tcp", base[len("http://"):]); err == nil {
				c.Close()
				t.Cleanup(stop)
				return base
			}
			select {
			case <-exited:
				deadline = time.Time{}
			default:
			}
		}
		stop()
		logs, _ := os.ReadFile(errorLog)
		more, _ := os.ReadFile(filepath.Join(dir, "stderr.log"))
		if attempt < 3 && bytes.Contains(append(logs, more...), []byte("in use")) {
			continue
		}
		t.Fatalf("nginx did not start:\n%s%s", logs, more)
	}
}

// serverBin finds a web server's binary, or skips (fails under CI=true).
func serverBin(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	testenv.Skip(t, names[0]+" not installed")
	return ""
}

// clusterGlance returns a reader of a counter's figures in the cluster's
// store at db, read directly.
func clusterGlance(t *testing.T, db string) func(name string) store.Glance {
	opener := etcdkv.NewOpener(clientv3.Config{})
	t.Cleanup(func() { opener.Close() })
	opts := store.Options{ReadOnly: true, Wait: 5 * time.Second, Remote: opener.Open}
	return func(name string) store.Glance {
		t.Helper()
		s, err := store.Open(db, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		g, err := s.Glance(name, "", nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
}

// clusterVisitor is visitor i: an address of its own and one of the
// browsers' User-Agents.
type browserVisitor struct{ addr, ua string }

func clusterVisitor(i int) browserVisitor {
	uas := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36",
		"Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%[1]d.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_%d like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%d.1 Safari/605.1.15",
	}
	return browserVisitor{
		addr: fmt.Sprintf("2001:db8:%x::%x", i/250, i%250+1),
		ua:   fmt.Sprintf(uas[i%len(uas)], 100+i%40),
	}
}

// balancedHit is what one hit brought back.
type balancedHit struct {
	status   int
	image    bool // a whole PNG
	upstream string
	start    time.Time
	end      time.Time
}

func hitBalanced(t *testing.T, c *http.Client, url string, v browserVisitor) balancedHit {
	h := balancedHit{start: time.Now()}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("User-Agent", v.ua)
	req.Header.Set("X-Forwarded-For", v.addr)
	req.Header.Set("Referer", "http://example.org/")
	resp, err := c.Do(req)
	if err != nil {
		h.end = time.Now()
		return h
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	h.end = time.Now()
	h.status, h.upstream = resp.StatusCode, resp.Header.Get("X-Upstream")
	if resp.Header.Get("Content-Type") == "image/png" {
		_, _, err := image.Decode(bytes.NewReader(body))
		h.image = err == nil
	}
	return h
}

// loadResult sums up a load's hits.
type loadResult struct {
	counted  int64 // 200 with the image
	dashes   int64 // the dashes image, with another status
	other    int64
	statuses map[int]int
	slowest  time.Duration
	hits     []balancedHit
}

// outstanding counts the hits sent before to and answered after from,
// and those of them that went to the service at sock.
func (r loadResult) outstanding(from, to time.Time, sock string) (all, through int) {
	for _, h := range r.hits {
		if h.start.Before(to) && h.end.After(from) {
			all++
			if strings.Contains(h.upstream, sock) {
				through++
			}
		}
	}
	return all, through
}

// hitLoad sends n hits on counter page from clients visitors at once,
// each visitor coming back for more (reloads); midway, once half are
// answered, it calls midway, if not nil.
func hitLoad(t *testing.T, base string, n, clients int, midway func()) loadResult {
	t.Helper()
	c := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer c.CloseIdleConnections()
	var next, done atomic.Int64
	var once sync.Once
	var mu sync.Mutex
	var res loadResult
	res.statuses = map[int]int{}
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				h := hitBalanced(t, c, base+"/cgi-bin/counter.cgi/page.png", clusterVisitor(int(i)%(n/3+1)))
				if done.Add(1) == int64(n/2) && midway != nil {
					once.Do(midway)
				}
				mu.Lock()
				res.hits = append(res.hits, h)
				res.statuses[h.status]++
				res.slowest = max(res.slowest, h.end.Sub(h.start))
				switch {
				case h.status == http.StatusOK && h.image:
					res.counted++
				case h.image:
					res.dashes++
				default:
					res.other++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return res
}
