package dev.mailroom.stopline;

import dev.mailroom.platform.MailroomConfig;
import io.micrometer.core.instrument.MeterRegistry;
import dev.mailroom.platform.Meters;
import io.micrometer.core.instrument.Tags;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.List;
import java.util.function.Function;

/**
 * Whether each send queue's line is stopped on this node, and why, as a gauge for Prometheus:
 * {@code mailroom_queue_paused{queue="mail.send",reason="systemic"}} is 1 while the line is stopped for that reason,
 * 0 otherwise; one series per queue and reason, registered at deployment, so an alerting rule sees 0 before the
 * first stop rather than nothing.
 */
@Singleton
@Startup
public class LineMetrics {

    @Inject
    @Meters
    MeterRegistry registry;
    @Inject
    MailroomConfig config;
    @Inject
    StopLine lines;

    /** Held here: a gauge keeps only a weak reference to the object it reads. */
    private Function<String, LineState> state;

    @PostConstruct
    void register() {
        state = lines::state;
        register(registry, config.queues(), state);
    }

    /** The caller keeps {@code state} reachable for as long as the gauges are read. */
    static void register(MeterRegistry registry, List<String> queues, Function<String, LineState> state) {
        for (String queue : queues) {
            for (PauseReason reason : PauseReason.values()) {
                // registry.gauge(...), not Gauge.builder(...).register(...): WildFly 39's per-deployment registry
                // forwards only the former to the registry Prometheus reads
                registry.gauge("mailroom.queue.paused", Tags.of("queue", queue, "reason", reason.wireName()), state,
                        s -> s.apply(queue).reason() == reason ? 1 : 0);
            }
        }
    }
}
