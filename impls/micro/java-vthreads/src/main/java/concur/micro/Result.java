package concur.micro;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/** The result line of spec/MICRO.md §7, written as JSON by hand: the program needs no library. */
final class Result {
    static final String RUNTIME = "java-vthreads";

    final String bench;
    final Map<String, Object> params;
    final long ops;
    final long elapsedNs;
    double nsPerOp;
    final long received;
    final long expected;
    /** Messages lost by kills (supervised, §4.7): {@code received + lost == expected}; 0 elsewhere. */
    long lost;
    /** The per-benchmark fields of §7 (procs, round_trips, tasks, …), in output order. */
    final Map<String, Object> extra = new LinkedHashMap<>();

    /** {@code params} lists the benchmark's own parameters; {@code cores} is added here. */
    Result(Config cfg, Map<String, Object> params, long ops, long elapsedNs, long received, long expected) {
        this.bench = cfg.bench();
        this.params = new LinkedHashMap<>(params);
        this.params.put("cores", Runtime.getRuntime().availableProcessors());
        this.ops = ops;
        this.elapsedNs = elapsedNs;
        // 0 when no op completed (pairs with no round trip, §4.5): JSON has no infinity.
        this.nsPerOp = ops == 0 ? 0 : (double) elapsedNs / ops;
        this.received = received;
        this.expected = expected;
    }

    Result with(String field, Object value) {
        extra.put(field, value);
        return this;
    }

    String toJson() {
        var json = new StringBuilder(256);
        json.append("{\"schema\":1,\"bench\":\"").append(bench)
                .append("\",\"runtime\":\"").append(RUNTIME).append("\",\"params\":");
        object(json, params);
        json.append(",\"ops\":").append(ops)
                .append(",\"elapsed_ns\":").append(elapsedNs)
                .append(",\"ns_per_op\":").append(number(nsPerOp))
                .append(",\"checks\":{\"received\":").append(received)
                .append(",\"expected\":").append(expected).append('}');
        extra.forEach((k, v) -> json.append(",\"").append(k).append("\":").append(value(v)));
        return json.append('}').toString();
    }

    private static void object(StringBuilder json, Map<String, Object> map) {
        json.append('{');
        String sep = "";
        for (var e : map.entrySet()) {
            json.append(sep).append('"').append(e.getKey()).append("\":").append(value(e.getValue()));
            sep = ",";
        }
        json.append('}');
    }

    private static String value(Object v) {
        return v instanceof Double d ? number(d) : v.toString();
    }

    /** A plain decimal: Double.toString would write 1.0E7. */
    private static String number(double d) {
        if (!Double.isFinite(d)) {
            throw new IllegalArgumentException("not a JSON number: " + d);
        }
        return BigDecimal.valueOf(d).toPlainString();
    }
}
