package dev.mailroom.recoverability;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The failed attempts of one job so far, oldest first, as they travel with its retries (JMS properties)
 * and in the database. It is what retry budgets are counted from: {@link RecoverabilityPolicy} is given
 * the history <em>before</em> the failure it decides on.
 *
 * @param attempts the failed attempts, oldest first
 */
public record AttemptHistory(List<Attempt> attempts) {

    /**
     * One failed attempt.
     *
     * @param at              when it failed
     * @param failureClass    what it was classified as
     * @param consumedAttempt whether it used up one of its class's retries: true after a
     *                        {@link RecoveryAction.RetryAfter}, false after a throttle or a pause
     *                        ({@link RecoveryAction#consumesAttempt()})
     */
    public record Attempt(Instant at, FailureClass failureClass, boolean consumedAttempt) {
        public Attempt {
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(failureClass, "failureClass");
        }
    }

    private static final AttemptHistory EMPTY = new AttemptHistory(List.of());

    public AttemptHistory {
        attempts = List.copyOf(Objects.requireNonNull(attempts, "attempts"));
    }

    /** A job's history before its first attempt. */
    public static AttemptHistory empty() {
        return EMPTY;
    }

    /** This history and one more attempt, as recorded after {@code action} was decided for it. */
    public AttemptHistory plus(Instant at, FailureClass failureClass, RecoveryAction action) {
        return plus(new Attempt(at, failureClass, action.consumesAttempt()));
    }

    /** This history and one more attempt. */
    public AttemptHistory plus(Attempt attempt) {
        List<Attempt> more = new ArrayList<>(attempts);
        more.add(Objects.requireNonNull(attempt, "attempt"));
        return new AttemptHistory(more);
    }

    /** Retries of {@code failureClass} used so far: its per-class budget is counted from this. */
    public int attemptsConsumed(FailureClass failureClass) {
        return (int) attempts.stream()
                .filter(a -> a.consumedAttempt() && a.failureClass() == failureClass)
                .count();
    }

    /** Retries used so far, all classes together. */
    public int attemptsConsumed() {
        return (int) attempts.stream().filter(Attempt::consumedAttempt).count();
    }

    /** How often the job was throttled: what the throttle cap is counted from. */
    public int throttles() {
        return occurrences(FailureClass.THROTTLED);
    }

    /** How many attempts failed as {@code failureClass}, whether or not they consumed a retry. */
    public int occurrences(FailureClass failureClass) {
        return (int) attempts.stream().filter(a -> a.failureClass() == failureClass).count();
    }

    /** When the job first failed; empty before any failure. */
    public Optional<Instant> firstSeenAt() {
        return attempts.stream().map(Attempt::at).min(Instant::compareTo);
    }

    /** How many attempts failed, whatever they consumed. */
    public int size() {
        return attempts.size();
    }
}
