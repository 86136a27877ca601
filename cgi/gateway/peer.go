package gateway

import (
	"context"
	"net"
	"net/http"
)

// LoginClientValue is the FCGI_GET_VALUES name under which the FastCGI
// service says whom the logins on a connection count against:
// "remote-addr", the REMOTE_ADDR the web server sends, or "peer", the one
// client that every connection's peer is taken for (PeerClient). The
// doctor asks for it; a web server never does, and the specification
// lets a responder answer names of its own.
const LoginClientValue = "COUNTER_LOGIN_CLIENT"

// LocalPeer is the client that every login counts as when the connection
// does not vouch for REMOTE_ADDR: this machine. A local process may
// connect from any address of 127.0.0.0/8, or to any of them when the
// socket listens on all, so the peer's address is no more a client's
// than REMOTE_ADDR is.
const LocalPeer = "127.0.0.1"

type peerClientKey struct{}

// PeerClient returns the one client that a login from r counts as, when
// the connection r came over does not vouch for the REMOTE_ADDR it
// carries: FastCGI over TCP, where any local user may connect and send
// any address, unless the owner said that only the web server can reach
// the port (Options.OnlyWebServerConnects). It returns false for every
// other request: over a Unix socket only the web server's user and group
// may connect, and under CGI the web server sets the environment itself.
func PeerClient(r *http.Request) (string, bool) {
	p, ok := r.Context().Value(peerClientKey{}).(string)
	return p, ok
}

// peerClientOf returns the client that logins over conn count as, or ""
// when conn vouches for REMOTE_ADDR.
func peerClientOf(conn net.Conn, o Options) string {
	if _, tcp := conn.LocalAddr().(*net.TCPAddr); !tcp || o.OnlyWebServerConnects {
		return ""
	}
	return LocalPeer
}

// loginClientMode is the LoginClientValue of a connection whose logins
// count as loginsAs.
func loginClientMode(loginsAs string) string {
	if loginsAs == "" {
		return "remote-addr"
	}
	return "peer"
}

// peerClientHandler serves h with PeerClient set to client.
type peerClientHandler struct {
	h      http.Handler
	client string
}

func (p peerClientHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), peerClientKey{}, p.client)))
}
