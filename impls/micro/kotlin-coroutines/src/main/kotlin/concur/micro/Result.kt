package concur.micro

import java.math.BigDecimal

const val RUNTIME = "kotlin-coroutines"

/** The result line of spec/MICRO.md §7, written as JSON by hand: the program needs no library. */
class Result(
    cfg: Config,
    params: Map<String, Any>,
    val ops: Long,
    val elapsedNs: Long,
    val received: Long,
    val expected: Long,
) {
    val bench = cfg.bench
    /** The benchmark's own parameters, plus the parallelism in effect. */
    val params = params + ("cores" to Runtime.getRuntime().availableProcessors())
    /** 0 when no op completed (pairs with no round trip, §4.5): JSON has no infinity. */
    var nsPerOp = if (ops == 0L) 0.0 else elapsedNs.toDouble() / ops
    /** Messages counted sent and never received: only supervised's kills lose any (§4.7). */
    var lost = 0L
    /** The per-benchmark fields of §7 (procs, round_trips, tasks, …), in output order. */
    val extra = LinkedHashMap<String, Any>()

    fun with(field: String, value: Any) = apply { extra[field] = value }

    fun toJson(): String = buildString {
        append("""{"schema":1,"bench":"$bench","runtime":"$RUNTIME","params":""")
        append(params.entries.joinToString(",", "{", "}") { (k, v) -> "\"$k\":${json(v)}" })
        append(""","ops":$ops,"elapsed_ns":$elapsedNs,"ns_per_op":${json(nsPerOp)}""")
        append(""","checks":{"received":$received,"expected":$expected}""")
        extra.forEach { (k, v) -> append(",\"$k\":${json(v)}") }
        append('}')
    }

    /** Numbers as plain decimals: Double.toString would write 1.0E7. */
    private fun json(v: Any): String = when (v) {
        is Double -> {
            require(v.isFinite()) { "not a JSON number: $v" }
            BigDecimal.valueOf(v).toPlainString()
        }
        else -> v.toString()
    }
}
