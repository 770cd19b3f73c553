package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.recoverability.CircuitBreaker.Permit;
import dev.mailroom.recoverability.CircuitBreaker.State;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link CircuitBreaker}: its state table, driven by steps at given seconds, no sleeping. */
class CircuitBreakerTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    /** Volume 4, ratio 0.5, delay 10 s, 2 probe successes to close. */
    private static final CircuitBreaker.Settings S = new CircuitBreaker.Settings(4, 0.5, Duration.ofSeconds(10), 2);

    /** One step: at second {@code at}, "ok"/"fail" records an outcome, "acquire" asks; then the expected state (and permit). */
    record Step(int at, String what, State expected, Permit permit) {
        static Step ok(int at, State s) {
            return new Step(at, "ok", s, null);
        }

        static Step fail(int at, State s) {
            return new Step(at, "fail", s, null);
        }

        static Step acquire(int at, Permit p, State s) {
            return new Step(at, "acquire", s, p);
        }
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("below the request volume nothing opens", List.of(
                        Step.fail(0, State.CLOSED), Step.fail(1, State.CLOSED), Step.fail(2, State.CLOSED),
                        Step.acquire(3, Permit.CALL, State.CLOSED))),
                Arguments.of("volume reached at the failure ratio: opens", List.of(
                        Step.ok(0, State.CLOSED), Step.fail(1, State.CLOSED), Step.ok(2, State.CLOSED),
                        Step.fail(3, State.OPEN), Step.acquire(4, Permit.DENIED, State.OPEN))),
                Arguments.of("volume reached below the ratio: stays closed; the window rolls", List.of(
                        Step.ok(0, State.CLOSED), Step.ok(1, State.CLOSED), Step.ok(2, State.CLOSED),
                        Step.fail(3, State.CLOSED), Step.fail(4, State.OPEN))),
                Arguments.of("open until the delay has passed, then one probe at a time", List.of(
                        Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED),
                        Step.fail(0, State.OPEN), Step.acquire(9, Permit.DENIED, State.OPEN),
                        Step.acquire(10, Permit.PROBE, State.HALF_OPEN), Step.acquire(11, Permit.DENIED, State.HALF_OPEN))),
                Arguments.of("a failed probe opens it again for another delay", List.of(
                        Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED),
                        Step.fail(0, State.OPEN), Step.acquire(10, Permit.PROBE, State.HALF_OPEN),
                        Step.fail(11, State.OPEN), Step.acquire(20, Permit.DENIED, State.OPEN),
                        Step.acquire(21, Permit.PROBE, State.HALF_OPEN))),
                Arguments.of("success threshold probes in a row close it with an empty window", List.of(
                        Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED),
                        Step.fail(0, State.OPEN), Step.acquire(10, Permit.PROBE, State.HALF_OPEN),
                        Step.ok(10, State.HALF_OPEN), Step.acquire(10, Permit.PROBE, State.HALF_OPEN),
                        Step.ok(11, State.CLOSED), Step.fail(12, State.CLOSED), Step.acquire(12, Permit.CALL, State.CLOSED))),
                Arguments.of("a probe that never reports frees its slot after the delay", List.of(
                        Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED),
                        Step.fail(0, State.OPEN), Step.acquire(10, Permit.PROBE, State.HALF_OPEN),
                        Step.acquire(19, Permit.DENIED, State.HALF_OPEN), Step.acquire(20, Permit.PROBE, State.HALF_OPEN))),
                Arguments.of("the clock stepped back while open: open for one delay from the step, not until the old end", List.of(
                        Step.fail(600, State.CLOSED), Step.fail(600, State.CLOSED), Step.fail(600, State.CLOSED),
                        Step.fail(600, State.OPEN), Step.acquire(0, Permit.DENIED, State.OPEN),
                        Step.acquire(9, Permit.DENIED, State.OPEN), Step.acquire(10, Permit.PROBE, State.HALF_OPEN))),
                Arguments.of("the clock stepped back while a probe is out: its slot is free one delay after the step", List.of(
                        Step.fail(600, State.CLOSED), Step.fail(600, State.CLOSED), Step.fail(600, State.CLOSED),
                        Step.fail(600, State.OPEN), Step.acquire(610, Permit.PROBE, State.HALF_OPEN),
                        Step.acquire(0, Permit.DENIED, State.HALF_OPEN), Step.acquire(10, Permit.PROBE, State.HALF_OPEN))),
                Arguments.of("a late report while open changes nothing", List.of(
                        Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED), Step.fail(0, State.CLOSED),
                        Step.fail(0, State.OPEN), Step.ok(1, State.OPEN), Step.fail(2, State.OPEN),
                        Step.acquire(10, Permit.PROBE, State.HALF_OPEN))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void stateTable(String name, List<Step> steps) {
        CircuitBreaker b = new CircuitBreaker(S, T0);
        for (Step s : steps) {
            Instant at = T0.plusSeconds(s.at());
            switch (s.what()) {
                case "ok" -> b.record(at, false, null);
                case "fail" -> b.record(at, true, "connection refused");
                default -> assertThat(b.acquire(at)).as("permit at %ds", s.at()).isEqualTo(s.permit());
            }
            assertThat(b.state()).as("%s at %ds", s.what(), s.at()).isEqualTo(s.expected());
        }
    }

    @Test
    void transitionsCarryTheirTimeAndLastFailure() {
        CircuitBreaker b = new CircuitBreaker(new CircuitBreaker.Settings(1, 1.0, Duration.ofSeconds(5), 1), T0);
        assertThat(b.record(T0.plusSeconds(1), true, "421 down")).contains(
                new CircuitBreaker.Transition(State.CLOSED, State.OPEN, T0.plusSeconds(1), "421 down"));
        assertThat(b.nextChance(T0.plusSeconds(2))).isEqualTo(T0.plusSeconds(6));
        // the half-open door opens at the end of the delay, whenever somebody looks
        assertThat(b.advance(T0.plusSeconds(9))).contains(
                new CircuitBreaker.Transition(State.OPEN, State.HALF_OPEN, T0.plusSeconds(6), "421 down"));
        assertThat(b.acquire(T0.plusSeconds(9))).isEqualTo(Permit.PROBE);
        assertThat(b.nextChance(T0.plusSeconds(9))).isEqualTo(T0.plusSeconds(14));
        assertThat(b.record(T0.plusSeconds(10), false, null)).contains(
                new CircuitBreaker.Transition(State.HALF_OPEN, State.CLOSED, T0.plusSeconds(10), "421 down"));
        assertThat(b.lastFailureAt()).isEqualTo(T0.plusSeconds(1));
    }

    @Test
    void settingsFromConfigProviderKeyThenSharedKeyThenDefault() {
        Map<String, String> cfg = Map.of("mailroom.breaker.relay-a.delay", "2s", "mailroom.breaker.request-volume", "8");
        CircuitBreaker.Settings a = CircuitBreaker.Settings.forProvider("relay-a", k -> Optional.ofNullable(cfg.get(k)));
        assertThat(a).isEqualTo(new CircuitBreaker.Settings(8, 0.5, Duration.ofSeconds(2), 1));
        CircuitBreaker.Settings b = CircuitBreaker.Settings.forProvider("relay-b", k -> Optional.ofNullable(cfg.get(k)));
        assertThat(b.delay()).isEqualTo(CircuitBreaker.Settings.DEFAULTS.delay());
        assertThatThrownBy(() -> CircuitBreaker.Settings.forProvider("x",
                k -> k.equals("mailroom.breaker.x.failure-ratio") ? Optional.of("2") : Optional.empty()))
                .hasMessage("mailroom.breaker.x.failure-ratio='2' is refused: expected a share above 0 and at most 1, such as 0.5");
    }
}
