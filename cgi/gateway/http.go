package gateway

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"hitcounter/cgi/internal/logline"
)

// Bounds of the long-lived servers, the local server and FastCGI, so that
// neither a flood of connections nor a slow client can take a process's
// memory or keep hits out.
const (
	maxConns = 128
	// maxBodyConns of the maxConns connections may serve requests with a
	// body (logins). A body that comes slowly holds its connection for up
	// to bodyTimeout (FastCGI) or connTimeout (the local server); the rest
	// are kept for hits.
	maxBodyConns = maxConns / 2
	// bodyTimeout bounds how long a request's body may take to come, in
	// a long-lived process: a login form is 4 KiB at most.
	bodyTimeout = 10 * time.Second
	// drainGrace is how long the records a handler left unread may take
	// once it is done, when it took longer than they could.
	drainGrace     = 2 * time.Second
	maxRequestSize = 64 << 10
	connTimeout    = 30 * time.Second
)

// ServeHTTP answers one HTTP/1.1 request per connection on ln until ctx
// ends, then waits for the requests in hand.
//
// It stands in for http.Server on purpose: linking http.Server brings in
// HTTP/2 and TLS, and every CGI process of the full tool pays for the size
// of its binary in start-up time and resident memory. A local
// server for trying the counter out needs none of that.
func ServeHTTP(ctx context.Context, ln net.Listener, h http.Handler, o Options) error {
	held := newHeldBytes(o.Log)
	return acceptLoop(ctx, ln, func(conn net.Conn) { serveConn(conn, h, o.Log, held) }, nil)
}

// acceptLoop serves each connection on ln with serve, at most maxConns at
// once, until ctx ends; then it waits for the connections in hand. When
// every slot is taken it calls full, if not nil, to free one.
func acceptLoop(ctx context.Context, ln net.Listener, serve func(net.Conn), full func()) error {
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, maxConns)
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("accept: %w", err)
			}
			// Out of file descriptors, say: wait for connections to end
			// rather than stop serving.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		takeSlot(slots, full)
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			serve(conn)
		}()
	}
}

// takeSlot waits for one of slots; while they are all taken, it calls
// full, if not nil, every few milliseconds.
func takeSlot(slots chan struct{}, full func()) {
	select {
	case slots <- struct{}{}:
		return
	default:
	}
	if full == nil {
		slots <- struct{}{}
		return
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		full()
		select {
		case slots <- struct{}{}:
			return
		case <-tick.C:
		}
	}
}

func serveConn(conn net.Conn, h http.Handler, log *logline.Logger, held *heldBytes) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(connTimeout))
	req, err := http.ReadRequest(bufio.NewReader(io.LimitReader(conn, maxRequestSize)))
	rw := newResponse(httpForm)
	if err != nil {
		log.Printf("serve: bad request from %s: %v", conn.RemoteAddr(), err)
		http.Error(rw, "bad request", http.StatusBadRequest)
		rw.writeWhole(conn)
		return
	}
	req.RemoteAddr = conn.RemoteAddr().String()
	rw.out, rw.held = &connWriter{conn: conn, w: conn}, held
	rw.head = req.Method == http.MethodHead
	rw.chunkable = req.ProtoAtLeast(1, 1)
	h.ServeHTTP(rw, req)
	if errors.Is(rw.err, ErrBusy) && !rw.streaming {
		rw = busyAnswer(httpForm) // nothing of the answer went
	}
	if rw.streaming {
		err = rw.end()
	} else {
		err = rw.writeWhole(conn)
	}
	if err != nil {
		log.Printf("serve: %v", err)
	}
}
