package dev.mailroom.recoverability;

import dev.mailroom.platform.settings.DurationText;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The send rate towards one provider, shared by a node's consumers: additive increase, multiplicative
 * decrease (AIMD), so a provider that throttles sees fewer requests instead of a retry storm, and gets
 * its traffic back slowly once it copes.
 *
 * <ul>
 *   <li>{@link #onThrottle()} multiplies the rate by the decrease factor (0.5), not below the minimum;
 *       at most once per cooldown, because the consumers' calls in flight when the provider started
 *       throttling all come back throttled at once and describe one event, not twenty.</li>
 *   <li>{@link #onSuccess()} adds {@code increasePerSecond} per second since the last change, at most
 *       one second's worth per success, not above the maximum: a steady flow of successes recovers at a
 *       fixed pace however many consumers there are, and an idle hour does not count as an hour of
 *       success.</li>
 *   <li>{@link #reserve()} spaces calls evenly at the current rate (no bursts): it hands out the next
 *       free slot and returns how long the caller must wait for it.</li>
 * </ul>
 * Thread-safe (every method holds the instance's lock, briefly and never while waiting). Time comes from
 * an injectable nanosecond source, so tests need no sleeping.
 */
public final class AimdRateLimiter {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /**
     * @param initialPerSecond  the rate before any feedback
     * @param minPerSecond      the floor of a decrease (the rate never reaches zero: the provider must
     *                          get a chance to say it copes again)
     * @param maxPerSecond      the ceiling of an increase: what the provider allows us at best
     * @param increasePerSecond how much the rate grows per second of success
     * @param decreaseFactor    what a throttle multiplies the rate by, in (0, 1)
     * @param decreaseCooldown  the least time between two decreases; zero allows one per throttle
     */
    public record Settings(double initialPerSecond, double minPerSecond, double maxPerSecond,
                           double increasePerSecond, double decreaseFactor, Duration decreaseCooldown) {

        /** 20/s at best, down to one call per 5 s, recovering 0.2/s per second (about 50 s from 10 to 20). */
        public static final Settings DEFAULTS = new Settings(20, 0.2, 20, 0.2, 0.5, Duration.ofSeconds(1));

        public static final String PREFIX = "mailroom.rate-limit.";

        public Settings {
            Objects.requireNonNull(decreaseCooldown, "decreaseCooldown");
            if (!(minPerSecond > 0) || !(maxPerSecond >= minPerSecond) || Double.isInfinite(maxPerSecond)) {
                throw new IllegalArgumentException("need 0 < min <= max < infinity, got min " + minPerSecond
                        + ", max " + maxPerSecond);
            }
            if (!(initialPerSecond >= minPerSecond && initialPerSecond <= maxPerSecond)) {
                throw new IllegalArgumentException("initial rate " + initialPerSecond + " is not within ["
                        + minPerSecond + ", " + maxPerSecond + "]");
            }
            if (!(increasePerSecond >= 0) || Double.isInfinite(increasePerSecond)) {
                throw new IllegalArgumentException("increase per second must be >= 0: " + increasePerSecond);
            }
            if (!(decreaseFactor > 0 && decreaseFactor < 1)) {
                throw new IllegalArgumentException("decrease factor must be in (0, 1): " + decreaseFactor);
            }
            if (decreaseCooldown.isNegative()) {
                throw new IllegalArgumentException("decrease cooldown must not be negative: " + decreaseCooldown);
            }
        }

        /**
         * The settings for {@code provider} from keys {@code mailroom.rate-limit.<provider>.}{@code
         * max-per-second}, {@code min-per-second}, {@code initial-per-second} (default: the maximum),
         * {@code increase-per-second}, {@code decrease-factor}, {@code decrease-cooldown} (5s, 500ms),
         * each falling back to {@link #DEFAULTS}.
         *
         * @throws IllegalArgumentException naming the key of a value that cannot be used
         */
        public static Settings forProvider(String provider, Function<String, Optional<String>> config) {
            String p = PREFIX + Objects.requireNonNull(provider, "provider").trim() + ".";
            double max = number(config, p + "max-per-second", DEFAULTS.maxPerSecond());
            double min = number(config, p + "min-per-second", Math.min(DEFAULTS.minPerSecond(), max));
            double initial = number(config, p + "initial-per-second", max);
            double increase = number(config, p + "increase-per-second", DEFAULTS.increasePerSecond());
            double factor = number(config, p + "decrease-factor", DEFAULTS.decreaseFactor());
            Duration cooldown = value(config, p + "decrease-cooldown").map(v -> {
                try {
                    return DurationText.parse(v);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(p + "decrease-cooldown: " + e.getMessage(), e);
                }
            }).orElse(DEFAULTS.decreaseCooldown());
            try {
                return new Settings(initial, min, max, increase, factor, cooldown);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(p + "*: " + e.getMessage(), e);
            }
        }

        private static double number(Function<String, Optional<String>> config, String key, double dflt) {
            return value(config, key).map(v -> {
                try {
                    double d = Double.parseDouble(v);
                    if (Double.isNaN(d) || Double.isInfinite(d)) {
                        throw new NumberFormatException();
                    }
                    return d;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(key + ": '" + v + "' is not a number");
                }
            }).orElse(dflt);
        }

        private static Optional<String> value(Function<String, Optional<String>> config, String key) {
            Optional<String> v = config.apply(key);
            return v == null ? Optional.empty() : v.map(String::trim).filter(s -> !s.isEmpty());
        }
    }

    private final Settings settings;
    private final LongSupplier nanoTime;

    private double rate;
    private long nextFreeNanos;
    private long lastIncreaseNanos;
    private long lastDecreaseNanos;
    private boolean decreasedYet;

    /** A limiter on the system's monotonic clock. */
    public AimdRateLimiter(Settings settings) {
        this(settings, System::nanoTime);
    }

    /** @param nanoTime a monotonic nanosecond source ({@code System::nanoTime}, or a test's counter) */
    public AimdRateLimiter(Settings settings, LongSupplier nanoTime) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.rate = settings.initialPerSecond();
        long now = nanoTime.getAsLong();
        this.nextFreeNanos = now;
        this.lastIncreaseNanos = now;
    }

    /**
     * Takes the next free slot: how long the caller must wait before its call, zero when it may call now.
     * The slot is the caller's whether it waits or not.
     */
    public synchronized Duration reserve() {
        long now = nanoTime.getAsLong();
        long wait = Math.max(0, nextFreeNanos - now);
        nextFreeNanos = Math.max(nextFreeNanos, now) + intervalNanos();
        return Duration.ofNanos(wait);
    }

    /**
     * Takes the next free slot only if the wait for it is at most {@code maxWait}, so a caller that must
     * not block long can hand its job back (a throttle) instead.
     *
     * @return the wait, or empty when it would be longer (and nothing is reserved)
     */
    public synchronized Optional<Duration> tryReserve(Duration maxWait) {
        long now = nanoTime.getAsLong();
        long wait = Math.max(0, nextFreeNanos - now);
        if (wait > maxWait.toNanos()) {
            return Optional.empty();
        }
        nextFreeNanos = Math.max(nextFreeNanos, now) + intervalNanos();
        return Optional.of(Duration.ofNanos(wait));
    }

    /** The provider throttled a call: halve the rate (once per cooldown), not below the minimum. */
    public synchronized void onThrottle() {
        long now = nanoTime.getAsLong();
        if (decreasedYet && now - lastDecreaseNanos < settings.decreaseCooldown().toNanos()) {
            return;
        }
        rate = Math.max(settings.minPerSecond(), rate * settings.decreaseFactor());
        decreasedYet = true;
        lastDecreaseNanos = now;
        lastIncreaseNanos = now; // recovery is counted from the last throttle, not from before it
    }

    /** A call went through: raise the rate by its share of the additive increase, not above the maximum. */
    public synchronized void onSuccess() {
        long now = nanoTime.getAsLong();
        long credited = Math.min(Math.max(0, now - lastIncreaseNanos), NANOS_PER_SECOND);
        rate = Math.min(settings.maxPerSecond(),
                rate + settings.increasePerSecond() * credited / (double) NANOS_PER_SECOND);
        lastIncreaseNanos = now;
    }

    /** The current rate, calls per second. */
    public synchronized double rate() {
        return rate;
    }

    public Settings settings() {
        return settings;
    }

    private long intervalNanos() {
        return (long) Math.ceil(NANOS_PER_SECOND / rate);
    }
}
