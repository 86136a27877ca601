package web

import (
	"net/http"

	"hitcounter/cgi/gateway"
)

// loginAddr is the address a login is throttled by and logged with: the
// client's (clientAddr), or, when the connection it came over does not
// vouch for REMOTE_ADDR (FastCGI over TCP, where any local user may send
// any address), the one peer that all such logins count as. A visitor's
// hit is still told apart by clientAddr: a forged address there makes a
// count no higher than a stranger can make anyway, while a forged one at
// the login would buy a fresh throttle, and a fail2ban ban of someone
// else, per try.
func (a *App) loginAddr(r *http.Request) string {
	if peer, ok := gateway.PeerClient(r); ok {
		return peer
	}
	return a.clientAddr(r)
}
