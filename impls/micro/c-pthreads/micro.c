/* micro: the command line (spec/MICRO.md §2), the watchdog (§3.2), the
 * cores (§6) and the JSON line (§7); the benchmarks are in bench_*.c. */
#include "micro.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

pthread_attr_t micro_thread_attr;

static const char *const bench_names[] = {"pingping", "pingpong", "spawn", "maxprocs", "pairs", "idle", "supervised"};

static _Noreturn void usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("micro: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n", stderr);
	va_end(ap);
	exit(2);
}

void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("micro: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n", stderr);
	va_end(ap);
	/* _exit: other threads may hold stdio locks; nothing is buffered on stdout yet. */
	_exit(1);
}

int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sleep_ns(int64_t ns)
{
	struct timespec ts = {ns / 1000000000, ns % 1000000000};
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

void start_thread(pthread_t *t, void *(*fn)(void *), void *arg, long index)
{
	int err = pthread_create(t, &micro_thread_attr, fn, arg);
	if (err != 0)
		fail("pthread_create failed for thread %ld: %s", index + 1, strerror(err));
}

static long int_arg(const char *flag, const char *v, long min)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || n < min)
		usage("%s: '%s' is not an integer >= %ld (e.g. %s 1000)", flag, v, min, flag);
	return n;
}

static double seconds_arg(const char *flag, const char *v)
{
	char *end;
	double s = strtod(v, &end);
	if (end == v || *end != '\0' || !(s > 0) || s > 1e6)
		usage("%s: '%s' is not a number of seconds > 0 (e.g. %s 0.5)", flag, v, flag);
	return s;
}

static double kill_rate_arg(const char *flag, const char *v)
{
	char *end;
	double k = strtod(v, &end);
	if (end == v || *end != '\0' || !(k >= 0) || k > 1000)
		usage("%s: '%s' is not a percentage from 0 to 1000 of the processes killed per second (e.g. %s 5)", flag, v, flag);
	return k;
}

static void set_flag(struct config *cfg, const char *flag, const char *v)
{
	if (!strcmp(flag, "--size"))
		cfg->size = int_arg(flag, v, 1);
	else if (!strcmp(flag, "--reps"))
		cfg->reps = int_arg(flag, v, 1);
	else if (!strcmp(flag, "--procs"))
		cfg->procs = int_arg(flag, v, 1);
	else if (!strcmp(flag, "--pairs"))
		cfg->pairs = int_arg(flag, v, 1);
	else if (!strcmp(flag, "--sleep-ms"))
		cfg->sleep_ms = int_arg(flag, v, 0);
	else if (!strcmp(flag, "--cores"))
		cfg->cores = int_arg(flag, v, 1);
	else if (!strcmp(flag, "--seconds"))
		cfg->seconds = seconds_arg(flag, v);
	else if (!strcmp(flag, "--timeout"))
		cfg->timeout = seconds_arg(flag, v);
	else if (!strcmp(flag, "--kill-rate"))
		cfg->kill_rate = kill_rate_arg(flag, v);
	else
		usage("unknown flag '%s' (see spec/MICRO.md §2)", flag);
}

static struct config parse_args(int argc, char **argv)
{
	struct config cfg = {.size = 5120, .reps = 10000, .procs = 10000, .pairs = 4,
			     .sleep_ms = 1000, .seconds = 1, .timeout = 300, .cores = 0};
	const char *env_cores = getenv("CONCUR_CORES");
	if (env_cores && *env_cores)
		cfg.cores = int_arg("CONCUR_CORES", env_cores, 1);
	if (argc < 2)
		usage("the first argument must be a benchmark: pingping, pingpong, spawn, maxprocs, pairs, idle or supervised (e.g. ./micro pingping --reps 10000)");
	cfg.bench_name = NULL;
	for (size_t i = 0; i < sizeof bench_names / sizeof *bench_names; i++)
		if (!strcmp(argv[1], bench_names[i])) {
			cfg.bench = (enum bench)i;
			cfg.bench_name = bench_names[i];
		}
	if (!cfg.bench_name)
		usage("unknown benchmark '%s': one of pingping, pingpong, spawn, maxprocs, pairs, idle, supervised", argv[1]);
	for (int i = 2; i < argc; i++) {
		for (int j = 2; j < i; j++)
			if (!strcmp(argv[i], argv[j]) && !strncmp(argv[i], "--", 2))
				usage("%s: given twice", argv[i]);
		if (!strcmp(argv[i], "--drop-one")) {
			cfg.drop_one = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage("%s: missing value", argv[i]);
		set_flag(&cfg, argv[i], argv[i + 1]);
		i++;
	}
	return cfg;
}

/* The OS-thread analogue of GOMAXPROCS: run on the first C CPUs of the
 * mask we were given (concur micro already pins us to exactly C). Threads
 * inherit the mask. Returns the CPUs in effect. */
static long apply_cores(long cores)
{
	cpu_set_t mask;
	if (sched_getaffinity(0, sizeof mask, &mask) != 0)
		fail("sched_getaffinity: %s", strerror(errno));
	long available = CPU_COUNT(&mask);
	if (cores == 0 || cores >= available)
		return available;
	cpu_set_t narrowed;
	CPU_ZERO(&narrowed);
	for (int cpu = 0, kept = 0; cpu < CPU_SETSIZE && kept < cores; cpu++)
		if (CPU_ISSET(cpu, &mask)) {
			CPU_SET(cpu, &narrowed);
			kept++;
		}
	if (sched_setaffinity(0, sizeof narrowed, &narrowed) != 0)
		fail("sched_setaffinity: %s", strerror(errno));
	return cores;
}

static void *watchdog(void *arg)
{
	const struct config *cfg = arg;
	sleep_ns((int64_t)(cfg->timeout * 1e9));
	fail("timeout after %g s in %s", cfg->timeout, cfg->bench_name);
}

/* A decimal parameter echoed as given (§7): 15 significant digits, which
 * read back as the same double for any decimal typed with at most 15
 * (0.1, not 0.10000000000000001; 1.2345678, not %g's 1.23457), else 17. */
static void print_number(double x)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%.15g", x);
	if (strtod(buf, NULL) != x)
		snprintf(buf, sizeof buf, "%.17g", x);
	fputs(buf, stdout);
}

