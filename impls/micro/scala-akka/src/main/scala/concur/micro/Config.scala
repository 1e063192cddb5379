package concur.micro

/** A bad argument: exit code 2, the message naming the flag and the fix. */
final class UsageError(message: String) extends Exception(message)

/** The command line of spec/MICRO.md §2, parsed once, so a typo never measures a silently different workload.
  *
  * @param size     --size: payload bytes per pingping message
  * @param reps     --reps: exchanges (pingping) or round trips (pingpong)
  * @param procs    --procs: processes of spawn, maxprocs and idle
  * @param pairs    --pairs: communicating pairs
  * @param seconds  --seconds: run length of pairs and supervised
  * @param killRate --kill-rate: processes killed per second, in percent of the 2P (supervised)
  * @param sleepMs  --sleep-ms: each idle task's sleep
  * @param cores    --cores: the parallelism the JVM must have been started with, and the dispatcher's
  * @param timeout  --timeout: the watchdog of §3.2, in seconds
  * @param dropOne  --drop-one: the test hook of §3.3
  */
final case class Config(
    bench: String,
    size: Int = 5120,
    reps: Int = 10000,
    procs: Int = 10000,
    pairs: Int = 4,
    seconds: Double = 1.0,
    killRate: Double = 0.0,
    sleepMs: Int = 1000,
    cores: Int = Runtime.getRuntime.availableProcessors,
    timeout: Double = 300.0,
    dropOne: Boolean = false
)

object Config {
  val Benches: Seq[String] = Seq("pingping", "pingpong", "spawn", "maxprocs", "pairs", "idle", "supervised")

  // Plain decimals only: toDouble would also take "NaN", "1e3" and "2d".
  private val Decimal = """[0-9]+(\.[0-9]*)?|\.[0-9]+""".r

  def parse(args: Seq[String], env: Map[String, String]): Config = {
    val bench = args.headOption.filter(Benches.contains).getOrElse {
      val got = args.headOption.fold("nothing")(b => s"'$b'")
      throw new UsageError(
        s"the first argument must be a benchmark, one of ${Benches.mkString("[", " ", "]")}, got $got (e.g. pingping --size 5120 --reps 10000)"
      )
    }
    var cfg = Config(bench)
    env.get("CONCUR_CORES").filter(_.nonEmpty).foreach(v => cfg = cfg.copy(cores = positiveInt("CONCUR_CORES", v)))
    val seen = scala.collection.mutable.Set.empty[String]
    var rest = args.toList.tail
    while (rest.nonEmpty) {
      val (flag, inline) = rest.head.split("=", 2) match {
        case Array(f, v) if f.startsWith("--") => (f, Some(v))
        case _                                 => (rest.head, None)
      }
      rest = rest.tail
      if (!seen.add(flag)) throw new UsageError(s"$flag: given twice (give each flag at most once)")
      if (flag == "--drop-one") {
        if (inline.isDefined) throw new UsageError("--drop-one: takes no value (e.g. --drop-one)")
        cfg = cfg.copy(dropOne = true)
      } else {
        val value = inline.getOrElse {
          if (rest.isEmpty) throw new UsageError(s"$flag: missing value (e.g. $flag 1000)")
          val v = rest.head
          rest = rest.tail
          v
        }
        cfg = flag match {
          case "--size"      => cfg.copy(size = positiveInt(flag, value))
          case "--reps"      => cfg.copy(reps = positiveInt(flag, value))
          case "--procs"     => cfg.copy(procs = positiveInt(flag, value))
          case "--pairs"     => cfg.copy(pairs = positiveInt(flag, value))
          case "--cores"     => cfg.copy(cores = positiveInt(flag, value))
          case "--sleep-ms"  => cfg.copy(sleepMs = nonNegativeInt(flag, value))
          case "--seconds"   => cfg.copy(seconds = positiveSeconds(flag, value))
          case "--timeout"   => cfg.copy(timeout = positiveSeconds(flag, value))
          case "--kill-rate" => cfg.copy(killRate = percentage(flag, value))
          case _             => throw new UsageError(s"unknown flag '$flag' (the flags are in spec/MICRO.md §2)")
        }
      }
    }
    cfg
  }

  private def int(value: String): Option[Int] =
    if (value.nonEmpty && value.forall(_.isDigit)) value.toIntOption else None

  private def positiveInt(name: String, value: String): Int =
    int(value).filter(_ >= 1).getOrElse(throw new UsageError(s"$name: '$value' is not an integer >= 1 (e.g. $name 10000)"))

  private def nonNegativeInt(name: String, value: String): Int =
    int(value).getOrElse(throw new UsageError(s"$name: '$value' is not an integer >= 0 (e.g. $name 1000)"))

  private def positiveSeconds(name: String, value: String): Double =
    Some(value)
      .filter(Decimal.matches)
      .map(_.toDouble)
      .filter(s => s > 0 && s <= 1e6)
      .getOrElse(throw new UsageError(s"$name: '$value' is not a number of seconds > 0 (e.g. $name 0.5)"))

  private def percentage(name: String, value: String): Double =
    Some(value)
      .filter(Decimal.matches)
      .map(_.toDouble)
      .filter(k => k >= 0 && k <= 1000)
      .getOrElse(throw new UsageError(s"$name: '$value' is not a percentage >= 0 and <= 1000 (e.g. $name 5)"))
}
