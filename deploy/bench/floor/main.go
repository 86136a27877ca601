// Command floor is the least a Go CGI program can do: answer every request
// with a fixed 1x1 GIF through net/http/cgi. The hit-path benchmark runs it
// beside counter.cgi to show what a counted hit costs over Go's own start-up.
package main

import (
	"net/http"
	"net/http/cgi"
	"strconv"
)

// pixel is a 1x1 transparent GIF.
var pixel = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")

func main() {
	cgi.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/gif")
		w.Header().Set("Content-Length", strconv.Itoa(len(pixel)))
		w.Write(pixel)
	}))
}
