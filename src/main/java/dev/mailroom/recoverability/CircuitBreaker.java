package dev.mailroom.recoverability;

import dev.mailroom.platform.settings.SettingsReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One provider's circuit breaker: the state machine of MicroProfile Fault Tolerance's
 * {@code @CircuitBreaker}, with its parameters (request volume, failure ratio, delay, success
 * threshold), kept as a plain class because the send path needs what the annotation does not give: one
 * breaker per provider instance named in configuration at run time (an annotation's breaker belongs to
 * one method), a look at the state <em>before</em> a call so a job can wait on the broker instead of
 * failing, at most one probe at a time while half-open, and time from the (movable) clock.
 *
 * <ul>
 *   <li><b>closed</b>: every call may go. The last {@code requestVolume} outcomes are kept; when that
 *       many are known and the failures among them reach {@code failureRatio}, the breaker opens.</li>
 *   <li><b>open</b>: no call goes until {@code delay} has passed since it opened; then it is half-open.</li>
 *   <li><b>half_open</b>: one probe at a time; {@code successThreshold} probe successes in a row close
 *       it (with an empty window), a failed probe opens it again for another {@code delay}. A probe that
 *       never reports (its worker died) frees the slot after {@code delay}, so there is still at most
 *       one probe per {@code delay}.</li>
 * </ul>
 * Not thread-safe; the owner holds a lock around each call. Every method that changes the state
 * returns the {@link Transition}, so the owner can announce it.
 */
public final class CircuitBreaker {

    public enum State {
        CLOSED("closed"), OPEN("open"), HALF_OPEN("half_open");

        private final String wireName;

        State(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    /**
     * @param requestVolume    how many recent outcomes the failure ratio is taken over (and needed before it opens)
     * @param failureRatio     the share of failures among them that opens the breaker, in (0, 1]
     * @param delay            how long it stays open before a probe may go
     * @param successThreshold how many probes in a row must succeed to close it
     */
    public record Settings(int requestVolume, double failureRatio, Duration delay, int successThreshold) {

        /** MicroProfile Fault Tolerance's defaults, except the delay (5 s there is a retry storm for a relay). */
        public static final Settings DEFAULTS = new Settings(20, 0.5, Duration.ofSeconds(30), 1);
        public static final String PREFIX = "mailroom.breaker.";

        public Settings {
            Objects.requireNonNull(delay, "delay");
            if (requestVolume < 1) {
                throw new IllegalArgumentException("request volume must be at least 1: " + requestVolume);
            }
            if (!(failureRatio > 0 && failureRatio <= 1)) {
                throw new IllegalArgumentException("failure ratio must be in (0, 1]: " + failureRatio);
            }
            if (delay.isNegative() || delay.isZero()) {
                throw new IllegalArgumentException("delay must be positive: " + delay);
            }
            if (successThreshold < 1) {
                throw new IllegalArgumentException("success threshold must be at least 1: " + successThreshold);
            }
        }

        /**
         * The settings of {@code provider}: keys {@code mailroom.breaker.<provider>.request-volume},
         * {@code .failure-ratio}, {@code .delay} (30s, 500ms), {@code .success-threshold}, each falling back
         * to {@code mailroom.breaker.<key>} and then {@link #DEFAULTS}.
         *
         * @throws IllegalArgumentException naming the key of a value that cannot be used
         */
        public static Settings forProvider(String provider, Function<String, Optional<String>> config) {
            String own = PREFIX + Objects.requireNonNull(provider, "provider").trim() + ".";
            SettingsReader s = new SettingsReader(config);
            return new Settings(
                    s.integer(DEFAULTS.requestVolume(), 1, Integer.MAX_VALUE, own + "request-volume", PREFIX + "request-volume"),
                    s.find(own + "failure-ratio", PREFIX + "failure-ratio").map(SettingsReader.Value::share)
                            .orElse(DEFAULTS.failureRatio()),
                    s.positiveDuration(DEFAULTS.delay(), own + "delay", PREFIX + "delay"),
                    s.integer(DEFAULTS.successThreshold(), 1, Integer.MAX_VALUE, own + "success-threshold",
                            PREFIX + "success-threshold"));
        }
    }

    /** A change of state, for the owner to announce. */
    public record Transition(State from, State to, Instant at, String lastFailure) {
    }

    /** What a caller may do now. */
    public enum Permit {
        /** Closed: call. */
        CALL,
        /** Half-open and the probe slot was free: this call is the probe. */
        PROBE,
        /** Open, or half-open with a probe under way: do not call. */
        DENIED
    }

    private final Settings settings;
    private final Deque<Boolean> window = new ArrayDeque<>();
    private State state = State.CLOSED;
    private Instant since;
    private String lastFailure;
    private Instant lastFailureAt;
    private Instant probeStartedAt;
    private int probeSuccesses;

    public CircuitBreaker(Settings settings, Instant now) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.since = Objects.requireNonNull(now, "now");
    }

