package dev.mailroom.stopline;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class LineMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Map<String, LineState> lines = new HashMap<>();
    private final Function<String, LineState> state = q -> lines.getOrDefault(q, LineState.RUNNING);

    private double paused(String queue, String reason) {
        return registry.get("mailroom.queue.paused").tags("queue", queue, "reason", reason).gauge().value();
    }

    @Test
    void everyQueueAndReasonReadsZeroWhileTheLinesRun() {
        LineMetrics.register(registry, List.of("mail.send", "mail.send.bulk"), state);

        assertThat(registry.get("mailroom.queue.paused").gauges()).hasSize(2 * PauseReason.values().length);
        for (PauseReason r : PauseReason.values()) {
            assertThat(paused("mail.send", r.wireName())).isZero();
        }
    }

    @Test
    void aStoppedLineReadsOneForItsReasonOnlyAndZeroOnceItRunsAgain() {
        LineMetrics.register(registry, List.of("mail.send", "mail.send.bulk"), state);
        lines.put("mail.send", LineState.stopped(PauseReason.SYSTEMIC, "535 5.7.8", Instant.parse("2030-01-01T00:00:00Z")));

        assertThat(paused("mail.send", "systemic")).isEqualTo(1);
        assertThat(paused("mail.send", "database")).isZero();
        assertThat(paused("mail.send.bulk", "systemic")).isZero();

        lines.put("mail.send", LineState.RUNNING);
        assertThat(paused("mail.send", "systemic")).isZero();
    }
}
