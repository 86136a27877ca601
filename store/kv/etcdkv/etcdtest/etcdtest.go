// Package etcdtest runs a real etcd server for tests: Debian's
// (/usr/bin/etcd, etcd-server) or the one on PATH, on loopback ports
// picked free, its data in a temporary directory.
package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"hitcounter/cgi/testenv"
)

// Server is one etcd member, a cluster of its own.
type Server struct {
	Endpoint string // http://127.0.0.1:port
	cmd      *exec.Cmd
	done     chan error
	log      string
}

// Binary is the etcd server to run, or "" if there is none.
func Binary() string {
	if p, err := exec.LookPath("etcd"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/etcd"); err == nil {
		return "/usr/bin/etcd"
	}
	return ""
}

// Need skips tb when there is no etcd to run, or fails it under CI=true:
// a test of real parts must not pass there for want of one.
func Need(tb testing.TB) {
	tb.Helper()
	if Binary() == "" {
		testenv.Need(tb, "etcd (Debian's etcd-server)")
	}
}

// Start runs a server for tb, stopped at its end.
func Start(tb testing.TB) *Server {
	tb.Helper()
	Need(tb)
	s, err := Launch(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// StartClient is Start with a client of the server, closed at tb's end.
func StartClient(tb testing.TB) (*Server, *clientv3.Client) {
	tb.Helper()
	s := Start(tb)
	cli, err := s.Client()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cli.Close() })
	return s, cli
}

// Launch runs a server with its data and log in dir, and etcd's flags
// args; Stop ends it.
func Launch(dir string, args ...string) (*Server, error) {
	bin := Binary()
	if bin == "" {
		return nil, errors.New("etcdtest: no etcd binary")
	}
	var err error
	for range 3 { // a port picked free may be taken before etcd binds it
		var s *Server
		if s, err = launch(bin, dir, args); err == nil {
			return s, nil
		}
	}
	return nil, err
}

func launch(bin, dir string, args []string) (*Server, error) {
	client, peer := freePort(), freePort()
	if client == 0 || peer == 0 {
		return nil, errors.New("etcdtest: no free port")
	}
	cu := "http://127.0.0.1:" + strconv.Itoa(client)
	pu := "http://127.0.0.1:" + strconv.Itoa(peer)
	s, err := start(bin, dir, append([]string{
		"--name", "t",
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", cu, "--advertise-client-urls", cu,
		"--listen-peer-urls", pu, "--initial-advertise-peer-urls", pu,
		"--initial-cluster", "t=" + pu,
	}, args...), cu)
	if err != nil {
		return nil, err
	}
	if err := s.waitReady(10 * time.Second); err != nil {
		s.Stop()
		out, _ := os.ReadFile(s.log)
		return nil, fmt.Errorf("etcdtest: %s: %w\n%s", bin, err, tail(out))
	}
	return s, nil
}

// start runs etcd with args, its log in dir, serving clients at
// endpoint; it does not wait for it to answer.
func start(bin, dir string, args []string, endpoint string) (*Server, error) {
	log, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(bin, args...)
	// Not the machine's own etcd settings (/etc/default/etcd's ETCD_*).
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("etcdtest: start %s: %w", bin, err)
	}
	s := &Server{Endpoint: endpoint, cmd: cmd, done: make(chan error, 1), log: log.Name()}
	go func() { s.done <- cmd.Wait() }()
	return s, nil
}

func (s *Server) waitReady(wait time.Duration) error {
	cli, err := s.Client()
	if err != nil {
		return err
	}
	defer cli.Close()
	deadline := time.Now().Add(wait)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err := cli.Get(ctx, "ready")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case e := <-s.done:
			s.done <- e
			return fmt.Errorf("exited: %v", e)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %w", wait, err)
		}
	}
}

// Client connects to the server.
func (s *Server) Client() (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   []string{s.Endpoint},
		DialTimeout: 2 * time.Second,
		Logger:      zap.NewNop(),
	})
}

// Pid is the server's process id, to read its memory in /proc.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Pause stops the server as a hung machine would (SIGSTOP): connections
// stay open, nothing answers.
func (s *Server) Pause() { s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume lets a paused server go on.
func (s *Server) Resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

// Restart kills the server (SIGKILL) and starts it again on the same
// ports and data, and waits until it answers.
func (s *Server) Restart() error {
	if err := s.Start(); err != nil {
		return err
	}
	return s.waitReady(10 * time.Second)
}

// Start kills the server (SIGKILL) if it runs, and starts it again on the
// same ports and data, without waiting for it to answer: a cluster's
// member answers only once a majority runs.
func (s *Server) Start() error {
	s.Stop()
	log, err := os.OpenFile(s.log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(s.cmd.Path, s.cmd.Args[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = s.cmd.Env, log, log
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.done = cmd, make(chan error, 1)
	go func() { s.done <- cmd.Wait() }()
	return nil
}

// WaitReady waits up to wait for the server to answer a read.
func (s *Server) WaitReady(wait time.Duration) error { return s.waitReady(wait) }

// Stop kills the server (SIGKILL) and waits for it.
func (s *Server) Stop() {
	s.cmd.Process.Kill()
	e := <-s.done
	s.done <- e
}

// freePort returns a loopback port that was free a moment ago, never
// one of the machine's own etcd or Prometheus (2379, 2380, 9090), which
// a test must not take even when they are free.
func freePort() int {
	for range 10 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		switch port {
		case 2379, 2380, 9090:
			continue
		}
		return port
	}
	return 0
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
