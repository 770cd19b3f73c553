package dev.mailroom.deadletter;

import io.micrometer.core.instrument.MeterRegistry;
import dev.mailroom.platform.Meters;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Dead-letter meters (Prometheus): {@code mailroom_deadletter_arrivals_total{queue,reason}} counted
 * after each dead letter's transaction commits; from the monitor's latest snapshot, per queue and
 * reason, {@code mailroom_deadletter_open}, {@code mailroom_deadletter_oldest_age_seconds},
 * {@code mailroom_deadletter_retention_expiry_seconds}, and {@code mailroom_jobs_state{queue,state}}.
 * Every gauge reads the one published snapshot when it is scraped, and the API's
 * {@code GET /api/v1/dead-letters/stats} returns that same snapshot: the two cannot disagree.
 * {@code mailroom_deadletter_sweeps_total} counts the DLQ sweeps that finished.
 */
@ApplicationScoped
public class DeadLetterMetrics {

    @Inject
    @Meters
    MeterRegistry registry;

    /** A snapshot and the gauge values derived from it, published together. */
    private record Published(DeadLetterStats.Snapshot snapshot, Map<String, Double> values) { }

    private final AtomicReference<Published> published = new AtomicReference<>();
    private final Set<String> registered = ConcurrentHashMap.newKeySet();

    void arrived(@Observes(during = TransactionPhase.AFTER_SUCCESS) DeadLetterArrived arrived) {
        registry.counter("mailroom.deadletter.arrivals", "queue", arrived.envelope().sourceQueue(),
                "reason", arrived.envelope().reason()).increment();
    }

    /** A sweep of every DLQ has finished ({@code mailroom_deadletter_sweeps_total}). */
    void swept() {
        registry.counter("mailroom.deadletter.sweeps").increment();
    }

    /** The latest snapshot, or null before the first. */
    public DeadLetterStats.Snapshot latest() {
        Published p = published.get();
        return p == null ? null : p.snapshot();
    }

    public void publish(DeadLetterStats.Snapshot s) {
        Map<String, Double> values = new HashMap<>();
        Map<String, String[]> gauges = new HashMap<>();
        for (DeadLetterStats.OpenGroup g : s.open()) {
            String[] tags = {"queue", g.queue(), "reason", g.reason()};
            put(values, gauges, "mailroom.deadletter.open", g.open(), tags);
            put(values, gauges, "mailroom.deadletter.oldest.age.seconds", seconds(g.oldestFailedAt(), s.asOf()), tags);
            put(values, gauges, "mailroom.deadletter.retention.expiry.seconds",
                    seconds(s.asOf(), g.nearestRetention()), tags);
        }
        for (DeadLetterStats.JobStateCount c : s.jobStates()) {
            put(values, gauges, "mailroom.jobs.state", c.jobs(), "queue", c.queue(), "state", c.state());
        }
        published.set(new Published(s, Map.copyOf(values)));
        // a gauge once registered stays, and reads 0 when its group is gone from the snapshot
        gauges.forEach((key, nameAndTags) -> {
            if (registered.add(key)) {
                String[] tags = java.util.Arrays.copyOfRange(nameAndTags, 1, nameAndTags.length);
                // registry.gauge(...), not Gauge.builder(...).register(...): WildFly 39's per-deployment
                // registry forwards only the former to the registry Prometheus reads
                registry.gauge(nameAndTags[0], Tags.of(tags), this, m -> m.value(key));
            }
        });
    }

    private double value(String key) {
        Published p = published.get();
        return p == null ? 0 : p.values().getOrDefault(key, 0.0);
    }

    private static void put(Map<String, Double> values, Map<String, String[]> gauges, String name, double value,
                            String... tags) {
        String key = name + "|" + String.join("|", tags);
        values.put(key, value);
        String[] nameAndTags = new String[tags.length + 1];
        nameAndTags[0] = name;
        System.arraycopy(tags, 0, nameAndTags, 1, tags.length);
        gauges.put(key, nameAndTags);
    }

    static double seconds(Instant from, Instant to) {
        return from == null || to == null ? 0 : Duration.between(from, to).toMillis() / 1000.0;
    }
}
