// Command worsthit times the costliest images a stranger can ask for in
// a digit set, beside a plain hit, under CGI and under FastCGI, for
// deploy/bench/bench-worst.sh: for each case, the wall time of n
// requests (p50 and the slowest), the CPU time a request took (user and
// system, the mean: on a shared machine the wall time holds the waits
// for a core, the CPU time not), the peak RSS and the bytes of the
// image. Under CGI each request is a process of the hit binary, and its
// peak RSS is GNU time's (benchstat.PeakRSS); under FastCGI the full
// tool serves every request on one socket, one at a time, and the peak
// RSS is the process's high-water mark (VmHWM) after the case, which
// only grows: each case's figure holds the cases before it.
//
//	worsthit -counter CGI-BINARY -tool FULL-TOOL -db DB -n N PATH?QUERY...
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/testenv"
	"hitcounter/deploy/bench/benchstat"
)

func main() {
	counter := flag.String("counter", "", "the hit binary, run as CGI")
	tool := flag.String("tool", "", "the full tool, run as FastCGI")
	db := flag.String("db", "", "the database")
	n := flag.Int("n", 20, "requests a case and transport")
	flag.Parse()
	if err := run(*counter, *tool, *db, *n, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "worsthit:", err)
		os.Exit(1)
	}
}

type result struct {
	p50, slowest time.Duration
	cpu          time.Duration // the mean a request
	rss          int64
	bytes        int
	status       int
}

func run(counter, tool, db string, n int, cases []string) error {
	dir, err := os.MkdirTemp("", "worsthit")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cgi := make([]result, len(cases))
	for i, c := range cases {
		if cgi[i], err = viaCGI(counter, db, dir, c, n); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	fcgi, err := viaFastCGI(tool, db, dir, cases, n)
	if err != nil {
		return err
	}
	fmt.Printf("%-50s | %-40s | %s\n", "", "CGI (hit binary)", "FastCGI (full tool)")
	fmt.Printf("%-50s | %6s %7s %7s %7s %8s | %6s %7s %7s %7s %8s\n", "request", "status", "p50 ms", "max ms", "CPU ms", "peak RSS", "status", "p50 ms", "max ms", "CPU ms", "VmHWM")
	for i, c := range cases {
		a, b := cgi[i], fcgi[i]
		fmt.Printf("%-50s | %6d %7.1f %7.1f %7.1f %7.1fM | %6d %7.1f %7.1f %7.1f %7.1fM  %d bytes\n", c,
			a.status, benchstat.Ms(a.p50), benchstat.Ms(a.slowest), benchstat.Ms(a.cpu), mb(a.rss),
			b.status, benchstat.Ms(b.p50), benchstat.Ms(b.slowest), benchstat.Ms(b.cpu), mb(b.rss), a.bytes)
	}
	return nil
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// cgiEnv is a CGI request for PATH?QUERY.
func cgiEnv(db, dir, c string) []string {
	path, query, _ := strings.Cut(c, "?")
	return []string{"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=GET", "SERVER_PROTOCOL=HTTP/1.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "QUERY_STRING=" + query,
		"REQUEST_URI=/cgi-bin/counter.cgi" + c, "REMOTE_ADDR=192.0.2.7", "HTTP_USER_AGENT=" + fcgitest.BrowserUA,
		"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}
}

func viaCGI(bin, db, dir, c string, n int) (result, error) {
	env := cgiEnv(db, dir, c)
	var walls []time.Duration
	var r result
	var cpu time.Duration
	for range n {
		var b bytes.Buffer
		cmd := exec.Command(bin)
		cmd.Env, cmd.Stdout = env, &b
		start := time.Now()
		err := cmd.Run()
		wall, out := time.Since(start), b.Bytes()
		if err != nil {
			return r, err
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		ans, err := fcgitest.ParseAnswer(out)
		if err != nil {
			return r, err
		}
		r.status, r.bytes = ans.Status, len(ans.Body)
		walls = append(walls, wall)
	}
	rss, err := benchstat.PeakRSS(bin, env, nil)
	if err != nil {
		return r, err
	}
	r.rss, r.cpu = rss, cpu/time.Duration(n)
	r.p50, r.slowest = benchstat.Percentile(walls, 50), slices.Max(walls)
	return r, nil
}

// viaFastCGI starts tool as a web server would, on a listening socket as
// its stdin, and sends every case n times, one request at a time.
func viaFastCGI(tool, db, dir string, cases []string, n int) ([]result, error) {
	sock := filepath.Join(dir, "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	lf, err := ln.(*net.UnixListener).File()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(tool)
	cmd.Env = []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = lf, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lf.Close()
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	res := make([]result, len(cases))
	for i, c := range cases {
		path, query, _ := strings.Cut(c, "?")
		env := fcgitest.Env("GET", path, query, "REMOTE_ADDR", "192.0.2.7")
		var walls []time.Duration
		before, err := testenv.ReadCPU(cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		for range n {
			cl, err := fcgitest.Dial(sock)
			if err != nil {
				return nil, err
			}
			start := time.Now()
			out, _, err := cl.Request(1, false, env, nil, 0)
			walls = append(walls, time.Since(start))
			cl.Conn.Close()
			if err != nil {
				return nil, fmt.Errorf("%s over FastCGI: %w; stderr %s", c, err, stderr.String())
			}
			ans, err := fcgitest.ParseAnswer(out)
			if err != nil {
				return nil, err
			}
			res[i].status, res[i].bytes = ans.Status, len(ans.Body)
		}
		res[i].p50, res[i].slowest = benchstat.Percentile(walls, 50), slices.Max(walls)
		p, err := testenv.ReadProcess(cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		res[i].rss = p.PeakRSS
		after, err := testenv.ReadCPU(cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		res[i].cpu = (after.Self - before.Self) / time.Duration(n)
	}
	return res, nil
}