    public Settings settings() {
        return settings;
    }

    /** The state at {@code now}: an open breaker whose delay has passed becomes half-open here. */
    public Optional<Transition> advance(Instant now) {
        // the wall clock stepped back past the last change (an NTP correction): the open delay and the probe slot are
        // measured from now instead, so a step back never holds the breaker open longer than its delay
        if (since.isAfter(now)) {
            since = now;
        }
        if (probeStartedAt != null && probeStartedAt.isAfter(now)) {
            probeStartedAt = now;
        }
        if (state == State.OPEN && !now.isBefore(since.plus(settings.delay()))) {
            return Optional.of(moveTo(State.HALF_OPEN, since.plus(settings.delay())));
        }
        return Optional.empty();
    }

    /** The state, as of the last call (call {@link #advance} first for the state at a time). */
    public State state() {
        return state;
    }

    public Instant since() {
        return since;
    }

    public String lastFailure() {
        return lastFailure;
    }

    public Instant lastFailureAt() {
        return lastFailureAt;
    }

    /** Whether a call could go at {@code now} without taking anything (no probe slot is taken). */
    public boolean wouldPermit(Instant now) {
        advance(now);
        return switch (state) {
            case CLOSED -> true;
            case OPEN -> false;
            case HALF_OPEN -> probeSlotFree(now);
        };
    }

    /**
     * Asks to call at {@code now}. {@link Permit#PROBE} takes the probe slot until {@link #record} or
     * until {@code delay} has passed.
     */
    public Permit acquire(Instant now) {
        advance(now);
        switch (state) {
            case CLOSED:
                return Permit.CALL;
            case HALF_OPEN:
                if (probeSlotFree(now)) {
                    probeStartedAt = now;
                    return Permit.PROBE;
                }
                return Permit.DENIED;
            default:
                return Permit.DENIED;
        }
    }

    /**
     * When a denied caller could next get a call through: the end of the open delay, or the end of the
     * probe slot's lease while half-open; {@code now} when a call may go now.
     */
    public Instant nextChance(Instant now) {
        advance(now);
        return switch (state) {
            case CLOSED -> now;
            case OPEN -> since.plus(settings.delay());
            case HALF_OPEN -> probeSlotFree(now) ? now : probeStartedAt.plus(settings.delay());
        };
    }

    /**
     * The outcome of a call that went through.
     *
     * @param failed      whether it counts as the provider failing (transient, ambiguous, systemic, no
     *                    connection); a per-recipient or per-content refusal is a provider that works
     * @param description what failed, kept as the last failure; ignored for a success
     */
    public Optional<Transition> record(Instant now, boolean failed, String description) {
        advance(now);
        if (failed) {
            lastFailure = description;
            lastFailureAt = now;
        }
        switch (state) {
            case HALF_OPEN:
                probeStartedAt = null;
                if (failed) {
                    return Optional.of(moveTo(State.OPEN, now));
                }
                if (++probeSuccesses >= settings.successThreshold()) {
                    return Optional.of(moveTo(State.CLOSED, now));
                }
                return Optional.empty();
            case CLOSED:
                window.addLast(failed);
                while (window.size() > settings.requestVolume()) {
                    window.removeFirst();
                }
                long failures = window.stream().filter(f -> f).count();
                if (window.size() >= settings.requestVolume()
                        && failures >= settings.failureRatio() * settings.requestVolume()) {
                    return Optional.of(moveTo(State.OPEN, now));
                }
                return Optional.empty();
            default:
                // a call that was let through before the breaker opened reports late: it changes nothing
                return Optional.empty();
        }
    }

    private boolean probeSlotFree(Instant now) {
        return probeStartedAt == null || !now.isBefore(probeStartedAt.plus(settings.delay()));
    }

    private Transition moveTo(State to, Instant at) {
        State from = state;
        state = to;
        since = at;
        window.clear();
        probeStartedAt = null;
        probeSuccesses = 0;
        return new Transition(from, to, at, lastFailure);
    }
}
