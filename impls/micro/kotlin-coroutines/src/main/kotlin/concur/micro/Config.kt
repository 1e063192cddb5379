package concur.micro

/** A bad argument: exit code 2, [message] naming the flag and the fix. */
class UsageError(message: String) : Exception(message)

val BENCHES = listOf("pingping", "pingpong", "spawn", "maxprocs", "pairs", "idle", "supervised")

/**
 * The command line of spec/MICRO.md §2, parsed once, so a typo never measures
 * a silently different workload.
 */
data class Config(
    val bench: String,
    /** --size: payload bytes per pingping message */
    val size: Int = 5120,
    /** --reps: exchanges (pingping) or round trips (pingpong) */
    val reps: Int = 10_000,
    /** --procs: processes of spawn, maxprocs and idle */
    val procs: Int = 10_000,
    /** --pairs: communicating pairs */
    val pairs: Int = 4,
    /** --seconds: run length of pairs and supervised */
    val seconds: Double = 1.0,
    /** --sleep-ms: each idle task's sleep */
    val sleepMs: Int = 1000,
    /** --kill-rate: supervised's kills per second, in percent of the 2P processes */
    val killRate: Double = 0.0,
    /** --cores: the parallelism the JVM must have been started with */
    val cores: Int = Runtime.getRuntime().availableProcessors(),
    /** --timeout: the watchdog of §3.2, in seconds */
    val timeout: Double = 300.0,
    /** --drop-one: the test hook of §3.3 */
    val dropOne: Boolean = false,
) {
    companion object {
        // Plain decimals only: toDouble() would also take "NaN", "1e3" and "2d".
        private val DECIMAL = Regex("""[0-9]+(\.[0-9]*)?|\.[0-9]+""")

        fun parse(args: Array<String>, env: Map<String, String>): Config {
            val bench = args.firstOrNull()
            if (bench !in BENCHES) {
                val got = if (bench == null) "nothing" else "'$bench'"
                throw UsageError("the first argument must be a benchmark, one of $BENCHES, got $got (e.g. pingping --size 5120 --reps 10000)")
            }
            var cfg = Config(bench!!)
            env["CONCUR_CORES"]?.takeIf { it.isNotEmpty() }?.let { cfg = cfg.copy(cores = positiveInt("CONCUR_CORES", it)) }
            val seen = HashSet<String>()
            var i = 1
            while (i < args.size) {
                var flag = args[i++]
                var value: String? = null
                if (flag.startsWith("--") && '=' in flag) {
                    value = flag.substringAfter('=')
                    flag = flag.substringBefore('=')
                }
                if (!seen.add(flag)) throw UsageError("$flag: given twice (give each flag at most once)")
                if (flag == "--drop-one") {
                    if (value != null) throw UsageError("--drop-one: takes no value (e.g. --drop-one)")
                    cfg = cfg.copy(dropOne = true)
                    continue
                }
                if (value == null) {
                    if (i >= args.size) throw UsageError("$flag: missing value (e.g. $flag 1000)")
                    value = args[i++]
                }
                cfg = when (flag) {
                    "--size" -> cfg.copy(size = positiveInt(flag, value))
                    "--reps" -> cfg.copy(reps = positiveInt(flag, value))
                    "--procs" -> cfg.copy(procs = positiveInt(flag, value))
                    "--pairs" -> cfg.copy(pairs = positiveInt(flag, value))
                    "--cores" -> cfg.copy(cores = positiveInt(flag, value))
                    "--sleep-ms" -> cfg.copy(sleepMs = nonNegativeInt(flag, value))
                    "--seconds" -> cfg.copy(seconds = positiveSeconds(flag, value))
                    "--timeout" -> cfg.copy(timeout = positiveSeconds(flag, value))
                    "--kill-rate" -> cfg.copy(killRate = killRate(flag, value))
                    else -> throw UsageError("unknown flag '$flag' (the flags are in spec/MICRO.md §2)")
                }
            }
            return cfg
        }

        private fun int(value: String): Int? = if (value.all { it in '0'..'9' }) value.toIntOrNull() else null

        private fun positiveInt(name: String, value: String): Int =
            int(value)?.takeIf { it >= 1 }
                ?: throw UsageError("$name: '$value' is not an integer >= 1 (e.g. $name 10000)")

        private fun nonNegativeInt(name: String, value: String): Int =
            int(value) ?: throw UsageError("$name: '$value' is not an integer >= 0 (e.g. $name 1000)")

        private fun positiveSeconds(name: String, value: String): Double =
            value.takeIf { DECIMAL.matches(it) }?.toDouble()?.takeIf { it > 0 && it <= 1e6 }
                ?: throw UsageError("$name: '$value' is not a number of seconds > 0 (e.g. $name 0.5)")

        private fun killRate(name: String, value: String): Double =
            value.takeIf { DECIMAL.matches(it) }?.toDouble()?.takeIf { it <= 1000 }
                ?: throw UsageError("$name: '$value' is not a percentage >= 0 and <= 1000 (e.g. $name 5)")
    }
}
