package dev.mailroom.recoverability;

import java.time.Duration;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * How a base delay is spread, so jobs that failed together do not come back together. Every result is
 * at least the floor (a retry is never instantaneous) and at most the base delay; millisecond
 * resolution, as broker scheduled delivery is.
 */
public enum Jitter {
    /** Exactly the base delay (never below the floor). Draws nothing from the random source. */
    NONE,
    /** Uniform in [floor, d] ("full jitter": spreads a burst over the whole delay). */
    FULL,
    /** Uniform in [max(floor, d/2), d]: spread, but still about as slow as asked (slow retries). */
    EQUAL;

    /** {@code none}, {@code full} or {@code equal}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The jitter of that name (case ignored). */
    public static Jitter fromWireName(String name) {
        if (name != null) {
            for (Jitter j : values()) {
                if (j.wireName().equals(name.trim().toLowerCase(Locale.ROOT))) {
                    return j;
                }
            }
        }
        throw new IllegalArgumentException("'" + name + "' is not a jitter: none, full or equal");
    }

    /**
     * The delay to use for base delay {@code d}.
     *
     * @param floor  the least delay ever returned
     * @param random the jitter source; one draw for FULL and EQUAL when {@code d} exceeds the floor
     */
    public Duration apply(Duration d, Duration floor, RandomGenerator random) {
        long max = d.toMillis();
        long min = floor.toMillis();
        if (max <= min) {
            return floor;
        }
        long low = switch (this) {
            case NONE -> max;
            case FULL -> min;
            case EQUAL -> Math.max(min, max / 2);
        };
        if (low >= max) {
            return Duration.ofMillis(max);
        }
        return Duration.ofMillis(low + random.nextLong(max - low + 1));
    }
}
