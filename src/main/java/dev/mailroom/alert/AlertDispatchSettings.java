package dev.mailroom.alert;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * How the {@link AlertDispatcher} queues, groups and retries ({@code mailroom.alerts.*}), validated when read.
 *
 * @param queueCapacity     events waiting for the next tick; beyond it {@link AlertDispatcher#raise} drops and counts
 * @param groupWait         see {@link AlertGrouper}
 * @param groupInterval     see {@link AlertGrouper}
 * @param initialBackoff    wait after a sink's first failure
 * @param maxBackoff        the doubling stops here
 * @param maxRetryAge       an alert undelivered this long after it first waited for a sink is dropped (logged)
 * @param maxPendingPerSink distinct alerts waiting for one sink; beyond it the oldest is dropped (logged)
 */
public record AlertDispatchSettings(int queueCapacity, Duration groupWait, Duration groupInterval, Duration initialBackoff,
        Duration maxBackoff, Duration maxRetryAge, int maxPendingPerSink) {

    public static final String QUEUE_CAPACITY = AlertConfig.PREFIX + "queue-capacity";
    public static final String GROUP_WAIT = AlertConfig.PREFIX + "group-wait";
    public static final String GROUP_INTERVAL = AlertConfig.PREFIX + "group-interval";
    public static final String RETRY_INITIAL_BACKOFF = AlertConfig.PREFIX + "retry.initial-backoff";
    public static final String RETRY_MAX_BACKOFF = AlertConfig.PREFIX + "retry.max-backoff";
    public static final String RETRY_MAX_AGE = AlertConfig.PREFIX + "retry.max-age";
    public static final String RETRY_MAX_PENDING = AlertConfig.PREFIX + "retry.max-pending";


    public static final int DEFAULT_QUEUE_CAPACITY = 100_000;
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(60);
    public static final Duration DEFAULT_MAX_RETRY_AGE = Duration.ofHours(24);
    public static final int DEFAULT_MAX_PENDING = 10_000;

    public AlertDispatchSettings {
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queue capacity must be >= 1: " + queueCapacity);
        }
        for (Duration d : List.of(groupWait, groupInterval, initialBackoff, maxBackoff, maxRetryAge)) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("durations must be positive: " + d);
            }
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("max backoff " + maxBackoff + " is below initial backoff " + initialBackoff);
        }
        if (maxPendingPerSink < 1) {
            throw new IllegalArgumentException("max pending must be >= 1: " + maxPendingPerSink);
        }
    }

    public static AlertDispatchSettings defaults() {
        return new AlertDispatchSettings(DEFAULT_QUEUE_CAPACITY, AlertGrouper.DEFAULT_GROUP_WAIT, AlertGrouper.DEFAULT_GROUP_INTERVAL,
                DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, DEFAULT_MAX_RETRY_AGE, DEFAULT_MAX_PENDING);
    }

    /** @throws IllegalArgumentException naming the key of a value that cannot be used */
    public static AlertDispatchSettings fromConfig(Function<String, Optional<String>> config) {
        AlertConfig c = new AlertConfig(config);
        Duration initial = c.duration(RETRY_INITIAL_BACKOFF, DEFAULT_INITIAL_BACKOFF);
        Duration max = c.duration(RETRY_MAX_BACKOFF, DEFAULT_MAX_BACKOFF);
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException(RETRY_MAX_BACKOFF + ": " + AlertConfig.text(max) + " is below "
                    + RETRY_INITIAL_BACKOFF + " " + AlertConfig.text(initial));
        }
        return new AlertDispatchSettings(
                c.integer(QUEUE_CAPACITY, DEFAULT_QUEUE_CAPACITY, 1, 10_000_000),
                c.duration(GROUP_WAIT, AlertGrouper.DEFAULT_GROUP_WAIT),
                c.duration(GROUP_INTERVAL, AlertGrouper.DEFAULT_GROUP_INTERVAL),
                initial, max,
                c.duration(RETRY_MAX_AGE, DEFAULT_MAX_RETRY_AGE),
                c.integer(RETRY_MAX_PENDING, DEFAULT_MAX_PENDING, 1, 1_000_000));
    }
}