static void print_params(const struct config *cfg, long cores)
{
	switch (cfg->bench) {
	case PINGPING: printf("\"size\":%ld,\"reps\":%ld", cfg->size, cfg->reps); break;
	case PINGPONG: printf("\"reps\":%ld", cfg->reps); break;
	case SPAWN:
	case MAXPROCS: printf("\"procs\":%ld", cfg->procs); break;
	case PAIRS:
		printf("\"pairs\":%ld,\"seconds\":", cfg->pairs);
		print_number(cfg->seconds);
		break;
	case SUPERVISED:
		printf("\"pairs\":%ld,\"seconds\":", cfg->pairs);
		print_number(cfg->seconds);
		fputs(",\"kill_rate\":", stdout);
		print_number(cfg->kill_rate);
		break;
	case IDLE: printf("\"procs\":%ld,\"sleep_ms\":%ld", cfg->procs, cfg->sleep_ms); break;
	}
	printf(",\"cores\":%ld", cores);
}

static void print_result(const struct config *cfg, long cores, const struct result *r)
{
	printf("{\"schema\":1,\"bench\":\"%s\",\"runtime\":\"c-pthreads\",\"params\":{", cfg->bench_name);
	print_params(cfg, cores);
	printf("},\"ops\":%ld,\"elapsed_ns\":%lld,\"ns_per_op\":%.6f,\"checks\":{\"received\":%ld,\"expected\":%ld}",
	       r->ops, (long long)r->elapsed_ns, r->ns_per_op, r->received, r->expected);
	if (cfg->bench == SPAWN || cfg->bench == MAXPROCS)
		printf(",\"procs\":%ld,\"ns_per_proc\":%.6f", cfg->procs, r->ns_per_op);
	if (cfg->bench == PAIRS)
		printf(",\"round_trips\":%ld,\"messages\":%ld,\"messages_per_s\":%.6f,\"min_pair_round_trips\":%ld",
		       r->round_trips, 2 * r->round_trips, 2 * r->round_trips / (r->elapsed_ns / 1e9),
		       r->min_pair_round_trips);
	if (cfg->bench == SUPERVISED)
		printf(",\"round_trips\":%ld,\"messages\":%ld,\"messages_per_s\":%.6f,\"kills\":%ld,\"lost\":%ld"
		       ",\"restart_p50_ns\":%lld,\"restart_p99_ns\":%lld,\"late_restarts\":%ld",
		       r->round_trips, r->received, r->received / (r->elapsed_ns / 1e9), r->kills, r->lost,
		       (long long)r->restart_p50_ns, (long long)r->restart_p99_ns, r->late_restarts);
	if (cfg->bench == IDLE)
		printf(",\"tasks\":%ld,\"sleep_ns\":%lld", cfg->procs, (long long)cfg->sleep_ms * 1000000);
	printf("}\n");
}

/* The final check of spec §3.1, then the line. ns_per_op is 0 when no op
 * completed (pairs with no round trip, §4.5): JSON has no infinity.
 * supervised loses messages by design and checks its losses itself (§4.7). */
static void report(const struct config *cfg, long cores, struct result *r)
{
	if (cfg->bench != SUPERVISED && r->received != r->expected)
		fail("%s: received %ld messages, expected %ld", cfg->bench_name, r->received, r->expected);
	if (r->ns_per_op < 0)
		r->ns_per_op = r->ops > 0 ? (double)r->elapsed_ns / r->ops : 0;
	print_result(cfg, cores, r);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct config cfg = parse_args(argc, argv);
	long cores = apply_cores(cfg.cores);
	if (cfg.cores != 0 && cores != cfg.cores)
		fail("%s: only %ld CPUs are available, --cores asked for %ld", cfg.bench_name, cores, cfg.cores);

	pthread_t dog;
	if (pthread_create(&dog, NULL, watchdog, &cfg) != 0)
		fail("cannot start the watchdog thread");
	pthread_attr_init(&micro_thread_attr);
	pthread_attr_setstacksize(&micro_thread_attr, 64 * 1024);

	struct result r = {0};
	r.ns_per_op = -1;
	switch (cfg.bench) {
	case PINGPING: bench_pingping(&cfg, &r); break;
	case PINGPONG: bench_pingpong(&cfg, &r); break;
	case SPAWN:
	case MAXPROCS: bench_spawn(&cfg, &r); break;
	case PAIRS: bench_pairs(&cfg, &r); break;
	case IDLE: bench_idle(&cfg, &r); break;
	case SUPERVISED: bench_supervised(&cfg, &r); break;
	}
	report(&cfg, cores, &r);
	/* Dormant or idle threads are finished; exit without joining the watchdog. */
	_exit(0);
}
