package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.mailroom.recoverability.AimdRateLimiter.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** AIMD on a fake clock: nothing here sleeps. */
class AimdRateLimiterTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;

    private final AtomicLong clock = new AtomicLong(5 * SECOND);

    private AimdRateLimiter limiter(double initial, double min, double max, double increase, Duration cooldown) {
        return new AimdRateLimiter(new Settings(initial, min, max, increase, 0.5, cooldown), clock::get);
    }

    private void advance(long nanos) {
        clock.addAndGet(nanos);
    }

    @Test
    void reservationsAreSpacedAtTheRate() {
        AimdRateLimiter l = limiter(10, 1, 10, 1, Duration.ZERO);
        List<Duration> waits = List.of(l.reserve(), l.reserve(), l.reserve(), l.reserve());
        assertThat(waits).containsExactly(Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(200),
                Duration.ofMillis(300));
        // time passes: the slot that was 400 ms away is now 150 ms away
        advance(250 * MS);
        assertThat(l.reserve()).isEqualTo(Duration.ofMillis(150));
        // after an idle second a permit is there at once, but idle time is not banked as a burst
        advance(2 * SECOND);
        assertThat(l.reserve()).isZero();
        assertThat(l.reserve()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aThrottleHalvesTheRateDownToTheMinimum() {
        AimdRateLimiter l = limiter(20, 3, 20, 1, Duration.ZERO);
        List<Double> rates = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            l.onThrottle();
            rates.add(l.rate());
        }
        assertThat(rates).containsExactly(10.0, 5.0, 3.0, 3.0, 3.0);
        // and the spacing follows: 3/s is a slot every 334 ms
        l.reserve();
        assertThat(l.reserve()).isEqualTo(Duration.ofNanos((long) Math.ceil(1e9 / 3)));
    }

    @Test
    void throttlesInOneCooldownAreOneDecrease() {
        AimdRateLimiter l = limiter(16, 1, 16, 1, Duration.ofSeconds(1));
        for (int i = 0; i < 20; i++) {
            l.onThrottle(); // twenty consumers' calls in flight, all throttled at once
        }
        assertThat(l.rate()).isEqualTo(8.0);
        advance(999 * MS);
        l.onThrottle();
        assertThat(l.rate()).isEqualTo(8.0);
        advance(1 * MS);
        l.onThrottle();
        assertThat(l.rate()).isEqualTo(4.0);
    }

    @Test
    void recoveryIsSlowAndAdditive() {
        AimdRateLimiter l = limiter(20, 1, 20, 0.5, Duration.ZERO);
        l.onThrottle();
        assertThat(l.rate()).isEqualTo(10.0);
        // successes every 100 ms for 4 s: +0.5/s -> +2
        for (int i = 0; i < 40; i++) {
            advance(100 * MS);
            l.onSuccess();
        }
        assertThat(l.rate()).isCloseTo(12.0, within(1e-9));
        // many consumers succeeding at the same instant add nothing more
        for (int i = 0; i < 100; i++) {
            l.onSuccess();
        }
        assertThat(l.rate()).isCloseTo(12.0, within(1e-9));
    }

    @Test
    void anIdleHourIsNotAnHourOfSuccess() {
        AimdRateLimiter l = limiter(20, 1, 20, 0.5, Duration.ZERO);
        l.onThrottle();
        advance(3600 * SECOND);
        l.onSuccess();
        assertThat(l.rate()).isCloseTo(10.5, within(1e-9));
    }

    @Test
    void recoveryStopsAtTheMaximum() {
        AimdRateLimiter l = limiter(5, 1, 6, 2, Duration.ZERO);
        for (int i = 0; i < 100; i++) {
            advance(SECOND);
            l.onSuccess();
        }
        assertThat(l.rate()).isEqualTo(6.0);
    }

    @Test
    void recoveryCountsFromTheLastThrottle() {
        AimdRateLimiter l = limiter(20, 1, 20, 1, Duration.ZERO);
        advance(10 * SECOND);
        l.onThrottle(); // 10/s
        advance(200 * MS);
        l.onSuccess();
        assertThat(l.rate()).isCloseTo(10.2, within(1e-9));
    }

    @Test
    void tryReserveLeavesTheSlotWhenTheWaitIsTooLong() {
        AimdRateLimiter l = limiter(2, 1, 2, 1, Duration.ZERO);
        assertThat(l.tryReserve(Duration.ZERO)).contains(Duration.ZERO);
        assertThat(l.tryReserve(Duration.ofMillis(499))).isEmpty();
        assertThat(l.tryReserve(Duration.ofMillis(500))).contains(Duration.ofMillis(500));
        assertThat(l.reserve()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void manyThreadsNeverShareASlot() throws Exception {
        // the clock stands still, so every reservation must get its own 10 ms slot: 100/s and no more
        AimdRateLimiter l = limiter(100, 1, 100, 1, Duration.ZERO);
        int threads = 16;
        int each = 250;
        ConcurrentLinkedQueue<Duration> waits = new ConcurrentLinkedQueue<>();
        runConcurrently(threads, () -> {
            for (int i = 0; i < each; i++) {
                waits.add(l.reserve());
            }
        });
        List<Duration> sorted = new ArrayList<>(waits);
        Collections.sort(sorted);
        assertThat(sorted).hasSize(threads * each);
        for (int k = 0; k < sorted.size(); k++) {
            assertThat(sorted.get(k)).isEqualTo(Duration.ofMillis(10L * k));
        }
    }

    @Test
    void concurrentFeedbackKeepsTheRateInBounds() throws Exception {
        AimdRateLimiter l = limiter(50, 2, 50, 5, Duration.ofMillis(10));
        ConcurrentLinkedQueue<Double> seen = new ConcurrentLinkedQueue<>();
        runConcurrently(12, () -> {
            for (int i = 0; i < 2000; i++) {
                advance(MS);
                switch (i % 4) {
                    case 0 -> l.onThrottle();
                    case 1 -> l.onSuccess();
                    case 2 -> assertThat(l.reserve().isNegative()).isFalse();
                    default -> seen.add(l.rate());
                }
            }
        });
        assertThat(seen).isNotEmpty().allSatisfy(r -> assertThat(r).isBetween(2.0, 50.0));
    }

    private static void runConcurrently(int threads, Runnable work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    work.run();
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS); // rethrows anything a thread threw
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "min zero           | 5 | 0   | 10 | 1  | 0.5 | 0 < min <= max",
            "max below min      | 5 | 6   | 5  | 1  | 0.5 | 0 < min <= max",
            "initial above max  | 11| 1   | 10 | 1  | 0.5 | initial rate 11.0 is not within",
            "negative increase  | 5 | 1   | 10 | -1 | 0.5 | increase per second",
            "factor of one      | 5 | 1   | 10 | 1  | 1.0 | decrease factor",
    })
    void badSettingsAreRefused(String what, double initial, double min, double max, double inc, double factor,
                               String message) {
        assertThatThrownBy(() -> new Settings(initial, min, max, inc, factor, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void settingsFromConfiguration() {
        Map<String, String> c = Map.of(
                "mailroom.rate-limit.http.max-per-second", "8",
                "mailroom.rate-limit.http.min-per-second", "0.5",
                "mailroom.rate-limit.http.decrease-cooldown", "500ms");
        Settings s = Settings.forProvider("http", k -> Optional.ofNullable(c.get(k)));
        assertThat(s).isEqualTo(new Settings(8, 0.5, 8, Settings.DEFAULTS.increasePerSecond(),
                Settings.DEFAULTS.decreaseFactor(), Duration.ofMillis(500)));
        assertThat(Settings.forProvider("smtp", k -> Optional.ofNullable(c.get(k)))).isEqualTo(Settings.DEFAULTS);
        assertThatThrownBy(() -> Settings.forProvider("http", k -> k.endsWith("decrease-factor")
                ? Optional.of("half") : Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mailroom.rate-limit.http.decrease-factor: 'half' is not a number");
    }
}
