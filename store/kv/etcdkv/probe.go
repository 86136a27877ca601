package etcdkv

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// probeWait bounds the probe of a cluster that did not answer: enough
// for a connection and a TLS handshake on a LAN, and no longer, since a
// hit may be waiting on it.
const probeWait = time.Second

// probeEvery is how long a probe's finding stands: in an outage every
// hit fails, and one probe says what a minute's hits would.
const probeEvery = 10 * time.Second

// whyUnreachable says what each endpoint does when this process connects
// to it on its own, as the client would (TLS when t is not nil): the
// client itself reports only that no answer came in time, which leaves
// an owner to guess between a stopped member, a firewall and a refused
// certificate. It returns "" when every endpoint takes the connection,
// where the cause is the cluster's (no leader, no majority). It runs
// only after a failure, the endpoints at once, for at most wait.
func whyUnreachable(endpoints []string, t *tls.Config, wait time.Duration) string {
	says := make([]string, len(endpoints))
	var wg sync.WaitGroup
	for i, ep := range endpoints {
		wg.Go(func() {
			if err := probe(ep, t, wait); err != nil {
				says[i] = ep + ": " + err.Error()
			}
		})
	}
	wg.Wait()
	return strings.Join(slices.DeleteFunc(says, func(s string) bool { return s == "" }), "; ")
}

// unreachable is whyUnreachable for d's cluster, probed at most once in
// probeEvery.
func (d *DB) unreachable() string {
	d.probeMu.Lock()
	defer d.probeMu.Unlock()
	if d.probed.IsZero() || time.Since(d.probed) > probeEvery {
		d.probeSaid = whyUnreachable(d.cli.Endpoints(), d.tls, min(d.timeout, probeWait))
		d.probed = time.Now()
	}
	return d.probeSaid
}

// probe connects to endpoint and, over TLS, reads until the server has
// had its say on the handshake: with TLS 1.3 a server refuses a client's
// certificate only after the client thinks the handshake done.
func probe(endpoint string, t *tls.Config, wait time.Duration) error {
	d := net.Dialer{Timeout: wait}
	c, err := d.Dial("tcp", endpoint)
	if err != nil {
		return unwrapOp(err)
	}
	defer c.Close()
	if t == nil {
		return nil
	}
	t = t.Clone()
	if host, _, err := net.SplitHostPort(endpoint); err == nil && t.ServerName == "" {
		t.ServerName = host
	}
	// gRPC speaks HTTP/2: a server that wants it would close another.
	t.NextProtos = []string{"h2"}
	tc := tls.Client(c, t)
	tc.SetDeadline(time.Now().Add(wait))
	if err := tc.Handshake(); err != nil {
		return unwrapOp(err)
	}
	tc.SetReadDeadline(time.Now().Add(min(wait, 300*time.Millisecond)))
	if _, err := tc.Read(make([]byte, 1)); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return unwrapOp(err)
	}
	return nil
}

// unwrapOp drops the addresses a net.OpError repeats: the endpoint is
// named once, before it.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}
