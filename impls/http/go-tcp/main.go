// Command server is Concur's HTTP workload (spec/SPEC.md) on raw TCP: the
// blog series' net.Listen loop with one goroutine per connection, grown into
// an HTTP/1.1 server that parses its requests itself over bufio. It does not
// import net/http.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// shutdownGrace bounds how long SIGTERM waits for requests in flight (a long
// poll or a delayed /page) before the process exits and the kernel closes
// every connection.
const shutdownGrace = 2 * time.Second

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-tcp:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return err
	}
	// Go passes the kernel's net.core.somaxconn (read from /proc) as the
	// backlog of every listening socket; it has no option to ask for another.
	l, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	db, err := openDatabase(cfg)
	if err != nil {
		return err
	}
	defer db.close()
	srv := newServer(cfg, db)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.serve(l) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	srv.shutdown(l, shutdownGrace)
	return nil
}
