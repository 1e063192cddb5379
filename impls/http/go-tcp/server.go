package main

// The accept loop and the life of one connection, the part the blog's
// server had: net.Listen, Accept in a loop, `go` per connection. Each
// connection's goroutine reads a request, answers it, and reads the next, so
// pipelined requests are answered in order and each sees the effects of the
// ones before it (SPEC §4). A goroutine that waits (bcrypt, the /page delay,
// the long poll) blocks only itself; the Go scheduler runs the others on the
// GOMAXPROCS threads.

import (
	"bufio"
	"errors"
	"io"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// idleTimeout bounds the wait for a request, from the end of the last
	// answer to the end of the next request's body (net/http's IdleTimeout
	// in go-nethttp is the same 2 minutes).
	idleTimeout = 2 * time.Minute
	// lingerTimeout and lingerBytes bound how long and how much of a body
	// the server reads and drops after answering early (413, 400) and
	// closing its side, so that the client's unsent bytes do not make the
	// kernel reset the connection before the client has read the answer.
	lingerTimeout = 2 * time.Second
	lingerBytes   = 4 << 20
)

// server holds the in-memory state shared by every connection.
type server struct {
	cfg       config
	db        *database // the pool of the database routes, or why there is none
	routes    []route
	passwords sync.Map     // user name → bcrypt hash ([]byte)
	users     sync.Map     // user name → JSON object (map[string]any)
	pageCount atomic.Int64 // /page requests so far, for the every-Nth delay
	draining  atomic.Bool  // SIGTERM came: close each connection after its answer
	inFlight  atomic.Int64 // requests read and not yet answered
}

func newServer(cfg config, db *database) *server {
	s := &server{cfg: cfg, db: db}
	s.routes = s.routeTable()
	return s
}

// serve accepts connections until l is closed, one goroutine each.
func (s *server) serve(l net.Listener) error {
	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Out of file descriptors, most likely: wait and go on, as
			// net/http does, rather than the seed's log.Fatal.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			log.Printf("accept: %v; retrying in %v", err, backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		go s.serveConn(nc)
	}
}

// shutdown stops accepting and waits up to grace for the requests in flight.
func (s *server) shutdown(l net.Listener, grace time.Duration) {
	s.draining.Store(true)
	l.Close()
	deadline := time.Now().Add(grace)
	for s.inFlight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// conn is one client connection and its buffers (4 KiB each, as net/http).
type conn struct {
	srv     *server
	nc      net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	dateBuf [len(dateFormat)]byte
}

// next is what happens to a connection after one exchange.
type next int

const (
	keepOpen    next = iota
	closeNow         // nothing unread is left, or the client is gone
	closeLinger      // the client may still be sending what we will not read
)

func (s *server) serveConn(nc net.Conn) {
	c := &conn{srv: s, nc: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)}
	for {
		switch c.exchange() {
		case keepOpen:
			continue
		case closeLinger:
			c.lingerClose()
		default:
			nc.Close()
		}
		return
	}
}

// exchange reads one request, answers it and says what to do next.
func (c *conn) exchange() next {
	c.nc.SetReadDeadline(time.Now().Add(idleTimeout))
	req, err := readRequest(c.r, c.w)
	if err != nil {
		var bad *protocolError
		if !errors.As(err, &bad) {
			return closeNow // EOF, timeout or reset: nobody to answer
		}
		c.write(nil, errorResponse(bad.status, bad.reason), true)
		return closeLinger
	}
	c.srv.inFlight.Add(1)
	defer c.srv.inFlight.Add(-1)

	resp := c.srv.route(req)
	// A body the handler did not read (a 404, a body sent with a GET) is
	// read and dropped, so the next request starts at its first byte.
	bodyDone := req.body.discard(maxBodyBytes)
	closing := !bodyDone || !req.keepAlive || c.srv.draining.Load()
	if err := c.write(req, resp, closing); err != nil {
		return closeNow
	}
	switch {
	case !bodyDone:
		return closeLinger
	case closing:
		return closeNow
	}
	return keepOpen
}

// lingerClose closes our side, then reads and drops what the client still
// sends for a bounded time, and closes the socket.
func (c *conn) lingerClose() {
	if tc, ok := c.nc.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	c.nc.SetReadDeadline(time.Now().Add(lingerTimeout))
	io.Copy(io.Discard, io.LimitReader(c.nc, lingerBytes))
	c.nc.Close()
}
