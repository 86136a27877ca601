package web

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/gateway"

	"golang.org/x/crypto/bcrypt"
)

// TestLoginsOverTCPCountAsOnePeer sends 40 wrong passwords over FastCGI on
// TCP, each with another REMOTE_ADDR in another network, as any local
// user may: they count as one client, so no more than its limit reach
// bcrypt, and the log names the peer, never an address fail2ban would ban
// for someone else. When the owner says only the web server connects,
// each address counts as its own again, as over a Unix socket.
func TestLoginsOverTCPCountAsOnePeer(t *testing.T) {
	const tries = 40
	tests := []struct {
		name          string
		onlyWebServer bool
		wantChecked   int32
		wantClient    string // in every "login failed" line
	}{
		{"tcp", false, failuresPerMinute, "client=" + gateway.LocalPeer},
		{"tcp, only the web server connects", true, tries, "client=203.0.113.7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, logs := testApp(t, "page")
			protect(t, a, "page", bcrypt.MinCost)
			checked := countVerify(a)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			closeApp := a.longLived()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- gateway.ServeFastCGI(ctx, ln, a.Handler(), gateway.Options{Log: a.log, Refuse: a.Refuse, OnlyWebServerConnects: tc.onlyWebServer})
			}()
			t.Cleanup(func() {
				cancel()
				<-done
				closeApp()
			})
			form := []byte("password=wrong")
			statuses := map[int]int{}
			for i := range tries {
				c, err := fcgitest.DialNetwork("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				out, err := c.PostForm("/page/login", fmt.Sprintf("203.0.%d.7", 113+i), form)
				c.Conn.Close()
				if err != nil {
					t.Fatalf("try %d: %v", i, err)
				}
				statuses[fcgitest.MustParse(t, out).Status]++
			}
			if n := checked.Load(); n != tc.wantChecked {
				t.Errorf("%d of %d wrong passwords reached bcrypt (answers %v), want %d", n, tries, statuses, tc.wantChecked)
			}
			if statuses[http.StatusUnauthorized] != int(tc.wantChecked) {
				t.Errorf("answers %v, want %d × 401", statuses, tc.wantChecked)
			}
			if !strings.Contains(logs.String(), `login failed: counter="page" `+tc.wantClient) {
				t.Errorf("log %.600q, want login failed lines with %s", logs.String(), tc.wantClient)
			}
		})
	}
}
