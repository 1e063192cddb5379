// A small real server for concur's own tests (tests/verify_database.rs): the
// database routes the verifier counts, on pgx, answered honestly or by one
// of the two ways TechEmpower's query count catches. Started as
// `cheat_db MODE` with PORT and CONCUR_DB_URL; MODE is
//   honest  /queries reads each row with a statement of its own
//   cache   /queries answers from a copy of world read once at start
//   in      /queries reads its rows with one statement (WHERE id = ANY($1))
//   queued  every database route runs on 2 workers, each of which retries a
//           failing query for 1 s before its 503: one request at a time is
//           a 503 within 5 s while the database is gone, a burst is not
//   rowwise /updates writes each row with an UPDATE of its own, in a
//           transaction (a JDBC batch's or executemany's way), not with the
//           one statement of spec/POLICIES.md §6.2
//   busy    /updates skips its write while another /updates is being
//           answered: honest one request at a time, not under load
//   floor2  its pool gives each of CONCUR_CORES workers at least two
//           connections: within CONCUR_DB_POOL while the pool is larger
//           than twice the workers, above it once they are as many
// /db is honest in every mode but queued, and /updates in every mode but
// queued, rowwise and busy (reads as /queries, then one UPDATE … FROM unnest);
// /slowdb waits CONCUR_DB_SLOW_MS in the query; /fortunes is not served (the
// verifier's statement count asks /db, /queries, then /updates, then /fortunes).
// The pool holds CONCUR_DB_POOL connections when given (floor2: as above).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

type world struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

func main() {
	mode := os.Args[1]
	config, err := pgxpool.ParseConfig(os.Getenv("CONCUR_DB_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Unset (the tests that start it by hand): pgxpool's own default.
	if size, err := strconv.Atoi(os.Getenv("CONCUR_DB_POOL")); err == nil && size > 0 {
		if workers, err := strconv.Atoi(os.Getenv("CONCUR_CORES")); mode == "floor2" && err == nil && workers > 0 {
			size = workers * max(size/workers, 2)
		}
		config.MaxConns = int32(size)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), config)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cache := map[int32]int32{}
	if mode == "cache" {
		rows, _ := pool.Query(context.Background(), "SELECT id, randomnumber FROM world")
		for rows.Next() {
			var id, n int32
			rows.Scan(&id, &n)
			cache[id] = n
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("Hello, World!")) })
	if mode == "queued" {
		workers := make(chan struct{}, 2)
		for _, path := range []string{"/db", "/queries", "/updates", "/fortunes", "/slowdb"} {
			mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) { queued(w, r, pool, workers) })
		}
		http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux)
		return
	}
	mux.HandleFunc("GET /db", func(w http.ResponseWriter, r *http.Request) { answer(w, one(r, pool)) })
	slow, _ := strconv.Atoi(os.Getenv("CONCUR_DB_SLOW_MS"))
	mux.HandleFunc("GET /slowdb", func(w http.ResponseWriter, r *http.Request) {
		var row world
		pool.QueryRow(r.Context(), "SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1", rand.Int32N(10000)+1, float64(slow)/1000).Scan(&row.ID, &row.RandomNumber)
		answer(w, row)
	})
	mux.HandleFunc("GET /queries", func(w http.ResponseWriter, r *http.Request) {
		n := queries(r)
		rows := make([]world, 0, n)
		switch mode {
		case "cache":
			for range n {
				id := rand.Int32N(10000) + 1
				rows = append(rows, world{id, cache[id]})
			}
		case "in":
			ids := make([]int32, n)
			for i := range ids {
				ids[i] = rand.Int32N(10000) + 1
			}
			found, _ := pool.Query(r.Context(), "SELECT id, randomnumber FROM world WHERE id = ANY($1)", ids)
			got := map[int32]int32{}
			for found.Next() {
				var id, num int32
				found.Scan(&id, &num)
				got[id] = num
			}
			for _, id := range ids {
				rows = append(rows, world{id, got[id]})
			}
		default:
			for range n {
				rows = append(rows, one(r, pool))
			}
		}
		answer(w, rows)
	})
	mux.HandleFunc("GET /updates", func(w http.ResponseWriter, r *http.Request) { answer(w, updates(r, pool, mode)) })
	http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux)
}

// queued answers one row once a worker is free, retrying for 1 s while the database fails.
func queued(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool, workers chan struct{}) {
	workers <- struct{}{}
	defer func() { <-workers }()
	var row world
	var err error
	for deadline := time.Now().Add(time.Second); ; time.Sleep(50 * time.Millisecond) {
		err = pool.QueryRow(r.Context(), "SELECT id, randomnumber FROM world WHERE id = $1", rand.Int32N(10000)+1).Scan(&row.ID, &row.RandomNumber)
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	answer(w, row)
}

// updates reads `queries` rows one by one and writes each a new number: with one
// statement for all, ids ascending, or (rowwise) an UPDATE per row in a transaction.
func updates(r *http.Request, pool *pgxpool.Pool, mode string) []world {
	inFlight.Add(1)
	defer inFlight.Add(-1)
	n := queries(r)
	rows := make([]world, 0, n)
	for range n {
		row := one(r, pool)
		row.RandomNumber = rand.Int32N(10000) + 1
		rows = append(rows, row)
	}
	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, func(a, b world) int { return int(a.ID - b.ID) })
	if mode == "rowwise" {
		tx, _ := pool.Begin(r.Context())
		for _, row := range sorted {
			tx.Exec(r.Context(), "UPDATE world SET randomnumber = $1 WHERE id = $2", row.RandomNumber, row.ID)
		}
		tx.Commit(r.Context())
		return rows
	}
	if mode == "busy" && inFlight.Load() > 1 {
		return rows
	}
	ids, numbers := make([]int32, len(sorted)), make([]int32, len(sorted))
	for i, row := range sorted {
		ids[i], numbers[i] = row.ID, row.RandomNumber
	}
	pool.Exec(r.Context(), "UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id", ids, numbers)
	return rows
}

// inFlight counts the /updates being answered (busy mode's cheat).
var inFlight atomic.Int32

// queries is the request's `queries`, clamped to 1..500 (not a number: 1).
func queries(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("queries"))
	if err != nil {
		return 1
	}
	return min(max(n, 1), 500)
}

func one(r *http.Request, pool *pgxpool.Pool) world {
	var row world
	pool.QueryRow(r.Context(), "SELECT id, randomnumber FROM world WHERE id = $1", rand.Int32N(10000)+1).Scan(&row.ID, &row.RandomNumber)
	return row
}

func answer(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
