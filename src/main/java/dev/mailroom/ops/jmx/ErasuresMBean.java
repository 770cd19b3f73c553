package dev.mailroom.ops.jmx;

/** Erasure of one address (docs/erasure.md), as the REST API's {@code /api/v1/erasures}: {@code mailroom:type=Erasures}. */
public interface ErasuresMBean {

    /**
     * Erases {@code address} everywhere, {@code reason} kept in the audit (it must not hold the address); the record
     * with its counts as JSON ({@code "no_op": true} when an earlier erasure left nothing to do). Recorded as asked
     * by {@code jmx}.
     */
    String erase(String address, String reason);

    /** The audit, newest first, at most {@code limit} (1-1000) records as JSON; never an address, only its SHA-256. */
    String recent(int limit);
}
