package main

import (
	"strings"
	"testing"
	"time"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := loadConfig(env(map[string]string{"PORT": "8080"}))
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		addr:           "127.0.0.1:8080",
		bcryptCost:     10,
		pageFile:       defaultPageFile,
		pageDelayEvery: 10,
		pageDelay:      2 * time.Second,
		longPoll:       5 * time.Second,
		dbPool:         16,
		dbSlow:         20 * time.Millisecond,
	}
	if cfg != want {
		t.Errorf("got %+v, want %+v", cfg, want)
	}
}

func TestConfigAcceptsTheThesisCost(t *testing.T) {
	cfg, err := loadConfig(env(map[string]string{"PORT": "1", "CONCUR_BCRYPT_COST": "20"}))
	if err != nil || cfg.bcryptCost != 20 {
		t.Errorf("cost 20: got %d, %v", cfg.bcryptCost, err)
	}
}

func TestConfigErrorsNameTheVariable(t *testing.T) {
	for name, value := range map[string]string{
		"PORT":                    "http",
		"CONCUR_BCRYPT_COST":      "3",
		"CONCUR_PAGE_DELAY_EVERY": "0",
		"CONCUR_PAGE_DELAY_MS":    "-1",
		"CONCUR_LONGPOLL_MS":      "5s",
		"CONCUR_DB_POOL":          "0",
		"CONCUR_DB_SLOW_MS":       "20ms",
	} {
		vars := map[string]string{"PORT": "8080", name: value}
		_, err := loadConfig(env(vars))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: got error %v, want one naming %s", name, value, err, name)
		}
	}
	if _, err := loadConfig(env(nil)); err == nil || !strings.Contains(err.Error(), "PORT") {
		t.Errorf("no PORT: got error %v", err)
	}
}
