package main

// The database routes against a real PostgreSQL seeded as SPEC §8.1 says:
// the one CONCUR_DB_URL names (`concur test` gives it), else one this suite
// starts with `concur db` and stops at its end.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	dbOnce   sync.Once
	dbURL    string
	dbErr    error
	dbServer *exec.Cmd // `concur db`, when this suite started it
)

func TestMain(m *testing.M) {
	code := m.Run()
	if dbServer != nil {
		dbServer.Process.Signal(os.Interrupt)
		dbServer.Wait()
	}
	os.Exit(code)
}

// testDatabaseURL is CONCUR_DB_URL, or that of a `concur db` started now.
func testDatabaseURL(t *testing.T) string {
	t.Helper()
	dbOnce.Do(func() {
		if dbURL = os.Getenv("CONCUR_DB_URL"); dbURL == "" {
			dbURL, dbErr = startConcurDB()
		}
	})
	if dbErr != nil {
		t.Fatalf("the database routes need PostgreSQL: %v; run `concur test go-nethttp`, or export the CONCUR_DB_URL that `concur db` prints", dbErr)
	}
	return dbURL
}

// startConcurDB runs `concur db` (on PATH, or the repository's release
// build) and reads the CONCUR_DB_URL it prints. The kernel sends it SIGINT
// should this process die first, so no database outlives the suite.
func startConcurDB() (string, error) {
	bin, err := exec.LookPath("concur")
	if err != nil {
		bin = "../../../target/release/concur"
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("no concur on PATH nor at %s (cargo build --release)", bin)
		}
	}
	dbServer = exec.Command(bin, "db")
	dbServer.Stderr = os.Stderr
	dbServer.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
	out, err := dbServer.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := dbServer.Start(); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	url, found := strings.CutPrefix(strings.TrimSpace(line), "CONCUR_DB_URL=")
	if err != nil || !found {
		return "", fmt.Errorf("concur db printed %q (%v)", line, err)
	}
	return url, nil
}

