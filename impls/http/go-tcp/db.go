package main

// The database routes (spec/SPEC.md §8) on pgx, the community's PostgreSQL
// driver, and its pool, pgxpool: the same driver and pool as go-nethttp,
// called from the connection's goroutine like every other handler here. A
// request takes one connection from the pool for all its statements; when
// every connection is busy, Acquire parks the request's goroutine until one
// is released. The connection goes back to the pool as soon as the last
// statement's result is read: each handler collects its rows in the withConn
// callback and builds its answer after withConn returns. pgx prepares each
// statement on a connection the first time it runs there and reuses it after
// (its default statement cache).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
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
// answer; the error is the pool's or f's. The server does not notice a
// client that hangs up (README), so the wait and the queries run to their
// end without a deadline of the request's.
func (s *server) withConn(f func(ctx context.Context, conn *pgxpool.Conn) error) error {
	if s.db.pool == nil {
		return errors.New(s.db.absent)
	}
	ctx := context.Background()
	return s.db.pool.AcquireFunc(ctx, func(conn *pgxpool.Conn) error { return f(ctx, conn) })
}

// unavailable is the 503 with the reason on one line (SPEC §8.4), for an
// error of the pool or of a query.
func unavailable(err error) response {
	return errorResponse(503, "database unavailable: "+strings.Join(strings.Fields(err.Error()), " "))
}

func randomID() int32 {
	return rand.Int32N(worldRows) + 1
}

// queryCount is the queries parameter clamped to 1..500; anything that is
// not an integer counts as 1, as TechEmpower's verifier expects.
func queryCount(req *request) int {
	values, _ := url.ParseQuery(req.query) // a malformed pair is skipped, the rest kept
	n, err := strconv.Atoi(values.Get("queries"))
	switch {
	case err != nil || n < 1:
		return 1
	case n > maxQueries:
		return maxQueries
	}
	return n
}

// jsonResponse is v as a 200 application/json answer.
func jsonResponse(v any) response {
	body, err := json.Marshal(v)
	if err != nil {
		return errorResponse(500, "could not encode JSON: "+err.Error())
	}
	return response{status: 200, contentType: "application/json", body: body}
}

// answerRow answers the row that query reads for a random id, its first
// parameter; args are the others.
func (s *server) answerRow(query string, args ...any) response {
	var row world
	err := s.withConn(func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, query, append([]any{randomID()}, args...)...).Scan(&row.ID, &row.RandomNumber)
	})
	if err != nil {
		return unavailable(err)
	}
	return jsonResponse(row)
}

func (s *server) singleQuery(req *request, _ string) response {
	return s.answerRow(selectRow)
}

func (s *server) slowQuery(req *request, _ string) response {
	return s.answerRow(selectSlow, s.cfg.dbSlow.Seconds())
}

func (s *server) queries(req *request, _ string) response {
	var rows []world
	err := s.withConn(func(ctx context.Context, conn *pgxpool.Conn) (err error) {
		rows, err = readRows(ctx, conn, queryCount(req))
		return err
	})
	if err != nil {
		return unavailable(err)
	}
	return jsonResponse(rows)
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
