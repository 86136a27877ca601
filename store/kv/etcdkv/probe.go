package etcdkv

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"strings"
	"time"
)

// whyUnreachable says what each endpoint does when this process connects
// to it on its own, as the client would (TLS when t is not nil): the
// client itself reports only that no answer came in time, which leaves
// an owner to guess between a stopped member, a firewall and a refused
// certificate. It returns "" when every endpoint takes the connection,
// where the cause is the cluster's (no leader, no majority). It runs
// only after a failure, at most wait per endpoint.
func whyUnreachable(endpoints []string, t *tls.Config, wait time.Duration) string {
	var says []string
	for _, ep := range endpoints {
		if err := probe(ep, t, wait); err != nil {
			says = append(says, ep+": "+err.Error())
		}
	}
	return strings.Join(says, "; ")
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
