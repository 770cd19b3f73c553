package dev.mailroom.recoverability;

import static dev.mailroom.recoverability.FailureClass.AMBIGUOUS;
import static dev.mailroom.recoverability.FailureClass.CONTENT_POLICY;
import static dev.mailroom.recoverability.FailureClass.INTERNAL;
import static dev.mailroom.recoverability.FailureClass.PERMANENT_RECIPIENT;
import static dev.mailroom.recoverability.FailureClass.POISON;
import static dev.mailroom.recoverability.FailureClass.SOFT_BOUNCE;
import static dev.mailroom.recoverability.FailureClass.SYSTEMIC;
import static dev.mailroom.recoverability.FailureClass.THROTTLED;
import static dev.mailroom.recoverability.FailureClass.TRANSIENT;
import static dev.mailroom.recoverability.FailureClass.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.recoverability.RecoveryAction.Ack;
import dev.mailroom.recoverability.RecoveryAction.DeadLetter;
import dev.mailroom.recoverability.RecoveryAction.Discard;
import dev.mailroom.recoverability.RecoveryAction.Pause;
import dev.mailroom.recoverability.RecoveryAction.RetryAfter;
import dev.mailroom.recoverability.RecoveryAction.Throttle;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link RecoverabilityPolicy#decide}: every row of the policy matrix, the window and the jitter. */
class RecoverabilityPolicyTest {

    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
    private static final RetryPolicy DEFAULTS = RetryPolicy.defaults();
    private static final Duration FLOOR = DEFAULTS.floor();
    /** The provider of the rows that are not about ambiguity: one that drops a duplicate (an HTTP API). */
    private static final ProviderTraits DEDUPING = new ProviderTraits("http", true);
    private static final ProviderTraits SMTP = new ProviderTraits("smtp", false);

    private static Failure failure(FailureClass c) {
        return new Failure(c, "smtp", "451", "4.3.0", "451 4.3.0 try later", null, null);
    }

    private static Failure throttled(Duration retryAfter) {
        return new Failure(THROTTLED, "http", "429", null, "slow down", retryAfter, null);
    }

    /** A history of {@code n} attempts of class {@code c}, consuming as the policy would have decided. */
    private static AttemptHistory history(FailureClass c, int n, boolean consumed) {
        AttemptHistory h = AttemptHistory.empty();
        for (int i = 0; i < n; i++) {
            h = h.plus(new AttemptHistory.Attempt(NOW.minusSeconds(1000 - i), c, consumed));
        }
        return h;
    }

    private static Function<String, Optional<String>> config(Map<String, String> values) {
        return k -> Optional.ofNullable(values.get(k));
    }

    private static RecoveryAction decide(Failure f, AttemptHistory h, Instant expiresAt) {
        return RecoverabilityPolicy.decide(f, h, DEFAULTS, DEDUPING, expiresAt, NOW, new SplittableRandom(7));
    }

    // ---------------------------------------------------------------- verdicts that schedule nothing

