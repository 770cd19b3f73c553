package dev.mailroom.deadletter;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Function;

/**
 * How long dead letters of a send queue are kept: {@code mailroom.deadletter.retention.<queue>}, else
 * {@code mailroom.deadletter.retention.default}, else 14 days; never less than 4 days, so a long weekend
 * cannot expire what nobody had a chance to look at (a shorter setting is refused, not shortened).
 */
public final class DeadLetterRetention {

    public static final Duration DEFAULT = Duration.ofDays(14);
    public static final Duration MINIMUM = Duration.ofDays(4);

    private final Function<String, Optional<String>> config;

    public DeadLetterRetention(Function<String, Optional<String>> config) {
        this.config = config;
    }

    public Duration forQueue(String queue) {
        String key = "mailroom.deadletter.retention." + queue;
        Optional<String> value = text(key);
        if (value.isEmpty()) {
            key = "mailroom.deadletter.retention.default";
            value = text(key);
        }
        if (value.isEmpty()) {
            return DEFAULT;
        }
        Duration d;
        try {
            d = Duration.parse(value.get());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(key + " is not an ISO-8601 duration (e.g. P14D): " + value.get(), e);
        }
        if (d.compareTo(MINIMUM) < 0) {
            throw new IllegalArgumentException(key + " is " + d + ", less than the minimum retention " + MINIMUM
                    + " (a long weekend)");
        }
        return d;
    }

    private Optional<String> text(String key) {
        return config.apply(key).map(String::trim).filter(s -> !s.isEmpty());
    }
}
