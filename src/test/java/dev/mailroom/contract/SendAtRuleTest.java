package dev.mailroom.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link SendAtRule}: the door's table for a send time. */
class SendAtRuleTest {

    private static final Instant NOW = Instant.parse("2026-12-05T01:00:00Z");
    private static final Duration P30D = Duration.ofDays(30);

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("no send_at", null, P30D, true),
                Arguments.of("in the past: sends now", NOW.minusSeconds(3600), P30D, true),
                Arguments.of("now", NOW, P30D, true),
                Arguments.of("30 s ahead", NOW.plusSeconds(30), P30D, true),
                Arguments.of("exactly at the horizon", NOW.plus(P30D), P30D, true),
                Arguments.of("a second past the horizon", NOW.plus(P30D).plusSeconds(1), P30D, false),
                Arguments.of("a year ahead", NOW.plus(Duration.ofDays(365)), P30D, false),
                Arguments.of("a shorter horizon", NOW.plusSeconds(3601), Duration.ofHours(1), false),
                Arguments.of("within a shorter horizon", NOW.plusSeconds(3599), Duration.ofHours(1), true));
    }

    @ParameterizedTest(name = "{0}: allowed={3}")
    @MethodSource("rows")
    void aSendTimeBeyondTheHorizonIsRefusedAndAnyOtherAllowed(String row, Instant sendAt, Duration horizon,
                                                             boolean allowed) {
        SendAtRule.Decision d = SendAtRule.decide(sendAt, horizon, NOW);
        if (allowed) {
            assertThat(d).isInstanceOf(SendAtRule.Allowed.class);
        } else {
            assertThat(d).isInstanceOfSatisfying(SendAtRule.Refused.class, r -> {
                assertThat(r.reason()).isEqualTo(RejectReason.send_at_beyond_horizon);
                assertThat(r.violation()).startsWith("/send_at: " + sendAt + " is further ahead than")
                        .contains("mailroom.send-at.horizon").contains(horizon.toString());
            });
        }
    }
}
