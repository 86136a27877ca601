package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Cluster is a real etcd cluster of several members on loopback, each
// with its own ports and data directory.
type Cluster struct {
	Members []*Server
}

// StartCluster runs an n-member cluster for tb, every member killed at
// its end. Each member can be killed (Member.Stop, SIGKILL) and started
// again (Member.Restart) by the test.
func StartCluster(tb testing.TB, n int) *Cluster {
	tb.Helper()
	Need(tb)
	var err error
	for range 3 { // a port picked free may be taken before etcd binds it
		var c *Cluster
		if c, err = launchCluster(tb, n); err == nil {
			return c
		}
	}
	tb.Fatal(err)
	return nil
}

func launchCluster(tb testing.TB, n int) (*Cluster, error) {
	bin := Binary()
	if bin == "" {
		return nil, errors.New("etcdtest: no etcd binary")
	}
	type ports struct{ client, peer string }
	ps := make([]ports, n)
	var initial []string
	for i := range ps {
		c, p := freePort(), freePort()
		if c == 0 || p == 0 {
			return nil, errors.New("etcdtest: no free port")
		}
		ps[i] = ports{"http://127.0.0.1:" + strconv.Itoa(c), "http://127.0.0.1:" + strconv.Itoa(p)}
		initial = append(initial, fmt.Sprintf("m%d=%s", i, ps[i].peer))
	}
	token := fmt.Sprintf("etcdtest-%d-%d", os.Getpid(), time.Now().UnixNano())
	c := &Cluster{}
	// A member waits for a majority before it answers: start them all,
	// then wait for each.
	for i, p := range ps {
		dir := tb.TempDir()
		s, err := start(bin, dir, []string{
			"--name", fmt.Sprintf("m%d", i),
			"--data-dir", filepath.Join(dir, "etcd"),
			"--listen-client-urls", p.client, "--advertise-client-urls", p.client,
			"--listen-peer-urls", p.peer, "--initial-advertise-peer-urls", p.peer,
			"--initial-cluster", strings.Join(initial, ","),
			"--initial-cluster-token", token,
			"--initial-cluster-state", "new",
		}, p.client)
		if err != nil {
			c.stop()
			return nil, err
		}
		c.Members = append(c.Members, s)
	}
	for _, s := range c.Members {
		if err := s.waitReady(20 * time.Second); err != nil {
			out, _ := os.ReadFile(s.log)
			c.stop()
			return nil, fmt.Errorf("etcdtest: member %s: %w\n%s", s.Endpoint, err, tail(out))
		}
	}
	tb.Cleanup(c.stop)
	return c, nil
}

func (c *Cluster) stop() {
	for _, s := range c.Members {
		s.Stop()
	}
}

// Endpoints are the members' client addresses, host:port, comma-separated
// as a store's address names them.
func (c *Cluster) Endpoints() string {
	var hosts []string
	for _, s := range c.Members {
		hosts = append(hosts, strings.TrimPrefix(s.Endpoint, "http://"))
	}
	return strings.Join(hosts, ",")
}

// Leader is the index in Members of the member that leads, or -1 when
// none that answers says it does.
func (c *Cluster) Leader() int {
	for i, s := range c.Members {
		cli, err := s.Client()
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := cli.Status(ctx, s.Endpoint)
		cancel()
		cli.Close()
		if err == nil && st.Leader == st.Header.MemberId {
			return i
		}
	}
	return -1
}
