package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.alert.UnrecordedOutcomesRule.Facts;
import dev.mailroom.alert.UnrecordedOutcomesRule.Quiet;
import dev.mailroom.alert.UnrecordedOutcomesRule.Raise;
import dev.mailroom.alert.UnrecordedOutcomesRule.Resolve;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link UnrecordedOutcomesRule}, row by row: minutes are counted back from now; the limit is 10 minutes. */
class UnrecordedOutcomesRuleTest {

    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private static final Duration AFTER = Duration.ofMinutes(10);

    @ParameterizedTest(name = "{0} waiting, oldest {1} min, raised {2} min ago -> {3}")
    @CsvSource(nullValues = "-", value = {
            // waiting | oldest waited (min) | raised (min ago) | action
            "0, -,  -, quiet",     // nothing waits
            "3, 2,  -, quiet",     // an outage's records, waiting for less than the limit: the stopped line says it
            "3, 10, -, quiet",     // exactly the limit is not past it
            "3, 11, -, raise 3 for 11m",
            "1, 90, -, raise 1 for 1h30m",
            "3, 14, 3, quiet",     // raised 3 minutes ago: once is enough for now
            "5, 21, 10, raise 5 for 21m", // raised a limit ago: again, so the in-app alert does not end while it lasts
            "0, -,  3, resolve",   // everything recorded
            "2, 1,  3, resolve",   // what was overdue is recorded; the newer ones are not overdue
            "0, -, 30, resolve"})
    void decides(int waiting, Integer oldestMinutes, Integer raisedMinutesAgo, String expected) {
        Facts f = new Facts(waiting, oldestMinutes == null ? null : NOW.minus(Duration.ofMinutes(oldestMinutes)),
                raisedMinutesAgo == null ? null : NOW.minus(Duration.ofMinutes(raisedMinutesAgo)), NOW, AFTER);
        assertThat(describe(UnrecordedOutcomesRule.decide(f))).isEqualTo(expected);
    }

    private static String describe(UnrecordedOutcomesRule.Action a) {
        if (a instanceof Raise r) {
            return "raise " + r.count() + " for " + AlertConfig.text(r.oldest());
        }
        if (a instanceof Resolve) {
            return "resolve";
        }
        assertThat(a).isInstanceOf(Quiet.class);
        return "quiet";
    }
}
