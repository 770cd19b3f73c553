package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.provider.ProviderResponse.Status;
import dev.mailroom.recoverability.ProviderRouting.AfterFailure;
import dev.mailroom.recoverability.ProviderRouting.Candidate;
import dev.mailroom.recoverability.ProviderRouting.Route;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link ProviderRouting}: the breaker-open and failover rows. */
class ProviderRoutingTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration FLOOR = Duration.ofMillis(500);
    private static final Duration WAIT = Duration.ofSeconds(7);

    private static Candidate up(String name) {
        return new Candidate(name, true, NOW);
    }

    private static Candidate open(String name, int secondsLeft) {
        return new Candidate(name, false, NOW.plusSeconds(secondsLeft));
    }

    static Stream<Arguments> chooseRows() {
        return Stream.of(
                Arguments.of("head of the chain closed: it", List.of(up("a"), up("b")), Set.of(), "call a"),
                Arguments.of("head open: the next one", List.of(open("a", 5), up("b")), Set.of(), "call b"),
                Arguments.of("refused by the head: the next one even if the head is closed", List.of(up("a"), up("b")),
                        Set.of("a"), "call b"),
                Arguments.of("every provider open: wait for the earliest", List.of(open("a", 9), open("b", 4)), Set.of(),
                        "wait 4s"),
                Arguments.of("single provider open: wait for it", List.of(open("a", 30)), Set.of(), "wait 30s"),
                Arguments.of("open breaker about to half-open: wait at least the floor", List.of(open("a", 0)), Set.of(),
                        "wait 0.5s"),
                Arguments.of("refused by every provider: start over at the head", List.of(up("a"), up("b")),
                        Set.of("a", "b"), "call a"),
                Arguments.of("refused by the only provider that is up, the other open: wait for the other",
                        List.of(up("a"), open("b", 3)), Set.of("a"), "wait 3s"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chooseRows")
    void choose(String name, List<Candidate> chain, Set<String> refused, String expected) {
        Route r = ProviderRouting.choose(chain, refused, NOW, FLOOR, Duration.ZERO, new SplittableRandom(1));
        String got = r instanceof Route.Call c ? "call " + c.provider()
                : "wait " + ((Route.Wait) r).delay().toString().substring(2).toLowerCase();
        assertThat(got).isEqualTo(expected);
    }

    @Test
    void aWaitIsSpreadByJitterWithinTheSpread() {
        for (int seed = 0; seed < 50; seed++) {
            Route.Wait w = (Route.Wait) ProviderRouting.choose(List.of(open("a", 4)), Set.of(), NOW, FLOOR,
                    Duration.ofSeconds(2), new SplittableRandom(seed));
            assertThat(w.delay()).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(6));
        }
    }

    static Stream<Arguments> afterFailureRows() {
        Optional<String> next = Optional.of("b");
        Optional<String> none = Optional.empty();
        AfterFailure failOver = new AfterFailure.FailOver("b");
        AfterFailure waitForBreaker = new AfterFailure.WaitForBreaker(WAIT);
        AfterFailure decide = new AfterFailure.Decide();
        return Stream.of(
                // status, class, passed point of no return, next, breaker open after it, expected
                Arguments.of("connection refused, next up: fail over", Status.NOT_CONNECTED, FailureClass.TRANSIENT, false, next, false, failOver),
                Arguments.of("connection refused, breaker open, next up: fail over", Status.NOT_CONNECTED, FailureClass.TRANSIENT, false, next, true, failOver),
                Arguments.of("535 (systemic) before the point of no return, next up: fail over", Status.REJECTED, FailureClass.SYSTEMIC, false, next, false, failOver),
                Arguments.of("401 (systemic) of an API, next up: fail over", Status.REJECTED, FailureClass.SYSTEMIC, false, next, true, failOver),
                Arguments.of("timeout after the final '.': never fail over", Status.AMBIGUOUS, FailureClass.AMBIGUOUS, true, next, true, decide),
                Arguments.of("ambiguous without the checkpoint flag: never fail over", Status.AMBIGUOUS, FailureClass.AMBIGUOUS, false, next, true, decide),
                Arguments.of("systemic after the point of no return: the policy's", Status.REJECTED, FailureClass.SYSTEMIC, true, next, false, decide),
                Arguments.of("421 transient from the provider, next up: not a refusal of the provider itself", Status.REJECTED, FailureClass.TRANSIENT, false, next, false, decide),
                Arguments.of("connection refused, no next, breaker open: wait for it, no retry used", Status.NOT_CONNECTED, FailureClass.TRANSIENT, false, none, true, waitForBreaker),
                Arguments.of("421 transient, breaker open: wait for it", Status.REJECTED, FailureClass.TRANSIENT, false, none, true, waitForBreaker),
                Arguments.of("connection refused, breaker still closed: the policy's retry", Status.NOT_CONNECTED, FailureClass.TRANSIENT, false, none, false, decide),
                Arguments.of("systemic, no next, breaker open: the policy's pause (stops the line)", Status.REJECTED, FailureClass.SYSTEMIC, false, none, true, decide),
                Arguments.of("a bad recipient with the breaker open: the policy's bounce", Status.REJECTED, FailureClass.PERMANENT_RECIPIENT, false, none, true, decide),
                Arguments.of("throttled with the breaker open: the policy's throttle", Status.REJECTED, FailureClass.THROTTLED, false, none, true, decide),
                Arguments.of("content refused, next up: never fail over (the content, not the provider)", Status.REJECTED, FailureClass.CONTENT_POLICY, false, next, false, decide));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("afterFailureRows")
    void afterFailure(String name, Status status, FailureClass c, boolean passed, Optional<String> next, boolean open,
                      AfterFailure expected) {
        assertThat(ProviderRouting.afterFailure(status, c, passed, next, open, WAIT)).isEqualTo(expected);
    }

    static Stream<Arguments> pinRows() {
        return Stream.of(
                Arguments.of(Status.NOT_CONNECTED, FailureClass.TRANSIENT, false, false),
                Arguments.of(Status.REJECTED, FailureClass.TRANSIENT, false, false),
                Arguments.of(Status.REJECTED, FailureClass.TRANSIENT, true, true),
                Arguments.of(Status.AMBIGUOUS, FailureClass.AMBIGUOUS, true, true),
                Arguments.of(Status.AMBIGUOUS, FailureClass.AMBIGUOUS, false, true),
                Arguments.of(Status.REJECTED, FailureClass.SOFT_BOUNCE, true, true));
    }

    @ParameterizedTest(name = "{0} {1} passed={2}: stays with its provider {3}")
    @MethodSource("pinRows")
    void aJobThatMayHaveReachedItsProviderStaysWithIt(Status status, FailureClass c, boolean passed, boolean stays) {
        assertThat(ProviderRouting.staysWithProvider(status, c, passed)).isEqualTo(stays);
    }

    static Stream<Arguments> breakerCounts() {
        return Stream.of(
                Arguments.of(Status.NOT_CONNECTED, FailureClass.TRANSIENT, true),
                Arguments.of(Status.AMBIGUOUS, FailureClass.AMBIGUOUS, true),
                Arguments.of(Status.REJECTED, FailureClass.TRANSIENT, true),
                Arguments.of(Status.REJECTED, FailureClass.SYSTEMIC, true),
                Arguments.of(Status.REJECTED, FailureClass.PERMANENT_RECIPIENT, false),
                Arguments.of(Status.REJECTED, FailureClass.CONTENT_POLICY, false),
                Arguments.of(Status.REJECTED, FailureClass.SOFT_BOUNCE, false),
                Arguments.of(Status.REJECTED, FailureClass.THROTTLED, false),
                Arguments.of(Status.REJECTED, FailureClass.INTERNAL, false),
                Arguments.of(Status.REJECTED, FailureClass.UNKNOWN, false));
    }

    @ParameterizedTest(name = "{0} {1} counts: {2}")
    @MethodSource("breakerCounts")
    void whatCountsAgainstTheBreaker(Status status, FailureClass c, boolean counts) {
        assertThat(ProviderRouting.countsAgainstBreaker(status, c)).isEqualTo(counts);
    }
}
