package gateway

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/internal/logline"
)

// TestFastCGIPeerClient: over TCP, where any local user may connect and
// send any REMOTE_ADDR, every request carries the one client its logins
// count as, unless the owner said only the web server connects; over a
// Unix socket none does. The service tells the doctor which, in
// FCGI_GET_VALUES.
func TestFastCGIPeerClient(t *testing.T) {
	tests := []struct {
		name          string
		network       string
		onlyWebServer bool
		want          string // the handler's PeerClient, "-" for none
		wantMode      string
	}{
		{"unix", "unix", false, "-", "remote-addr"},
		{"unix, the flag changes nothing", "unix", true, "-", "remote-addr"},
		{"tcp", "tcp", false, LocalPeer, "peer"},
		{"tcp, only the web server connects", "tcp", true, "-", "remote-addr"},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := PeerClient(r)
		if !ok {
			p = "-"
		}
		fmt.Fprint(w, p)
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if tc.network == "unix" {
				addr = filepath.Join(t.TempDir(), "fcgi.sock")
			}
			ln, err := net.Listen(tc.network, addr)
			if err != nil {
				t.Fatal(err)
			}
			serveFastCGIOn(t, ln, h, Options{Log: logline.New(io.Discard), OnlyWebServerConnects: tc.onlyWebServer})
			c, err := fcgitest.DialNetwork(tc.network, ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Conn.Close()
			// A forged address changes nothing.
			out, _, err := c.Request(1, true, fcgitest.Env("POST", "/demo/login", "", "REMOTE_ADDR", "198.51.100.7"), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(fcgitest.MustParse(t, out).Body); got != tc.want {
				t.Errorf("PeerClient %q, want %q", got, tc.want)
			}
			if err := c.Send(fcgitest.GetValues, 0, fcgitest.AppendPair(nil, LoginClientValue, "")); err != nil {
				t.Fatal(err)
			}
			typ, _, content, err := c.Recv()
			if err != nil || typ != fcgitest.GetValuesResult {
				t.Fatalf("get values: type %d, %v", typ, err)
			}
			got, err := parseParams(content)
			if err != nil || len(got) != 1 || got[LoginClientValue] != tc.wantMode {
				t.Errorf("get values: %v, %v; want %s=%s", got, err, LoginClientValue, tc.wantMode)
			}
		})
	}
}
