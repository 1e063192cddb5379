package main

// The server's settings, read once from the environment the orchestrator
// gives it (spec/SPEC.md §1). A bad value stops the server before it listens,
// with a message naming the variable, so a typo never runs a benchmark with a
// silently different workload.

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// defaultPageFile is spec/static/hello.html, seen from this folder, where the
// orchestrator starts the server.
const defaultPageFile = "../../../spec/static/hello.html"

type config struct {
	addr           string        // 127.0.0.1:$PORT
	bcryptCost     int           // CONCUR_BCRYPT_COST
	pageFile       string        // CONCUR_PAGE_FILE, read on every /page request
	pageDelayEvery int64         // CONCUR_PAGE_DELAY_EVERY: every Nth /page is delayed
	pageDelay      time.Duration // CONCUR_PAGE_DELAY_MS
	longPoll       time.Duration // CONCUR_LONGPOLL_MS
	dbURL          string        // CONCUR_DB_URL; "" leaves the database routes answering 503
	dbPool         int           // CONCUR_DB_POOL: the most connections the pool opens
	dbSlow         time.Duration // CONCUR_DB_SLOW_MS: how long /slowdb's query takes
	faults         bool          // CONCUR_FAULTS=1: the fault routes of SPEC §9 exist
}

// loadConfig reads the settings through getenv (os.Getenv in main, a map in
// tests).
func loadConfig(getenv func(string) string) (config, error) {
	port := getenv("PORT")
	if port == "" {
		return config{}, fmt.Errorf("PORT is not set (e.g. PORT=8080 ./server)")
	}
	if _, err := intSetting("PORT", port, 1, 65535); err != nil {
		return config{}, err
	}
	cfg := config{addr: "127.0.0.1:" + port, pageFile: defaultPageFile}
	if f := getenv("CONCUR_PAGE_FILE"); f != "" {
		cfg.pageFile = f
	}

	cost, err := intEnv(getenv, "CONCUR_BCRYPT_COST", 10, bcrypt.MinCost, bcrypt.MaxCost)
	if err != nil {
		return config{}, err
	}
	every, err := intEnv(getenv, "CONCUR_PAGE_DELAY_EVERY", 10, 1, math.MaxInt32)
	if err != nil {
		return config{}, err
	}
	delayMS, err := intEnv(getenv, "CONCUR_PAGE_DELAY_MS", 2000, 0, math.MaxInt32)
	if err != nil {
		return config{}, err
	}
	longPollMS, err := intEnv(getenv, "CONCUR_LONGPOLL_MS", 5000, 0, math.MaxInt32)
	if err != nil {
		return config{}, err
	}
	dbPool, err := intEnv(getenv, "CONCUR_DB_POOL", 16, 1, math.MaxInt32)
	if err != nil {
		return config{}, err
	}
	slowMS, err := intEnv(getenv, "CONCUR_DB_SLOW_MS", 20, 0, math.MaxInt32)
	if err != nil {
		return config{}, err
	}
	cfg.dbURL = getenv("CONCUR_DB_URL")
	cfg.faults = getenv("CONCUR_FAULTS") == "1"
	cfg.dbPool = dbPool
	cfg.dbSlow = time.Duration(slowMS) * time.Millisecond
	cfg.bcryptCost = cost
	cfg.pageDelayEvery = int64(every)
	cfg.pageDelay = time.Duration(delayMS) * time.Millisecond
	cfg.longPoll = time.Duration(longPollMS) * time.Millisecond
	return cfg, nil
}

// intEnv reads the integer variable name, or def when it is unset.
func intEnv(getenv func(string) string, name string, def, min, max int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	return intSetting(name, v, min, max)
}

func intSetting(name, value string, min, max int) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < min || n > max {
		return 0, fmt.Errorf("%s=%q: must be an integer from %d to %d", name, value, min, max)
	}
	return n, nil
}
