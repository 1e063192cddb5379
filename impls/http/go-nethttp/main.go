// Command server is Concur's HTTP workload (spec/SPEC.md) on Go's net/http,
// following the thesis' Go implementation: ServeMux routes, x/crypto/bcrypt
// and sync.Map stores, one goroutine per connection; the database routes on
// pgx and its pool.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// shutdownGrace bounds how long SIGTERM waits for requests in flight (a long
// poll or a delayed /page) before the server closes their connections.
const shutdownGrace = 2 * time.Second

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-nethttp:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return err
	}
	db, err := openDatabase(cfg)
	if err != nil {
		return err
	}
	defer db.close()
	srv := &http.Server{
		Addr:              cfg.addr,
		Handler:           newServer(cfg, db).handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); errors.Is(err, context.DeadlineExceeded) {
		return srv.Close()
	}
	return nil
}
