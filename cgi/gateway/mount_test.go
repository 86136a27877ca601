package gateway

import "testing"

// TestCGIMount works out the public path the handler is mounted at from
// a CGI environment: the path asked for less PATH_INFO, behind a rewrite
// too, and SCRIPT_NAME when the path does not parse.
func TestCGIMount(t *testing.T) {
	tests := []struct{ env map[string]string }{
		{map[string]string{"REQUEST_URI": "/cgi-bin/counter.cgi/page/login", "PATH_INFO": "/page/login", "SCRIPT_NAME": "/cgi-bin/counter.cgi"}},
		{map[string]string{"REQUEST_URI": "/counter/page/login?x=1", "PATH_INFO": "/page/login", "SCRIPT_NAME": "/cgi-bin/counter.cgi"}},
		{map[string]string{"REQUEST_URI": "/odd%zz", "PATH_INFO": "/page/login", "SCRIPT_NAME": "/cgi-bin/counter.cgi"}},
	}
	want := []string{"/cgi-bin/counter.cgi", "/counter", "/cgi-bin/counter.cgi"}
	for i, tc := range tests {
		if got := cgiMount(tc.env); got != want[i] {
			t.Errorf("cgiMount(%v) = %q, want %q", tc.env, got, want[i])
		}
	}
}
