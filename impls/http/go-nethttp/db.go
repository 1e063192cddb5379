package main

// The database routes (spec/SPEC.md §8) on pgx, the community's PostgreSQL
// driver, and its pool, pgxpool. A request takes one connection from the
// pool for all its statements; when every connection is busy, Acquire parks
// the request's goroutine until one is released (or the client hangs up).
// The connection goes back to the pool as soon as the last statement's
// result is read: each handler collects its rows in the withConn callback
// and writes its answer after withConn returns.
// pgx prepares each statement on a connection the first time it runs there
// and reuses it after (its default statement cache).

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	worldRows  = 10000
	maxQueries = 500
	selectRow  = "SELECT id, randomnumber FROM world WHERE id = $1"
	// One statement for the request's rows, ids in ascending order so that
	// two requests lock shared rows in the same order and never deadlock.
	updateRows = "UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id"
	// The wait is the query's own, so the connection is held through it.
	selectSlow = "SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1"
)

// world is a row of the world table as the routes answer it.
type world struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

// database is the pool, or why there is none.
type database struct {
	pool   *pgxpool.Pool
	absent string
}

// openDatabase makes the pool for CONCUR_DB_URL with at most CONCUR_DB_POOL
// connections. It opens none yet, so the server starts whether or not the
// database can be reached.
func openDatabase(cfg config) (*database, error) {
	if cfg.dbURL == "" {
		return &database{absent: "CONCUR_DB_URL is not set"}, nil
	}
	poolCfg, err := pgxpool.ParseConfig(cfg.dbURL)
	if err != nil {
		return nil, fmt.Errorf("CONCUR_DB_URL: %w", err)
	}
	poolCfg.MaxConns = int32(cfg.dbPool)
	pool, err := pgxpool.NewWithConfig(context.Background(), poolCfg)
	if err != nil {
		return nil, fmt.Errorf("CONCUR_DB_URL: %w", err)
	}
	return &database{pool: pool}, nil
}

func (d *database) close() {
	if d.pool != nil {
		d.pool.Close()
	}
}

// withConn runs f on one connection from the pool, taken for all of f's
// statements and released when f returns, so before the caller renders its
// answer. The error is the pool's or f's.
func (d *database) withConn(ctx context.Context, f func(conn *pgxpool.Conn) error) error {
	if d.pool == nil {
		return errors.New(d.absent)
	}
	return d.pool.AcquireFunc(ctx, f)
}

// unavailable answers 503 with the reason on one line (SPEC §8.4).
func unavailable(w http.ResponseWriter, err error) {
	reason := strings.Join(strings.Fields(err.Error()), " ")
	http.Error(w, "database unavailable: "+reason, http.StatusServiceUnavailable)
}

func randomID() int32 {
	return rand.Int32N(worldRows) + 1
}

// queryCount is the queries parameter clamped to 1..500; anything that is
// not an integer counts as 1, as TechEmpower's verifier expects.
func queryCount(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("queries"))
	switch {
	case err != nil || n < 1:
		return 1
	case n > maxQueries:
		return maxQueries
	}
	return n
}

// answerRow answers the row that query reads for a random id, its first
// parameter; args are the others. An error, the pool's or the query's,
// answers 503.
func (s *server) answerRow(w http.ResponseWriter, r *http.Request, query string, args ...any) {
	var row world
	err := s.db.withConn(r.Context(), func(conn *pgxpool.Conn) error {
		return conn.QueryRow(r.Context(), query, append([]any{randomID()}, args...)...).Scan(&row.ID, &row.RandomNumber)
	})
	if err != nil {
		unavailable(w, err)
		return
	}
	writeJSON(w, row)
}

func (s *server) singleQuery(w http.ResponseWriter, r *http.Request) {
	s.answerRow(w, r, selectRow)
}

func (s *server) queries(w http.ResponseWriter, r *http.Request) {
	var rows []world
	err := s.db.withConn(r.Context(), func(conn *pgxpool.Conn) (err error) {
		rows, err = readRows(r.Context(), conn, queryCount(r))
		return err
	})
	if err != nil {
		unavailable(w, err)
		return
	}
	writeJSON(w, rows)
}

// readRows reads n random rows, one statement each.
func readRows(ctx context.Context, conn *pgxpool.Conn, n int) ([]world, error) {
	rows := make([]world, n)
	for i := range rows {
		if err := conn.QueryRow(ctx, selectRow, randomID()).Scan(&rows[i].ID, &rows[i].RandomNumber); err != nil {
			return nil, err
		}
	}
	return rows, nil
}
