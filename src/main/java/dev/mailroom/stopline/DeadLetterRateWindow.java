package dev.mailroom.stopline;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The dead-letter-rate breaker of one send queue, a sliding window after MassTransit's kill switch: once at
 * least {@code activationThreshold} deliveries happened within {@code window}, a share of dead letters with a
 * systemic-looking reason ({@code reasons}: a fault that hits every job alike, not one bad job) above
 * {@code tripThreshold} trips it. A trip empties the window: counting starts afresh when the line restarts.
 * Pure: time is an argument; not thread-safe (its owner serialises calls per queue).
 */
public final class DeadLetterRateWindow {

    /**
     * @param activationThreshold deliveries within the window before it can trip (MassTransit: 100)
     * @param tripThreshold       share of counted dead letters among the deliveries that trips it (0.10)
     * @param window              how far back deliveries and dead letters count (1 minute)
     * @param restartAfter        how long a tripped queue stays paused before it restarts (60 s)
     * @param reasons             the dead-letter reasons that count
     */
    public record Settings(int activationThreshold, double tripThreshold, Duration window, Duration restartAfter,
                           Set<String> reasons) {

        public static final Set<String> DEFAULT_REASONS =
                Set.of("retries_exhausted", "handler_error", "unmapped_error", "redelivery_limit");

        public Settings {
            if (activationThreshold < 1) {
                throw new IllegalArgumentException("activation threshold must be at least 1: " + activationThreshold);
            }
            if (!(tripThreshold > 0 && tripThreshold <= 1)) {
                throw new IllegalArgumentException("trip threshold must be a share in (0, 1]: " + tripThreshold);
            }
            if (window.isNegative() || window.isZero() || restartAfter.isNegative()) {
                throw new IllegalArgumentException("window must be positive and restart-after not negative");
            }
            reasons = Set.copyOf(reasons);
        }

        public static Settings defaults() {
            return new Settings(100, 0.10, Duration.ofMinutes(1), Duration.ofSeconds(60), DEFAULT_REASONS);
        }
    }

    /** What tripped it: counts within the window at the moment of the trip. */
    public record Trip(int deliveries, int deadLetters, double share) {
        public String describe(Settings s) {
            return String.format(Locale.ROOT, "%d of %d deliveries within %s dead-lettered with a systemic-looking"
                    + " reason (%.1f %%, threshold %.1f %%)", deadLetters, deliveries, s.window(), share * 100,
                    s.tripThreshold() * 100);
        }
    }

    private final Settings settings;
    private final ArrayDeque<Instant> deliveries = new ArrayDeque<>();
    private final ArrayDeque<Instant> counted = new ArrayDeque<>();

    public DeadLetterRateWindow(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    public Settings settings() {
        return settings;
    }

    /** A delivery of the queue was handled at {@code at}. */
    public void delivery(Instant at) {
        deliveries.addLast(at);
        trim(at);
    }

    /** A job of the queue was dead-lettered with {@code reason} at {@code at}: the trip, if this one tripped it. */
    public Optional<Trip> deadLetter(String reason, Instant at) {
        trim(at);
        if (!settings.reasons().contains(reason)) {
            return Optional.empty();
        }
        counted.addLast(at);
        int n = deliveries.size();
        if (n < settings.activationThreshold()) {
            return Optional.empty();
        }
        double share = (double) counted.size() / n;
        if (share <= settings.tripThreshold()) {
            return Optional.empty();
        }
        Trip trip = new Trip(n, counted.size(), share);
        deliveries.clear();
        counted.clear();
        return Optional.of(trip);
    }

    /** Deliveries within the window as of the last call. */
    public int deliveries() {
        return deliveries.size();
    }

    private void trim(Instant now) {
        Instant oldest = now.minus(settings.window());
        while (!deliveries.isEmpty() && !deliveries.peekFirst().isAfter(oldest)) {
            deliveries.removeFirst();
        }
        while (!counted.isEmpty() && !counted.peekFirst().isAfter(oldest)) {
            counted.removeFirst();
        }
    }
}
