package dev.mailroom.recoverability;

import dev.mailroom.platform.settings.SettingsReader;
import static dev.mailroom.recoverability.FailureClass.AMBIGUOUS;
import static dev.mailroom.recoverability.FailureClass.INTERNAL;
import static dev.mailroom.recoverability.FailureClass.SOFT_BOUNCE;
import static dev.mailroom.recoverability.FailureClass.SYSTEMIC;
import static dev.mailroom.recoverability.FailureClass.THROTTLED;
import static dev.mailroom.recoverability.FailureClass.TRANSIENT;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The policy matrix of one send queue: a {@link ClassPolicy} for each class that is ever tried again,
 * and the floor no delay goes below. The other classes ({@code permanent_recipient},
 * {@code content_policy}, {@code poison}, {@code unknown}) are never retried and have nothing to
 * configure: what happens to them is fixed by the design ({@link RecoverabilityPolicy}).
 *
 * <p>Configuration keys, each looked up for the queue, then for {@code default}, then taken from the
 * built-in defaults ({@code <class>} is a wire name: transient, ambiguous, soft_bounce, internal,
 * throttled, systemic):
 * <pre>
 * mailroom.policy.&lt;queue&gt;.&lt;class&gt;.delays        = 5s,15s,30s,60s,120s   (500ms, 5s, 15m, 1h, 2d, PT5S)
 * mailroom.policy.&lt;queue&gt;.&lt;class&gt;.max-retries   = 5      (transient, ambiguous, soft_bounce, internal)
 * mailroom.policy.&lt;queue&gt;.throttled.max-throttles = 50
 * mailroom.policy.&lt;queue&gt;.&lt;class&gt;.jitter        = full | equal | none
 * mailroom.policy.&lt;queue&gt;.min-delay             = 1s     (the floor)
 * </pre>
 */
public record RetryPolicy(String queue, Map<FailureClass, ClassPolicy> classes, Duration floor) {

    /** The classes with a {@link ClassPolicy}: those that are ever tried again. */
    public static final Set<FailureClass> RETRIED = Collections.unmodifiableSet(
            EnumSet.of(TRANSIENT, AMBIGUOUS, SOFT_BOUNCE, INTERNAL, THROTTLED, SYSTEMIC));

    /** The queue name whose keys every queue falls back to. */
    public static final String DEFAULT_QUEUE = "default";
    public static final String PREFIX = "mailroom.policy.";

    private static final RetryPolicy BUILT_IN = builtIn();

    public RetryPolicy {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(floor, "floor");
        if (floor.isNegative() || floor.isZero()) {
            throw new IllegalArgumentException("floor must be positive: " + floor);
        }
        Map<FailureClass, ClassPolicy> copy = new EnumMap<>(FailureClass.class);
        copy.putAll(classes);
        if (!copy.keySet().equals(RETRIED)) {
            throw new IllegalArgumentException("a policy is needed for exactly " + RETRIED + ", given " + copy.keySet());
        }
        classes = Collections.unmodifiableMap(copy);
    }

    /**
     * The built-in defaults: transient and ambiguous 5 retries at 5 s, 15 s, 30 s, 60 s, 120 s with full
     * jitter; soft_bounce 3 at 15 min, 1 h, 6 h with equal jitter (about that slow, never seconds);
     * internal one retry after 10 s; throttled 30 s when no Retry-After, capped at 50 throttles;
     * systemic a 30 s pause; floor 1 s.
     */
    public static RetryPolicy defaults() {
        return BUILT_IN;
    }

    private static RetryPolicy builtIn() {
        Map<FailureClass, ClassPolicy> m = new EnumMap<>(FailureClass.class);
        List<Duration> backoff = List.of(Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(30),
                Duration.ofSeconds(60), Duration.ofSeconds(120));
        m.put(TRANSIENT, new ClassPolicy(backoff, 5, Jitter.FULL));
        // Ambiguous retries exactly like transient ones; what differs (the same idempotency key, a later
        // reconciliation) is the executor's business, not the schedule's.
        m.put(AMBIGUOUS, new ClassPolicy(backoff, 5, Jitter.FULL));
        m.put(SOFT_BOUNCE, new ClassPolicy(List.of(Duration.ofMinutes(15), Duration.ofHours(1), Duration.ofHours(6)),
                3, Jitter.EQUAL));
        m.put(INTERNAL, new ClassPolicy(List.of(Duration.ofSeconds(10)), 1, Jitter.FULL));
        // Equal jitter: a throttled burst must not come back at one instant, nor much sooner than asked.
        m.put(THROTTLED, new ClassPolicy(List.of(Duration.ofSeconds(30)), 50, Jitter.EQUAL));
        m.put(SYSTEMIC, new ClassPolicy(List.of(Duration.ofSeconds(30)), Integer.MAX_VALUE, Jitter.EQUAL));
        return new RetryPolicy(DEFAULT_QUEUE, m, Duration.ofSeconds(1));
    }

    /**
     * The policy of {@code queue}: each key from the queue, else from {@code default}, else built in.
     *
     * @param config a lookup such as MicroProfile Config's {@code k -> config.getOptionalValue(k, String.class)};
     *               a blank value counts as absent
     * @throws IllegalArgumentException naming the key, for a value that cannot be used
     */
    public static RetryPolicy forQueue(String queue, Function<String, Optional<String>> config) {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(config, "config");
        if (queue.isBlank()) {
            throw new IllegalArgumentException("queue name is blank");
        }
        String q = queue.trim();
        SettingsReader settings = new SettingsReader(config);
        // the queue's own key, then default's: one lookup whose value knows the key it came from
        Function<String, Optional<SettingsReader.Value>> find = suffix -> q.equals(DEFAULT_QUEUE)
                ? settings.find(PREFIX + DEFAULT_QUEUE + "." + suffix)
                : settings.find(PREFIX + q + "." + suffix, PREFIX + DEFAULT_QUEUE + "." + suffix);
        Map<FailureClass, ClassPolicy> m = new EnumMap<>(FailureClass.class);
        for (FailureClass c : RETRIED) {
            ClassPolicy p = BUILT_IN.of(c);
            String base = c.wireName() + ".";
            Optional<SettingsReader.Value> delays = find.apply(base + "delays");
            if (delays.isPresent()) {
                p = p.withDelays(delays.get().durations());
            }
            String limitKey = c == THROTTLED ? "max-throttles" : c == SYSTEMIC ? null : "max-retries";
            if (limitKey != null) {
                Optional<SettingsReader.Value> limit = find.apply(base + limitKey);
                if (limit.isPresent()) {
                    p = p.withMaxRetries(limit.get().integer(0, Integer.MAX_VALUE));
                }
            }
            Optional<SettingsReader.Value> jitter = find.apply(base + "jitter");
            if (jitter.isPresent()) {
                p = p.withJitter(jitter.get().as(Jitter::fromWireName, "none, full or equal"));
            }
            m.put(c, p);
        }
        Duration floor = find.apply("min-delay").map(SettingsReader.Value::positiveDuration).orElse(BUILT_IN.floor());
        return new RetryPolicy(queue.trim(), m, floor);
    }

    /**
     * The row of a class that is tried again.
     *
     * @throws IllegalArgumentException for a class that never is (it has no budget)
     */
    public ClassPolicy of(FailureClass failureClass) {
        ClassPolicy p = classes.get(failureClass);
        if (p == null) {
            throw new IllegalArgumentException(failureClass.wireName() + " is never retried and has no retry policy");
        }
        return p;
    }
}
