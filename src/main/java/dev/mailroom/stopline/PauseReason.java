package dev.mailroom.stopline;

/** Why a send queue's line is stopped; {@link #wireName()} is what the API, the console and JMX show. */
public enum PauseReason {
    /** A provider refused us, not the job: bad credentials (535, 401), account suspended, quota exhausted. */
    SYSTEMIC,
    /** Every provider of the queue's chain has its circuit breaker open. */
    PROVIDERS_OPEN,
    /** The share of systemic-looking dead letters passed its threshold (the dead-letter-rate breaker). */
    DEAD_LETTER_RATE,
    /** The database does not answer: a delivery could not be recorded. */
    DATABASE,
    /** An operator paused the queue (API, console or JMX). */
    OPERATOR;

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static PauseReason fromWireName(String s) {
        return valueOf(s.trim().toUpperCase(java.util.Locale.ROOT));
    }
}
