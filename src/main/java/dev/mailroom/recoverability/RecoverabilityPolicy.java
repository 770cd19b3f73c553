package dev.mailroom.recoverability;

import dev.mailroom.recoverability.RecoveryAction.Ack;
import dev.mailroom.recoverability.RecoveryAction.DeadLetter;
import dev.mailroom.recoverability.RecoveryAction.Discard;
import dev.mailroom.recoverability.RecoveryAction.Pause;
import dev.mailroom.recoverability.RecoveryAction.RetryAfter;
import dev.mailroom.recoverability.RecoveryAction.Throttle;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The decision after a failure (docs/how-it-works.md "When a send fails"): a pure function of the failure, the attempt history, the
 * queue's policy, the validity window and the clock, deterministic given the jitter source. It decides;
 * it never sends, schedules, sleeps or writes.
 *
 * <p>The matrix:
 * <ul>
 *   <li>{@code permanent_recipient}: {@code Ack(bounced_permanent)}; {@code content_policy}:
 *       {@code DeadLetter(manual_review)}; {@code poison}: {@code DeadLetter(poison)}; {@code unknown}:
 *       {@code DeadLetter(unmapped_error)}. These verdicts schedule nothing, so they stand whatever the
 *       validity window: a bad recipient is still suppressed and poison still reaches the DLQ.</li>
 *   <li>{@code ambiguous} to a provider that cannot drop a duplicate (SMTP): {@code Ack(unknown)}, never
 *       an automatic resend; an operator marks it as sent or sends it again. The same rule
 *       ({@link ProviderTraits#mayResendAmbiguous()}) as a crash after the point of no return in
 *       {@link AdmissionPolicy}. To a provider that dedupes by idempotency key it is retried like transient.</li>
 *   <li>{@code transient}, {@code ambiguous} (deduping provider), {@code soft_bounce}, {@code internal}:
 *       {@code RetryAfter(jittered delay)} while the class's retries last (counted per class from the
 *       history), then {@code DeadLetter(retries_exhausted)} ({@code handler_error} for internal).</li>
 *   <li>{@code throttled}: {@code Throttle(Retry-After, else the class's delay, jittered)}; consumes no
 *       attempt. Bounded only by the window and the throttle cap: at the cap the job is
 *       {@code DeadLetter(retries_exhausted)} with class {@code throttled}, because a provider that
 *       throttles one job fifty times is not going to take it.</li>
 *   <li>{@code systemic}: {@code Pause(provider:<name>, delay)}; consumes no attempt and never
 *       dead-letters, however often it happens.</li>
 * </ul>
 * Every action that would try the job again first checks the window: at or past {@code expiresAt} the
 * job is {@code Discard(expired)}, and so is a job whose next try (after jitter, or the provider's
 * Retry-After) would land at or past it: nothing is scheduled that could only be sent late. The window
 * is checked before the budget, since dead-lettering a job nobody may send any more is pointless.
 *
 * <p>Delays never go below the policy's floor ({@link RetryPolicy#floor()}, 1 s by default): full
 * jitter and a zero or negative Retry-After (an HTTP date in the past) would otherwise retry at once.
 */
public final class RecoverabilityPolicy {

    private RecoverabilityPolicy() {
    }

    /**
     * @param failure   what just failed
     * @param history   the job's failed attempts <em>before</em> this one
     * @param policy    the queue's policy matrix
     * @param provider  the provider the failed call went to: whether it drops a duplicate decides an
     *                  ambiguous failure ({@link ProviderTraits#mayResendAmbiguous()})
     * @param expiresAt the end of the job's validity window, or null for none
     * @param now       the time of the decision
     * @param jitter    the jitter source; seeded in tests, so the decision is reproducible
     */
    public static RecoveryAction decide(Failure failure, AttemptHistory history, RetryPolicy policy,
                                        ProviderTraits provider, Instant expiresAt, Instant now,
                                        RandomGenerator jitter) {
        Objects.requireNonNull(failure, "failure");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(history, "history");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(jitter, "jitter");
        FailureClass c = failure.failureClass();
        return switch (c) {
            case PERMANENT_RECIPIENT -> new Ack(Ack.BOUNCED_PERMANENT);
            case CONTENT_POLICY -> new DeadLetter(DeadLetter.MANUAL_REVIEW, c);
            case POISON -> new DeadLetter(DeadLetter.POISON, c);
            case UNKNOWN -> new DeadLetter(DeadLetter.UNMAPPED_ERROR, c);
            case AMBIGUOUS -> provider.mayResendAmbiguous() ? retry(c, history, policy, expiresAt, now, jitter)
                    : new Ack(Ack.UNKNOWN);
            case TRANSIENT, SOFT_BOUNCE, INTERNAL -> retry(c, history, policy, expiresAt, now, jitter);
            case THROTTLED -> throttle(failure, history, policy, expiresAt, now, jitter);
            case SYSTEMIC -> pause(failure, history, policy, expiresAt, now, jitter);
        };
    }

    private static RecoveryAction retry(FailureClass c, AttemptHistory history, RetryPolicy policy,
                                        Instant expiresAt, Instant now, RandomGenerator jitter) {
        if (expired(expiresAt, now)) {
            return new Discard(Discard.EXPIRED);
        }
        ClassPolicy p = policy.of(c);
        int used = history.attemptsConsumed(c);
        if (used >= p.maxRetries()) {
            return new DeadLetter(c == FailureClass.INTERNAL ? DeadLetter.HANDLER_ERROR : DeadLetter.RETRIES_EXHAUSTED, c);
        }
        Duration delay = p.jitter().apply(p.baseDelay(used), policy.floor(), jitter);
        return landsInWindow(delay, expiresAt, now) ? new RetryAfter(delay) : new Discard(Discard.EXPIRED);
    }

    private static RecoveryAction throttle(Failure failure, AttemptHistory history, RetryPolicy policy,
                                           Instant expiresAt, Instant now, RandomGenerator jitter) {
        if (expired(expiresAt, now)) {
            return new Discard(Discard.EXPIRED);
        }
        ClassPolicy p = policy.of(FailureClass.THROTTLED);
        int throttles = history.throttles();
        if (throttles >= p.maxRetries()) {
            return new DeadLetter(DeadLetter.RETRIES_EXHAUSTED, FailureClass.THROTTLED);
        }
        Duration delay;
        if (failure.retryAfter() != null) {
            // The provider said when: honour it exactly, only never sooner than the floor.
            delay = max(failure.retryAfter(), policy.floor());
        } else {
            delay = p.jitter().apply(p.baseDelay(throttles), policy.floor(), jitter);
        }
        return landsInWindow(delay, expiresAt, now) ? new Throttle(delay) : new Discard(Discard.EXPIRED);
    }

    private static RecoveryAction pause(Failure failure, AttemptHistory history, RetryPolicy policy,
                                        Instant expiresAt, Instant now, RandomGenerator jitter) {
        if (expired(expiresAt, now)) {
            return new Discard(Discard.EXPIRED);
        }
        ClassPolicy p = policy.of(FailureClass.SYSTEMIC);
        Duration delay = p.jitter().apply(p.baseDelay(history.occurrences(FailureClass.SYSTEMIC)), policy.floor(), jitter);
        if (!landsInWindow(delay, expiresAt, now)) {
            return new Discard(Discard.EXPIRED);
        }
        return new Pause(Pause.providerScope(failure.provider()), delay);
    }

    private static boolean expired(Instant expiresAt, Instant now) {
        return ValidityCheck.expired(expiresAt, now);
    }

    private static boolean landsInWindow(Duration delay, Instant expiresAt, Instant now) {
        return ValidityCheck.landsInWindow(delay, expiresAt, now);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
