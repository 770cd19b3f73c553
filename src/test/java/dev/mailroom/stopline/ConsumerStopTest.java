package dev.mailroom.stopline;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConsumerStopTest {

    @ParameterizedTest(name = "{0} under way, stopped {1} s, drain timeout {2} s -> {3}")
    @CsvSource({
            // nothing from before the stop is under way: stop them now, however long it has been
            "0, 0, 60, Now",
            "0, 90, 60, Now",
            // a delivery from before the stop runs: wait, for what is left of the drain timeout
            "1, 0, 60, Wait 60",
            "3, 45, 60, Wait 15",
            // a clock stepped back (the stop seems to lie ahead): the whole timeout is left
            "2, -30, 60, Wait 60",
            // the timeout is over: stop them anyway
            "1, 60, 60, Anyway",
            "4, 61, 60, Anyway",
    })
    void theConsumersStopWhenTheDeliveriesFromBeforeTheStopHaveEndedOrTheDrainTimeoutPassed(int underWay, int sinceStop,
            int timeout, String expected) {
        ConsumerStop.Decision d = ConsumerStop.decide(underWay, Duration.ofSeconds(sinceStop), Duration.ofSeconds(timeout));
        String actual = d instanceof ConsumerStop.Decision.Wait w ? "Wait " + w.left().toSeconds()
                + (w.underWay() == underWay ? "" : "?")
                : d instanceof ConsumerStop.Decision.Anyway a ? "Anyway" + (a.underWay() == underWay ? "" : "?")
                : "Now";
        assertThat(actual).isEqualTo(expected);
    }
}
