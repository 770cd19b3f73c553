package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.reconcile.SilenceCheck.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link SilenceCheck#judge}: one row per case, the job sent at {@code SENT}, judged at {@code SENT + age}. */
class SilenceCheckTest {

    private static final Instant SENT = Instant.parse("2030-01-01T12:00:00Z");
    private static final Duration TWO_HOURS = Duration.ofHours(2);
    private static final Duration SIX_HOURS = Duration.ofHours(6);

    static Stream<Arguments> cases() {
        return Stream.of(
                // limit, shortest limit of any provider, age at the check, verdict
                Arguments.of(TWO_HOURS, TWO_HOURS, Duration.ofHours(2),
                        new Verdict.Silent(TWO_HOURS, Duration.ofHours(2))),
                Arguments.of(TWO_HOURS, TWO_HOURS, Duration.ofDays(3),
                        new Verdict.Silent(TWO_HOURS, Duration.ofDays(3))),
                // a provider with a longer limit: due at the shortest, looked at again when its own limit passes
                Arguments.of(SIX_HOURS, TWO_HOURS, Duration.ofHours(2),
                        new Verdict.LookAgain(SENT.plus(Duration.ofHours(4)))),
                Arguments.of(SIX_HOURS, TWO_HOURS, Duration.ofHours(5).plusMinutes(59),
                        new Verdict.LookAgain(SENT.plus(Duration.ofHours(4)))),
                Arguments.of(SIX_HOURS, TWO_HOURS, Duration.ofHours(6),
                        new Verdict.Silent(SIX_HOURS, Duration.ofHours(6))),
                // a check that came early (a clock moved back): looked at again, not reported
                Arguments.of(TWO_HOURS, TWO_HOURS, Duration.ofMinutes(90), new Verdict.LookAgain(SENT)));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void judges(Duration limit, Duration shortest, Duration age, Verdict expected) {
        Verdict v = SilenceCheck.judge(SENT, limit, shortest, SENT.plus(age));
        assertThat(v).isEqualTo(expected);
        if (v instanceof Verdict.LookAgain again) {
            // due again (check at or before now - shortest) exactly when the job's own limit has passed
            assertThat(again.checkAt().plus(shortest)).isEqualTo(SENT.plus(limit));
        }
    }
}