// dbTestServer serves the routes on the test database with cfg's pool and wait.
func dbTestServer(t *testing.T, pool int, slow time.Duration) *httptest.Server {
	t.Helper()
	cfg := testConfig
	cfg.dbURL, cfg.dbPool, cfg.dbSlow = testDatabaseURL(t), pool, slow
	db, err := openDatabase(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(newServer(cfg, db).handler())
	t.Cleanup(func() { ts.Close(); db.close() })
	return ts
}

// stored reads row id from the database itself.
func stored(t *testing.T, id int32) int32 {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), testDatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int32
	if err := conn.QueryRow(context.Background(), "SELECT randomnumber FROM world WHERE id = $1", id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func decodeRows(t *testing.T, what string, r reply) []world {
	t.Helper()
	expect(t, what, r, 200, "application/json", "*")
	var rows []world
	if err := json.Unmarshal([]byte(r.body), &rows); err != nil {
		t.Fatalf("%s: %v in %q", what, err, r.body)
	}
	return rows
}

func TestDBAnswersARowAsStored(t *testing.T) {
	ts := dbTestServer(t, 4, 0)
	var row world
	r := get(t, ts, "/db")
	expect(t, "GET /db", r, 200, "application/json", "*")
	if err := json.Unmarshal([]byte(r.body), &row); err != nil || row.ID < 1 || row.ID > worldRows {
		t.Fatalf("GET /db: %q (%v)", r.body, err)
	}
	if want := stored(t, row.ID); row.RandomNumber != want {
		t.Errorf("GET /db: row %d has %d, the database %d", row.ID, row.RandomNumber, want)
	}
}

func TestQueriesClampsN(t *testing.T) {
	ts := dbTestServer(t, 4, 0)
	for query, want := range map[string]int{"": 1, "?queries=": 1, "?queries=foo": 1, "?queries=0": 1, "?queries=-3": 1, "?queries=1": 1, "?queries=20": 20, "?queries=500": 500, "?queries=501": 500} {
		rows := decodeRows(t, "GET /queries"+query, get(t, ts, "/queries"+query))
		if len(rows) != want {
			t.Errorf("GET /queries%s: %d rows, want %d", query, len(rows), want)
		}
	}
	rows := decodeRows(t, "GET /queries?queries=3", get(t, ts, "/queries?queries=3"))
	for _, row := range rows {
		if want := stored(t, row.ID); row.RandomNumber != want {
			t.Errorf("row %d has %d, the database %d", row.ID, row.RandomNumber, want)
		}
	}
}

func TestUpdatesWriteTheNewNumbers(t *testing.T) {
	ts := dbTestServer(t, 4, 0)
	rows := decodeRows(t, "GET /updates?queries=20", get(t, ts, "/updates?queries=20"))
	if len(rows) != 20 {
		t.Fatalf("%d rows, want 20", len(rows))
	}
	returned := map[int32][]int32{}
	for _, row := range rows {
		returned[row.ID] = append(returned[row.ID], row.RandomNumber)
	}
	for id, numbers := range returned {
		if now := stored(t, id); !contains(numbers, now) {
			t.Errorf("row %d was returned with %v, the database holds %d", id, numbers, now)
		}
	}
}

func contains(list []int32, n int32) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

const wantFortunes = `<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
<tr><th>id</th><th>message</th></tr>
<tr><td>11</td><td>&lt;script&gt;alert(&#34;This should not be displayed in a browser alert box.&#34;);&lt;/script&gt;</td></tr>
<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e&#43;67, 1, 1, 1</td></tr>
<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>
<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>
<tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>
<tr><td>0</td><td>Additional fortune added at request time.</td></tr>
<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>
<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>
<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>
<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>
<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>
<tr><td>1</td><td>fortune: No such file or directory</td></tr>
<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>
</table>
</body>
</html>
`

func TestFortunesIsTheEscapedSortedPage(t *testing.T) {
	ts := dbTestServer(t, 4, 0)
	for range 2 {
		expect(t, "GET /fortunes", get(t, ts, "/fortunes"), 200, "text/html; charset=utf-8", wantFortunes)
	}
}

func TestSlowDBWaitsInTheQuery(t *testing.T) {
	ts := dbTestServer(t, 4, 100*time.Millisecond)
	start := time.Now()
	expect(t, "GET /slowdb", get(t, ts, "/slowdb"), 200, "application/json", "*")
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("GET /slowdb took %v, want at least the 100ms of CONCUR_DB_SLOW_MS", took)
	}
}

// With a pool of 2, eight slow queries at once run two at a time: the
// others wait for a connection, so the last answers after four waits.
func TestRequestsWaitForAPooledConnection(t *testing.T) {
	ts := dbTestServer(t, 2, 50*time.Millisecond)
	start := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { expect(t, "GET /slowdb", get(t, ts, "/slowdb"), 200, "application/json", "*") })
	}
	wg.Wait()
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("8 slow queries on 2 connections took %v, want at least 4 × 50ms", took)
	}
}

func TestNoDatabaseIs503AndTheOtherRoutesServe(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := fmt.Sprintf("postgres://u:p@%s/db", closed.Addr())
	closed.Close()
	for name, url := range map[string]string{"no CONCUR_DB_URL": "", "a refused connection": refused} {
		cfg := testConfig
		cfg.dbURL, cfg.dbPool = url, 2
		db, err := openDatabase(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(newServer(cfg, db).handler())
		for _, path := range []string{"/db", "/queries?queries=2", "/updates", "/fortunes", "/slowdb"} {
			r := get(t, ts, path)
			expect(t, name+": GET "+path, r, 503, "text/plain", "*")
			if strings.Count(strings.TrimSpace(r.body), "\n") > 0 {
				t.Errorf("%s: GET %s: the reason is not one line: %q", name, path, r.body)
			}
		}
		expect(t, name+": GET /", get(t, ts, "/"), 200, "text/plain", "Hello, World!")
		ts.Close()
		db.close()
	}
}

func TestDatabaseRoutesRefuseOtherMethods(t *testing.T) {
	ts := startServer(t)
	for _, path := range []string{"/db", "/queries", "/updates", "/fortunes", "/slowdb"} {
		expect(t, "POST "+path, post(t, ts, path, ""), http.StatusMethodNotAllowed, "text/plain", "*")
	}
	expect(t, "GET /db/1", get(t, ts, "/db/1"), 404, "text/plain", "*")
}
