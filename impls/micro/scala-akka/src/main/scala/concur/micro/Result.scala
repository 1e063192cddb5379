package concur.micro

/** The result line of spec/MICRO.md §7, written as JSON by hand: the program needs no library.
  *
  * @param params the benchmark's own parameters; `cores` is added on output
  * @param extra  the per-benchmark fields of §7 (procs, round_trips, tasks, …), in output order
  * @param lost   messages sent and never received: only supervised's kills may lose any (§4.7)
  */
final case class Result(
    bench: String,
    params: Seq[(String, Any)],
    ops: Long,
    elapsedNs: Long,
    received: Long,
    expected: Long,
    nsPerOp: Double,
    extra: Seq[(String, Any)] = Nil,
    lost: Long = 0L
) {
  def toJson: String = {
    val allParams = params :+ ("cores" -> Runtime.getRuntime.availableProcessors)
    val fields = Seq(
      "schema" -> 1,
      "bench" -> bench,
      "runtime" -> Result.Runtime,
      "params" -> Result.obj(allParams),
      "ops" -> ops,
      "elapsed_ns" -> elapsedNs,
      "ns_per_op" -> nsPerOp,
      "checks" -> Result.obj(Seq("received" -> received, "expected" -> expected))
    ) ++ extra
    Result.obj(fields).text
  }
}

object Result {
  val Runtime = "scala-akka"

  /** ns_per_op is elapsed / ops unless the benchmark says otherwise (idle), and 0 when no op completed (pairs with no
    * round trip, §4.5): JSON has no infinity.
    */
  def apply(cfg: Config, params: Seq[(String, Any)], ops: Long, elapsedNs: Long, received: Long, expected: Long): Result =
    Result(cfg.bench, params, ops, elapsedNs, received, expected, if (ops == 0) 0.0 else elapsedNs.toDouble / ops)

  private final case class Json(text: String)

  private def obj(fields: Seq[(String, Any)]): Json =
    Json(fields.map { case (k, v) => s""""$k":${value(v)}""" }.mkString("{", ",", "}"))

  private def value(v: Any): String = v match {
    case Json(text) => text
    case s: String  => s""""$s""""
    // A plain decimal: Double.toString would write 1.0E7.
    case d: Double =>
      require(!d.isNaN && !d.isInfinite, s"not a JSON number: $d")
      java.math.BigDecimal.valueOf(d).toPlainString
    case other => other.toString
  }
}