    static Stream<Arguments> terminalVerdicts() {
        return Stream.of(
                Arguments.of(PERMANENT_RECIPIENT, new Ack(Ack.BOUNCED_PERMANENT)),
                Arguments.of(CONTENT_POLICY, new DeadLetter(DeadLetter.MANUAL_REVIEW, CONTENT_POLICY)),
                Arguments.of(POISON, new DeadLetter(DeadLetter.POISON, POISON)),
                Arguments.of(UNKNOWN, new DeadLetter(DeadLetter.UNMAPPED_ERROR, UNKNOWN)));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("terminalVerdicts")
    void classesThatAreNeverRetried(FailureClass c, RecoveryAction expected) {
        assertThat(decide(failure(c), AttemptHistory.empty(), null)).isEqualTo(expected);
        // whatever came before, and even with the window over: nothing is scheduled, so the verdict stands
        assertThat(decide(failure(c), history(TRANSIENT, 3, true), NOW.minusSeconds(1))).isEqualTo(expected);
    }

    @Test
    void poisonFromTheParserAndInternalFromOurCode() {
        Failure poison = Failure.poison("not_json", "Unexpected character ('<' (code 60))");
        assertThat(poison.failureClass()).isEqualTo(POISON);
        assertThat(poison.code()).isEqualTo("not_json");
        assertThat(poison.provider()).isNull();
        assertThat(decide(poison, AttemptHistory.empty(), null)).isEqualTo(new DeadLetter("poison", POISON));

        Failure npe = Failure.internal(new NullPointerException("x".repeat(3000)));
        assertThat(npe.failureClass()).isEqualTo(INTERNAL);
        assertThat(npe.errorType()).isEqualTo("java.lang.NullPointerException");
        assertThat(npe.text()).hasSize(2000);
        assertThat(Failure.internal(new IllegalStateException()).text()).isEqualTo("java.lang.IllegalStateException");
    }

    // ---------------------------------------------------------------- retrying classes, retry by retry

    static Stream<Arguments> retries() {
        List<Arguments> rows = new ArrayList<>();
        long[] backoff = {5, 15, 30, 60, 120};
        for (FailureClass c : List.of(TRANSIENT, AMBIGUOUS)) {
            for (int n = 0; n < 5; n++) {
                // full jitter: anywhere from the floor to the base delay
                rows.add(Arguments.of(c, n, FLOOR, Duration.ofSeconds(backoff[n])));
            }
        }
        Duration[] slow = {Duration.ofMinutes(15), Duration.ofHours(1), Duration.ofHours(6)};
        for (int n = 0; n < 3; n++) {
            // equal jitter: "about" the delay, never much sooner
            rows.add(Arguments.of(SOFT_BOUNCE, n, slow[n].dividedBy(2), slow[n]));
        }
        rows.add(Arguments.of(INTERNAL, 0, FLOOR, Duration.ofSeconds(10)));
        return rows.stream();
    }

    @ParameterizedTest(name = "{0} after {1} retries: RetryAfter in [{2}, {3}]")
    @MethodSource("retries")
    void eachRetryWaitsItsJitteredDelay(FailureClass c, int used, Duration min, Duration max) {
        RecoveryAction a = decide(failure(c), history(c, used, true), null);
        assertThat(a).isInstanceOf(RetryAfter.class);
        assertThat(((RetryAfter) a).delay()).isBetween(min, max);
        assertThat(a.consumesAttempt()).isTrue();
    }

    static Stream<Arguments> exhausted() {
        return Stream.of(
                Arguments.of(TRANSIENT, 5, DeadLetter.RETRIES_EXHAUSTED),
                Arguments.of(AMBIGUOUS, 5, DeadLetter.RETRIES_EXHAUSTED),
                Arguments.of(SOFT_BOUNCE, 3, DeadLetter.RETRIES_EXHAUSTED),
                Arguments.of(INTERNAL, 1, DeadLetter.HANDLER_ERROR));
    }

    @ParameterizedTest(name = "{0} after {1} retries -> DeadLetter({2})")
    @MethodSource("exhausted")
    void theFailureAfterTheLastRetryDeadLetters(FailureClass c, int budget, String reason) {
        assertThat(decide(failure(c), history(c, budget - 1, true), null)).isInstanceOf(RetryAfter.class);
        assertThat(decide(failure(c), history(c, budget, true), null)).isEqualTo(new DeadLetter(reason, c));
    }

    @Test
    void aTransientJobIsTriedSixTimesInAllThenDeadLettered() {
        // the history the executor records, fed back: 1 send + 5 retries, then the dead letter
        AttemptHistory h = AttemptHistory.empty();
        RandomGenerator random = new SplittableRandom(11);
        List<RecoveryAction> actions = new ArrayList<>();
        Instant t = NOW;
        RecoveryAction a;
        do {
            a = RecoverabilityPolicy.decide(failure(TRANSIENT), h, DEFAULTS, DEDUPING, null, t, random);
            actions.add(a);
            h = h.plus(t, TRANSIENT, a);
            t = t.plusSeconds(200);
        } while (a instanceof RetryAfter);
        assertThat(actions).hasSize(6);
        assertThat(actions.subList(0, 5)).allMatch(RetryAfter.class::isInstance);
        assertThat(actions.get(5)).isEqualTo(new DeadLetter(DeadLetter.RETRIES_EXHAUSTED, TRANSIENT));
        assertThat(h.attemptsConsumed(TRANSIENT)).isEqualTo(5);
        assertThat(h.firstSeenAt()).contains(NOW);
    }

    @Test
    void budgetsArePerClass() {
        // four soft bounces do not eat into the transient budget, and the reverse
        AttemptHistory h = history(TRANSIENT, 4, true);
        assertThat(decide(failure(SOFT_BOUNCE), h, null)).isInstanceOf(RetryAfter.class);
        assertThat(h.attemptsConsumed()).isEqualTo(4);
        assertThat(h.attemptsConsumed(SOFT_BOUNCE)).isZero();
    }

    // ---------------------------------------------------------------- throttled

    static Stream<Arguments> retryAfters() {
        Instant httpDate = ZonedDateTime.parse("Sat, 01 Mar 2025 12:01:30 GMT", DateTimeFormatter.RFC_1123_DATE_TIME)
                .toInstant();
        return Stream.of(
                Arguments.of("Retry-After: 7", Duration.ofSeconds(7), Duration.ofSeconds(7)),
                Arguments.of("Retry-After: 1", Duration.ofSeconds(1), Duration.ofSeconds(1)),
                // the provider already turned the HTTP date into a Duration measured from its clock
                Arguments.of("Retry-After as an HTTP date 90 s ahead", Duration.between(NOW, httpDate),
                        Duration.ofSeconds(90)),
                Arguments.of("Retry-After: 0 (or a date in the past)", Duration.ZERO, FLOOR),
                Arguments.of("negative Retry-After", Duration.ofSeconds(-5), FLOOR),
                Arguments.of("Retry-After of 300 ms", Duration.ofMillis(300), FLOOR));
    }

    @ParameterizedTest(name = "{0} -> Throttle({2})")
    @MethodSource("retryAfters")
    void aRetryAfterIsHonouredExactlyAboveTheFloor(String what, Duration retryAfter, Duration expected) {
        RecoveryAction a = decide(throttled(retryAfter), AttemptHistory.empty(), NOW.plus(Duration.ofHours(1)));
        assertThat(a).isEqualTo(new Throttle(expected));
        assertThat(a.consumesAttempt()).isFalse();
    }

    @Test
    void withoutRetryAfterTheThrottleDelayIsAboutThirtySeconds() {
        RecoveryAction a = decide(throttled(null), AttemptHistory.empty(), null);
        assertThat(a).isInstanceOf(Throttle.class);
        assertThat(((Throttle) a).delay()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(30));
    }

    @Test
    void throttlesConsumeNoAttempt() {
        // a job throttled 20 times still has all five transient retries
        AttemptHistory h = AttemptHistory.empty();
        for (int i = 0; i < 20; i++) {
            RecoveryAction a = decide(throttled(Duration.ofSeconds(1)), h, null);
            assertThat(a).isInstanceOf(Throttle.class);
            h = h.plus(NOW, THROTTLED, a);
        }
        assertThat(h.throttles()).isEqualTo(20);
        assertThat(h.attemptsConsumed()).isZero();
        int retries = 0;
        RecoveryAction a;
        while ((a = decide(failure(TRANSIENT), h, null)) instanceof RetryAfter) {
            retries++;
            h = h.plus(NOW, TRANSIENT, a);
        }
        assertThat(retries).isEqualTo(5);
        assertThat(a).isEqualTo(new DeadLetter(DeadLetter.RETRIES_EXHAUSTED, TRANSIENT));
    }

    @Test
    void theThrottleCapDeadLettersAsThrottled() {
        assertThat(decide(throttled(Duration.ofSeconds(1)), history(THROTTLED, 49, false), null))
                .isInstanceOf(Throttle.class);
        assertThat(decide(throttled(Duration.ofSeconds(1)), history(THROTTLED, 50, false), null))
                .isEqualTo(new DeadLetter(DeadLetter.RETRIES_EXHAUSTED, THROTTLED));
    }

    // ---------------------------------------------------------------- systemic

    @Test
    void systemicPausesTheProviderAndConsumesNothing() {
        RecoveryAction a = decide(new Failure(SYSTEMIC, "smtp", "535", "5.7.8", "535 bad creds", null, null),
                AttemptHistory.empty(), null);
        assertThat(a).isInstanceOf(Pause.class);
        Pause p = (Pause) a;
        assertThat(p.scope()).isEqualTo("provider:smtp");
        assertThat(p.delay()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(30));
        assertThat(a.consumesAttempt()).isFalse();
    }

    @Test
    void systemicNeverDeadLetters() {
        AttemptHistory h = history(SYSTEMIC, 10_000, false).plus(new AttemptHistory.Attempt(NOW, TRANSIENT, true));
        assertThat(decide(failure(SYSTEMIC), h, null)).isInstanceOf(Pause.class);
        assertThat(decide(new Failure(SYSTEMIC, null, null, null, null, null, null), h, null))
                .isInstanceOfSatisfying(Pause.class, p -> assertThat(p.scope()).isEqualTo("provider"));
    }

    @Test
    void systemicPausesFollowTheConfiguredSteps() {
        RetryPolicy p = RetryPolicy.forQueue("q", config(Map.of(
                "mailroom.policy.q.systemic.delays", "10s,1m,5m",
                "mailroom.policy.q.systemic.jitter", "none")));
        List<Duration> delays = IntStream.of(0, 1, 2, 7).mapToObj(n -> RecoverabilityPolicy.decide(failure(SYSTEMIC),
                history(SYSTEMIC, n, false), p, DEDUPING, null, NOW, new SplittableRandom(1)))
                .map(a -> ((Pause) a).delay()).toList();
        assertThat(delays).containsExactly(Duration.ofSeconds(10), Duration.ofMinutes(1), Duration.ofMinutes(5),
                Duration.ofMinutes(5));
    }

    // ---------------------------------------------------------------- the validity window

    static Stream<Arguments> windows() {
        return Stream.of(
                Arguments.of("transient, window over", failure(TRANSIENT), NOW),
                Arguments.of("transient, window over long ago", failure(TRANSIENT), NOW.minus(Duration.ofDays(1))),
                Arguments.of("transient, window ends before the shortest possible retry", failure(TRANSIENT),
                        NOW.plus(FLOOR)),
                Arguments.of("soft bounce, window ends before 15 min / 2", failure(SOFT_BOUNCE),
                        NOW.plus(Duration.ofMinutes(7))),
                Arguments.of("throttled, Retry-After beyond the window", throttled(Duration.ofSeconds(120)),
                        NOW.plusSeconds(60)),
                Arguments.of("throttled, Retry-After landing exactly at the end", throttled(Duration.ofSeconds(60)),
                        NOW.plusSeconds(60)),
                Arguments.of("throttled, window over", throttled(Duration.ofSeconds(1)), NOW),
                Arguments.of("systemic, window ends before the pause", failure(SYSTEMIC), NOW.plusSeconds(10)),
                Arguments.of("internal, window over", failure(INTERNAL), NOW.minusMillis(1)));
    }

    @ParameterizedTest(name = "{0} -> Discard(expired)")
    @MethodSource("windows")
    void nothingIsScheduledPastTheWindow(String what, Failure f, Instant expiresAt) {
        assertThat(decide(f, AttemptHistory.empty(), expiresAt)).isEqualTo(new Discard(Discard.EXPIRED));
    }

    @Test
    void theJitteredDelayDecidesWhetherTheRetryFitsTheWindow() {
        RetryPolicy exact = RetryPolicy.forQueue("q", k -> k.equals("mailroom.policy.q.transient.jitter")
                ? Optional.of("none") : Optional.empty());
        // retry 2 waits exactly 15 s: a window ending at 15 s is too short, at 15.001 s it fits
        AttemptHistory one = history(TRANSIENT, 1, true);
        RandomGenerator r = new SplittableRandom(3);
        assertThat(RecoverabilityPolicy.decide(failure(TRANSIENT), one, exact, DEDUPING, NOW.plusSeconds(15), NOW, r))
                .isEqualTo(new Discard(Discard.EXPIRED));
        assertThat(RecoverabilityPolicy.decide(failure(TRANSIENT), one, exact, DEDUPING, NOW.plusMillis(15_001), NOW, r))
                .isEqualTo(new RetryAfter(Duration.ofSeconds(15)));
    }

    @Test
    void theWindowIsCheckedBeforeTheBudget() {
        // retries are used up and the window is over: a job nobody may send is discarded, not dead-lettered
        assertThat(decide(failure(TRANSIENT), history(TRANSIENT, 5, true), NOW)).isEqualTo(new Discard("expired"));
        // window still open: the budget speaks
        assertThat(decide(failure(TRANSIENT), history(TRANSIENT, 5, true), NOW.plusSeconds(3600)))
                .isEqualTo(new DeadLetter(DeadLetter.RETRIES_EXHAUSTED, TRANSIENT));
    }

    @Test
    void aRetryInsideALongWindowIsScheduled() {
        assertThat(decide(failure(TRANSIENT), AttemptHistory.empty(), NOW.plus(Duration.ofHours(1))))
                .isInstanceOf(RetryAfter.class);
        assertThat(decide(throttled(Duration.ofSeconds(59)), AttemptHistory.empty(), NOW.plusSeconds(60)))
                .isEqualTo(new Throttle(Duration.ofSeconds(59)));
    }

    // ---------------------------------------------------------------- jitter

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void aThousandDrawsStayWithinBounds(Jitter jitter) {
        Duration d = Duration.ofSeconds(120);
        Duration low = switch (jitter) {
            case NONE -> d;
            case FULL -> FLOOR;
            case EQUAL -> d.dividedBy(2);
        };
        RandomGenerator random = new SplittableRandom(42);
        List<Duration> draws = IntStream.range(0, 1000).mapToObj(i -> jitter.apply(d, FLOOR, random)).toList();
        assertThat(draws).allSatisfy(x -> assertThat(x).isBetween(low, d));
        if (jitter != Jitter.NONE) {
            // spread over the range, not stuck at one end
            Duration span = d.minus(low);
            assertThat(draws.stream().min(Duration::compareTo).orElseThrow()).isLessThan(low.plus(span.dividedBy(10)));
            assertThat(draws.stream().max(Duration::compareTo).orElseThrow()).isGreaterThan(d.minus(span.dividedBy(10)));
            assertThat(draws.stream().distinct().count()).isGreaterThan(900);
        }
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void aDelayBelowTheFloorBecomesTheFloor(Jitter jitter) {
        assertThat(jitter.apply(Duration.ofMillis(200), FLOOR, new SplittableRandom(1))).isEqualTo(FLOOR);
        assertThat(jitter.apply(FLOOR, FLOOR, new SplittableRandom(1))).isEqualTo(FLOOR);
    }

    @Test
    void theSameSeedGivesTheSameDecisions() {
        assertThat(lifeOfAJob(1234)).isEqualTo(lifeOfAJob(1234));
        assertThat(lifeOfAJob(1234)).isNotEqualTo(lifeOfAJob(4321));
    }

    /** The delays of a job that fails transient five times, soft-bounces three times and is throttled twice. */
    private static List<RecoveryAction> lifeOfAJob(long seed) {
        RandomGenerator random = new SplittableRandom(seed);
        AttemptHistory h = AttemptHistory.empty();
        List<RecoveryAction> out = new ArrayList<>();
        for (Failure f : List.of(failure(TRANSIENT), throttled(null), failure(SOFT_BOUNCE), failure(TRANSIENT),
                failure(SOFT_BOUNCE), throttled(null), failure(TRANSIENT), failure(AMBIGUOUS), failure(SYSTEMIC))) {
            RecoveryAction a = RecoverabilityPolicy.decide(f, h, DEFAULTS, DEDUPING, null, NOW, random);
            out.add(a);
            h = h.plus(NOW, f.failureClass(), a);
        }
        return out;
    }

    // ---------------------------------------------------------------- per-queue policy

    @Test
    void aQueuesOwnBudgetApplies() {
        RetryPolicy strict = RetryPolicy.forQueue("mail.reset", config(Map.of(
                "mailroom.policy.mail.reset.transient.max-retries", "2",
                "mailroom.policy.mail.reset.transient.delays", "2s",
                "mailroom.policy.mail.reset.transient.jitter", "none")));
        RandomGenerator r = new SplittableRandom(5);
        assertThat(RecoverabilityPolicy.decide(failure(TRANSIENT), history(TRANSIENT, 1, true), strict, DEDUPING, null, NOW, r))
                .isEqualTo(new RetryAfter(Duration.ofSeconds(2)));
        assertThat(RecoverabilityPolicy.decide(failure(TRANSIENT), history(TRANSIENT, 2, true), strict, DEDUPING, null, NOW, r))
                .isEqualTo(new DeadLetter(DeadLetter.RETRIES_EXHAUSTED, TRANSIENT));
    }

    // ---------------------------------------------------------------- descriptions

    @Test
    void describeIsOneReadableLine() {
        assertThat(new Ack("bounced_permanent").describe()).isEqualTo("ack: bounced_permanent");
        assertThat(new RetryAfter(Duration.ofMillis(14_203)).describe())
                .isEqualTo("retry after 14.203s (consumes an attempt)");
        assertThat(new Throttle(Duration.ofSeconds(30)).describe()).isEqualTo("throttled: retry after 30s (no attempt consumed)");
        assertThat(new DeadLetter("retries_exhausted", THROTTLED).describe())
                .isEqualTo("dead-letter: retries_exhausted (throttled)");
        assertThat(new Discard("expired").describe()).isEqualTo("discard: expired");
        assertThat(new Pause("provider:smtp", Duration.ofMinutes(90)).describe())
                .isEqualTo("pause provider:smtp: retry after 1h30m (no attempt consumed)");
    }

    // ---------------------------------------------------------------- ambiguous: the provider's traits decide

    static Stream<Arguments> ambiguousByProvider() {
        Instant past = NOW.minusSeconds(1);
        return Stream.of(
                // provider that cannot drop a duplicate (SMTP): never an automatic resend, whatever else holds
                Arguments.of(SMTP, AttemptHistory.empty(), null, new Ack(Ack.UNKNOWN)),
                Arguments.of(SMTP, history(AMBIGUOUS, 5, true), null, new Ack(Ack.UNKNOWN)),
                Arguments.of(SMTP, AttemptHistory.empty(), past, new Ack(Ack.UNKNOWN)),
                Arguments.of(new ProviderTraits("sandbox", false), AttemptHistory.empty(), null, new Ack(Ack.UNKNOWN)),
                // provider that dedupes by idempotency key: today's retry with the same key, budget and window apply
                Arguments.of(DEDUPING, history(AMBIGUOUS, 5, true), null,
                        new DeadLetter(DeadLetter.RETRIES_EXHAUSTED, AMBIGUOUS)),
                Arguments.of(DEDUPING, AttemptHistory.empty(), past, new Discard(Discard.EXPIRED)));
    }

    @ParameterizedTest
    @MethodSource("ambiguousByProvider")
    void anAmbiguousFailureIsResentOnlyToAProviderThatDropsDuplicates(ProviderTraits provider, AttemptHistory h,
                                                                       Instant expiresAt, RecoveryAction expected) {
        assertThat(RecoverabilityPolicy.decide(failure(AMBIGUOUS), h, DEFAULTS, provider, expiresAt, NOW,
                new SplittableRandom(7))).isEqualTo(expected);
    }

    @Test
    void anAmbiguousFailureToADedupingProviderIsRetriedWithTheSameKey() {
        assertThat(RecoverabilityPolicy.decide(failure(AMBIGUOUS), AttemptHistory.empty(), DEFAULTS, DEDUPING, null,
                NOW, new SplittableRandom(7))).isInstanceOf(RetryAfter.class);
    }

    @ParameterizedTest
    @EnumSource(value = FailureClass.class, names = "AMBIGUOUS", mode = EnumSource.Mode.EXCLUDE)
    void onlyAmbiguityDependsOnTheProviderTraits(FailureClass c) {
        Failure f = new Failure(c, "smtp", "451", null, "x", null, null);
        assertThat(RecoverabilityPolicy.decide(f, AttemptHistory.empty(), DEFAULTS, SMTP, null, NOW, new SplittableRandom(7)))
                .isEqualTo(RecoverabilityPolicy.decide(f, AttemptHistory.empty(), DEFAULTS, DEDUPING, null, NOW,
                        new SplittableRandom(7)));
    }
}
