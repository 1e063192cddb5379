/* Concur's process micro-benchmarks (spec/MICRO.md) on explicit POSIX
 * threads: the shared types of the program. Each benchmark fills a result;
 * micro.c turns it into the one JSON line of spec §7. */
#ifndef MICRO_H
#define MICRO_H

#include <pthread.h>
#include <stdint.h>

enum bench { PINGPING, PINGPONG, SPAWN, MAXPROCS, PAIRS, IDLE, SUPERVISED };

struct config {
	enum bench bench;
	const char *bench_name;
	long size, reps, procs, pairs, sleep_ms, cores;
	double seconds, timeout;
	double kill_rate; /* percent of the 2P killed per second (supervised) */
	int drop_one;
};

struct result {
	long ops;
	int64_t elapsed_ns;
	double ns_per_op; /* elapsed_ns / ops unless the bench sets it */
	long received, expected;
	long round_trips, min_pair_round_trips; /* pairs */
	long kills, lost;                       /* supervised */
	int64_t restart_p50_ns, restart_p99_ns;
	long late_restarts; /* kills whose replacement first ran after the stop */
};

/* Every thread the benchmarks start: a 64 KiB stack instead of glibc's
 * 8 MiB default, so that tens of thousands of dormant threads fit. */
extern pthread_attr_t micro_thread_attr;

void start_thread(pthread_t *t, void *(*fn)(void *), void *arg, long index);
int64_t now_ns(void);
void sleep_ns(int64_t ns);
_Noreturn void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void bench_pingping(const struct config *cfg, struct result *r);
void bench_pingpong(const struct config *cfg, struct result *r);
void bench_spawn(const struct config *cfg, struct result *r);
void bench_pairs(const struct config *cfg, struct result *r);
void bench_idle(const struct config *cfg, struct result *r);
void bench_supervised(const struct config *cfg, struct result *r);

#endif
