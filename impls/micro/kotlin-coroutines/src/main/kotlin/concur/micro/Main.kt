/**
 * Concur's process micro-benchmarks (spec/MICRO.md) on Kotlin coroutines and
 * channels: one benchmark per invocation, one JSON line on stdout, exit 1 when
 * a message was lost or a count is wrong, exit 2 on a bad argument.
 */
package concur.micro

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlin.concurrent.thread
import kotlin.system.exitProcess

/** Held by whoever ends the program, so a late watchdog cannot follow the result line. */
private val EXIT = Any()

fun main(args: Array<String>) {
    val cfg = try {
        Config.parse(args, System.getenv())
    } catch (e: UsageError) {
        System.err.println("micro: ${e.message}")
        exitProcess(2)
    }
    checkCores(cfg)
    armWatchdog(cfg)
    // Main is a coroutine on the same dispatcher as the processes it talks to;
    // the main thread only waits for it. An exception in any coroutine cancels
    // the scope and ends up here.
    val result = try {
        runBlocking(processDispatcher(cfg.cores)) { run(cfg) }
    } catch (e: Throwable) {
        fail("${cfg.bench}: $e")
    }
    finish(result)
}

/**
 * Dispatchers.Default has max(2, CPUs) threads, two even with one CPU; the
 * limited view runs at most [cores] coroutines at once, so --cores 1 means one.
 */
fun processDispatcher(cores: Int): CoroutineDispatcher = Dispatchers.Default.limitedParallelism(cores)

private suspend fun run(cfg: Config): Result = when (cfg.bench) {
    "pingping" -> pingping(cfg)
    "pingpong" -> pingpong(cfg)
    "spawn", "maxprocs" -> spawn(cfg)
    "pairs" -> pairs(cfg)
    "idle" -> idle(cfg)
    "supervised" -> supervised(cfg)
    else -> error(cfg.bench)
}

/** -XX:ActiveProcessorCount sizes Dispatchers.Default; a run by hand without it must not report what it did not have. */
private fun checkCores(cfg: Config) {
    val cpus = Runtime.getRuntime().availableProcessors()
    if (cpus != cfg.cores) {
        fail("${cfg.bench}: --cores ${cfg.cores} but the JVM has $cpus processors (start it with -XX:ActiveProcessorCount=${cfg.cores})")
    }
}

/** A plain daemon thread, so that busy dispatcher threads cannot delay it. */
private fun armWatchdog(cfg: Config) = thread(isDaemon = true, name = "watchdog") {
    Thread.sleep((cfg.timeout * 1000).toLong())
    fail("timeout after ${cfg.timeout} s in ${cfg.bench}")
}

private fun finish(result: Result) {
    if (result.received + result.lost != result.expected) {
        fail("${result.bench}: received ${result.received} messages and lost ${result.lost}, expected ${result.expected}")
    }
    synchronized(EXIT) {
        print(result.toJson() + "\n")
        System.out.flush()
        exitProcess(0)
    }
}

/** Ends the program at the first wrong count (spec §3.1): exit 1, one line on stderr. */
fun fail(message: String): Nothing = synchronized(EXIT) {
    System.err.println("micro: $message")
    exitProcess(1)
}
