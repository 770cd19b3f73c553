package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BurstDetectorTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private final BurstDetector bursts = new BurstDetector(50, Duration.ofMinutes(5));

    /** The seconds (from T0) of the arrivals that reported a burst. */
    private List<Long> feed(String reason, int arrivals, Duration every) {
        List<Long> fired = new ArrayList<>();
        for (int i = 0; i < arrivals; i++) {
            Instant t = T0.plus(every.multipliedBy(i));
            if (bursts.arrival("mail.send", reason, t)) {
                fired.add(Duration.between(T0, t).toSeconds());
            }
        }
        return fired;
    }

    @Test
    void aThresholdReachedIsReportedOncePerWindowNotPerArrival() {
        // 5,000 arrivals within 50 s
        assertThat(feed("manual_review", 5000, Duration.ofMillis(10))).hasSize(1);
    }

    @Test
    void belowTheThresholdNothingIsReported() {
        assertThat(feed("manual_review", 49, Duration.ofSeconds(1))).isEmpty();
    }

    @Test
    void fiftySpreadOverMoreThanTheWindowAreNoBurst() {
        // one every 7 s: 50 arrivals span 343 s > 5 min
        assertThat(feed("manual_review", 200, Duration.ofSeconds(7))).isEmpty();
    }

    @Test
    void theWindowSlides() {
        // 30 just before a 5-minute boundary and 30 just after: a fixed window would see 30 and 30
        for (int i = 0; i < 30; i++) {
            assertThat(bursts.arrival("q", "poison", T0.plusSeconds(270 + i))).isFalse();
        }
        List<Integer> fired = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            if (bursts.arrival("q", "poison", T0.plusSeconds(300 + i))) {
                fired.add(i);
            }
        }
        assertThat(fired).containsExactly(19); // the 50th arrival
    }

    @Test
    void aBurstThatGoesOnIsReportedAgainEachWindow() {
        // one a second for 11 minutes: at the 50th arrival, then a window later, then another
        assertThat(feed("poison", 660, Duration.ofSeconds(1))).containsExactly(49L, 349L, 649L);
    }

    @Test
    void queuesAndReasonsAreCountedApart() {
        for (int i = 0; i < 49; i++) {
            bursts.arrival("mail.send", "poison", T0);
            bursts.arrival("mail.send.bulk", "poison", T0);
            bursts.arrival("mail.send", "manual_review", T0);
        }
        assertThat(bursts.arrival("mail.send", "poison", T0)).isTrue();
        assertThat(bursts.tracked()).isEqualTo(3);
    }

    @Test
    void idlePairsAreForgotten() {
        bursts.arrival("mail.send", "poison", T0);
        bursts.forgetIdle(T0.plusSeconds(299));
        assertThat(bursts.tracked()).isEqualTo(1);
        bursts.forgetIdle(T0.plusSeconds(300));
        assertThat(bursts.tracked()).isZero();
    }
}
