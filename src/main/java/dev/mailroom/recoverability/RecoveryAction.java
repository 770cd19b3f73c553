package dev.mailroom.recoverability;

import java.time.Duration;
import java.util.Objects;

/**
 * What to do with a job after a failure: the only ways out of a handler (each leads to one terminal state
 * an operator can see, or to another attempt). Decided by
 * {@link RecoverabilityPolicy}; carried out elsewhere (the send consumer, the broker's scheduled
 * delivery, the dead-letter recorder).
 */
public sealed interface RecoveryAction {

    /** One line for the job's timeline and the log. */
    String describe();

    /** Whether the attempt that led here used up one of its class's retries (recorded on the attempt). */
    boolean consumesAttempt();

    /**
     * Done with the job without sending it again, with this outcome for the job.
     *
     * @param outcome the job's outcome, e.g. {@value #BOUNCED_PERMANENT}
     */
    record Ack(String outcome) implements RecoveryAction {
        /** A recipient that will never accept: no retry, the recipient is suppressed. */
        public static final String BOUNCED_PERMANENT = "bounced_permanent";
        /**
         * The call may have reached a provider that cannot drop a duplicate: not sent again automatically;
         * an operator marks it as sent or sends it again.
         */
        public static final String UNKNOWN = "unknown";

        public Ack {
            Objects.requireNonNull(outcome, "outcome");
        }

        @Override
        public String describe() {
            return "ack: " + outcome;
        }

        @Override
        public boolean consumesAttempt() {
            return false;
        }
    }

    /**
     * Send again after {@code delay} (a scheduled copy on the broker, same idempotency key); the
     * failure counts against its class's retry budget.
     */
    record RetryAfter(Duration delay) implements RecoveryAction {
        public RetryAfter {
            requirePositive(delay);
        }

        @Override
        public String describe() {
            return "retry after " + format(delay) + " (consumes an attempt)";
        }

        @Override
        public boolean consumesAttempt() {
            return true;
        }
    }

    /**
     * Send again after {@code delay} because the provider asked us to slow down: no attempt is
     * consumed; the throttle cap and the validity window bound it.
     */
    record Throttle(Duration delay) implements RecoveryAction {
        public Throttle {
            requirePositive(delay);
        }

        @Override
        public String describe() {
            return "throttled: retry after " + format(delay) + " (no attempt consumed)";
        }

        @Override
        public boolean consumesAttempt() {
            return false;
        }
    }

    /**
     * Move the job to its queue's DLQ with a reason.
     *
     * @param reason       one of the constants here
     * @param failureClass the class of the failure that ended it
     */
    record DeadLetter(String reason, FailureClass failureClass) implements RecoveryAction {
        public static final String POISON = "poison";
        public static final String MANUAL_REVIEW = "manual_review";
        public static final String UNMAPPED_ERROR = "unmapped_error";
        public static final String HANDLER_ERROR = "handler_error";
        public static final String RETRIES_EXHAUSTED = "retries_exhausted";

        public DeadLetter {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(failureClass, "failureClass");
        }

        @Override
        public String describe() {
            return "dead-letter: " + reason + " (" + failureClass.wireName() + ")";
        }

        @Override
        public boolean consumesAttempt() {
            return false;
        }
    }

    /** Drop the job with a record, never send it. */
    record Discard(String reason) implements RecoveryAction {
        /** Its validity window ended, or would end before the next try. */
        public static final String EXPIRED = "expired";

        public Discard {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String describe() {
            return "discard: " + reason;
        }

        @Override
        public boolean consumesAttempt() {
            return false;
        }
    }

    /**
     * A fault that is not this job's (our credentials, the provider down): pause {@code scope}. Until
     * consumer pausing exists the executor carries it out as a delayed retry after {@code delay} that
     * consumes no attempt, and logs an error; it is never a dead letter.
     *
     * @param scope what to pause: {@code provider:<name>}, or {@code provider} when the name is unknown
     * @param delay when to try this job again
     */
    record Pause(String scope, Duration delay) implements RecoveryAction {
        public Pause {
            Objects.requireNonNull(scope, "scope");
            requirePositive(delay);
        }

        /** The same pause, the job tried again after {@code delay} instead. */
        public Pause after(Duration delay) {
            return new Pause(scope, delay);
        }

        /** The scope of a pause caused by {@code provider}. */
        public static String providerScope(String provider) {
            return provider == null || provider.isBlank() ? "provider" : "provider:" + provider;
        }

        @Override
        public String describe() {
            return "pause " + scope + ": retry after " + format(delay) + " (no attempt consumed)";
        }

        @Override
        public boolean consumesAttempt() {
            return false;
        }
    }

    /**
     * Send again after {@code delay} through whichever provider of the queue's chain may take it then
     * ({@link ProviderRouting}): a failover to the next provider, or a wait for an open breaker. Nothing of
     * the job reached anybody, so no attempt is consumed and an outage of any length ends in a send.
     *
     * @param why what the timeline says: {@code failover to relay-b}, {@code breaker of relay-a open}
     */
    record Reroute(String why, Duration delay) implements RecoveryAction {
        public Reroute {
            Objects.requireNonNull(why, "why");
            requirePositive(delay);
        }

        @Override
        public String describe() {
            return "reroute (" + why + "): again in " + format(delay) + " (no attempt consumed)";
        }

        @Override
        public boolean consumesAttempt() {
            return false;
        }
    }

    private static void requirePositive(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("delay must be positive: " + delay);
        }
    }

    /** "14.203s", "15m", "1h30m": readable in a timeline. */
    private static String format(Duration d) {
        return d.toString().substring(2).toLowerCase();
    }
}
