package dev.mailroom.erasure;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One erasure as its audit row holds it: who asked, when, why, the address's SHA-256 (never the address), its state
 * ({@code running} until its last batch, then {@code done}), how many times it was run (a request that found it
 * running resumed it) and the rows it changed per {@code table.action} (deleted, marked, discarded, hashed).
 * {@code noOp}: this request found it done and changed nothing.
 */
public record ErasureRecord(long id, String addressSha256, String state, String requestedBy, String reason,
                            Instant requestedAt, Instant finishedAt, int runs, Map<String, Long> counts, boolean noOp) {

    private static final Pattern ENTRY = Pattern.compile("\"([a-z_.]+)\":(\\d+)");

    public ErasureRecord {
        counts = Map.copyOf(counts);
    }

    ErasureRecord asNoOp() {
        return new ErasureRecord(id, addressSha256, state, requestedBy, reason, requestedAt, finishedAt, runs, counts, true);
    }

    /** The counts as the {@code erasure.counts} column holds them: a flat JSON object, keys sorted. */
    static String json(Map<String, Long> counts) {
        StringBuilder s = new StringBuilder("{");
        new TreeMap<>(counts).forEach((k, n) -> s.append(s.length() > 1 ? "," : "").append('"').append(k).append("\":").append(n));
        return s.append('}').toString();
    }

    static Map<String, Long> counts(String json) {
        Map<String, Long> counts = new TreeMap<>();
        Matcher m = ENTRY.matcher(json == null ? "" : json);
        while (m.find()) {
            counts.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return counts;
    }
}
