package dev.mailroom.stopline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.platform.MovableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link DeadLetterRateWindow}: MassTransit's kill switch defaults, table rows, and time moved by a clock. */
class DeadLetterRateWindowTest {

    private static final Instant T0 = Instant.parse("2030-01-01T12:00:00Z");

    /**
     * @param deliveries  deliveries within the window before the dead letters
     * @param reason      the reason of each dead letter
     * @param deadLetters how many dead letters of that reason arrive
     * @param trips       whether the window trips
     */
    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("100 deliveries, 11 handler_error (11 %) trips", 100, "handler_error", 11, true),
                Arguments.of("100 deliveries, 10 handler_error (10 %, not above) does not trip", 100, "handler_error", 10, false),
                Arguments.of("99 deliveries (below activation), 50 handler_error does not trip", 99, "handler_error", 50, false),
                Arguments.of("100 deliveries, 100 poison (single bad jobs) does not trip", 100, "poison", 100, false),
                Arguments.of("100 deliveries, 100 manual_review does not trip", 100, "manual_review", 100, false),
                Arguments.of("100 deliveries, 11 retries_exhausted trips", 100, "retries_exhausted", 11, true),
                Arguments.of("100 deliveries, 11 unmapped_error trips", 100, "unmapped_error", 11, true),
                Arguments.of("100 deliveries, 11 redelivery_limit trips", 100, "redelivery_limit", 11, true),
                Arguments.of("1000 deliveries, 100 handler_error (10 %) does not trip", 1000, "handler_error", 100, false),
                Arguments.of("1000 deliveries, 101 handler_error trips", 1000, "handler_error", 101, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void tripsOnlyAboveTheThresholdAfterActivation(String name, int deliveries, String reason, int deadLetters,
                                                   boolean trips) {
        DeadLetterRateWindow w = new DeadLetterRateWindow(DeadLetterRateWindow.Settings.defaults());
        for (int i = 0; i < deliveries; i++) {
            w.delivery(T0.plusMillis(i));
        }
        boolean tripped = false;
        for (int i = 0; i < deadLetters && !tripped; i++) {
            tripped = w.deadLetter(reason, T0.plusSeconds(1)).isPresent();
        }
        assertThat(tripped).isEqualTo(trips);
    }

    @Test
    void deliveriesOlderThanTheWindowNoLongerCount() {
        MovableClock clock = new MovableClock(Clock.fixed(T0, ZoneOffset.UTC));
        DeadLetterRateWindow w = new DeadLetterRateWindow(DeadLetterRateWindow.Settings.defaults());
        for (int i = 0; i < 100; i++) {
            w.delivery(clock.instant());
        }
        clock.offset(Duration.ofSeconds(61));
        assertThat(w.deadLetter("handler_error", clock.instant())).as("activation lost with the old deliveries").isEmpty();
        assertThat(w.deliveries()).isZero();
    }

    @Test
    void deadLettersOlderThanTheWindowNoLongerCount() {
        MovableClock clock = new MovableClock(Clock.fixed(T0, ZoneOffset.UTC));
        DeadLetterRateWindow w = new DeadLetterRateWindow(DeadLetterRateWindow.Settings.defaults());
        for (int i = 0; i < 10; i++) {
            w.deadLetter("handler_error", clock.instant());
        }
        clock.offset(Duration.ofSeconds(30));
        for (int i = 0; i < 100; i++) {
            w.delivery(clock.instant());
        }
        clock.offset(Duration.ofSeconds(61)); // the first ten are now out of the window, the deliveries are not
        assertThat(w.deadLetter("handler_error", clock.instant())).as("1 of 100").isEmpty();
        Optional<DeadLetterRateWindow.Trip> trip = Optional.empty();
        for (int i = 0; i < 10 && trip.isEmpty(); i++) {
            trip = w.deadLetter("handler_error", clock.instant());
        }
        assertThat(trip).isPresent();
        assertThat(trip.get().deadLetters()).isEqualTo(11);
        assertThat(trip.get().deliveries()).isEqualTo(100);
    }

    @Test
    void aTripEmptiesTheWindow() {
        DeadLetterRateWindow w = new DeadLetterRateWindow(new DeadLetterRateWindow.Settings(10, 0.5,
                Duration.ofMinutes(1), Duration.ofSeconds(60), Set.of("handler_error")));
        for (int i = 0; i < 10; i++) {
            w.delivery(T0);
        }
        Optional<DeadLetterRateWindow.Trip> trip = Optional.empty();
        int n = 0;
        while (trip.isEmpty()) {
            trip = w.deadLetter("handler_error", T0);
            n++;
        }
        assertThat(n).isEqualTo(6);
        assertThat(trip.get().describe(w.settings())).contains("6 of 10 deliveries").contains("60.0 %");
        assertThat(w.deliveries()).isZero();
        assertThat(w.deadLetter("handler_error", T0)).as("counting starts afresh").isEmpty();
    }

    @Test
    void theReasonsAreConfigurable() {
        DeadLetterRateWindow w = new DeadLetterRateWindow(new DeadLetterRateWindow.Settings(1, 0.1,
                Duration.ofMinutes(1), Duration.ZERO, Set.of("poison")));
        w.delivery(T0);
        assertThat(w.deadLetter("handler_error", T0)).isEmpty();
        assertThat(w.deadLetter("poison", T0)).isPresent();
    }

    @Test
    void settingsAreChecked() {
        assertThatThrownBy(() -> new DeadLetterRateWindow.Settings(0, 0.1, Duration.ofMinutes(1), Duration.ZERO, Set.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeadLetterRateWindow.Settings(1, 1.5, Duration.ofMinutes(1), Duration.ZERO, Set.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeadLetterRateWindow.Settings(1, 0.1, Duration.ZERO, Duration.ZERO, Set.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
