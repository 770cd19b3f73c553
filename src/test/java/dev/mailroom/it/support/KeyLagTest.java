package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link KeyLag} on made-up runs of 200 keys × 10 jobs whose keys are served by 8 consumers (key k by consumer
 * k mod 8), every 10th key waiting: what it reads for each way a run can go (a mail's neighbours lack the
 * waiting keys' on one side or the other, hence the one position, 10 or 20 ms, of slack where nothing lags).
 */
class KeyLagTest {

    private static final int KEYS = 200;
    private static final Set<Integer> WAITING = KeyedLoad.everyNth(KEYS, 10);
    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

    static Stream<Arguments> runs() {
        return Stream.of(
                Arguments.of("every mail 10 ms after the one sent before it", (ToLongFunction<int[]>) kp -> 10L * kp[1],
                        0, 50),
                Arguments.of("the machine twice as slow from the middle of the run on: every mail alike",
                        (ToLongFunction<int[]>) kp -> kp[1] < 1000 ? 10L * kp[1] : 10_000 + 20L * (kp[1] - 1000), 0, 50),
                Arguments.of("the waiting keys' mails 20 s late: they are not measured",
                        (ToLongFunction<int[]>) kp -> 10L * kp[1] + (WAITING.contains(kp[0]) ? 20_000 : 0), 0, 50),
                Arguments.of("consumer 3 held 5 s from the 4th round on: its keys' mails behind the others",
                        (ToLongFunction<int[]>) kp -> 10L * kp[1] + (kp[0] % 8 == 3 && kp[1] >= 3 * KEYS ? 5000 : 0),
                        4500, 5000),
                Arguments.of("consumer 3 held 1.2 s once in the 4th round", (ToLongFunction<int[]>) kp -> 10L * kp[1]
                        + (kp[0] % 8 == 3 && kp[1] >= 3 * KEYS + KEYS / 2 ? 1200 : 0), 1000, 1200));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void readsTheOtherKeysLagBehindTheMailsSentNextToThem(String run, ToLongFunction<int[]> millisAt, long atLeast,
                                                          long atMost) {
        List<KeyedLoad.Arrival> arrivals = new ArrayList<>();
        for (int i = 0; i < KeyedLoad.PER_KEY; i++) {
            for (int k = 0; k < KEYS; k++) {
                int position = i * KEYS + k;
                arrivals.add(new KeyedLoad.Arrival("k" + k + "." + i, k, i, position,
                        T0.plusMillis(millisAt.applyAsLong(new int[] {k, position}))));
            }
        }
        Duration p95 = KeyLag.quantile(KeyLag.lagsMillis(arrivals, WAITING, KEYS / 2), 0.95);
        assertThat(p95.toMillis()).as(run).isBetween(atLeast, atMost);
    }
}
