package dev.mailroom.deadletter;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Dead-letter meters (Prometheus): {@code mailroom_deadletter_arrivals_total{queue,reason}} counted
 * after each dead letter's transaction commits; from the monitor's latest snapshot, per queue and
 * reason, {@code mailroom_deadletter_open}, {@code mailroom_deadletter_oldest_age_seconds},
 * {@code mailroom_deadletter_retention_expiry_seconds}, and {@code mailroom_jobs_state{queue,state}}.
 * The API's {@code GET /api/v1/dead-letters/stats} reads the same snapshot.
 */
@ApplicationScoped
public class DeadLetterMetrics {

    @Inject
    MeterRegistry registry;

    private final AtomicReference<DeadLetterStats.Snapshot> latest = new AtomicReference<>();
    private final Map<String, Value> values = new ConcurrentHashMap<>();

    /** One gauge's current value, written by the monitor and read by scrapes. */
    private static final class Value {
        volatile double v;
    }

    void arrived(@Observes(during = TransactionPhase.AFTER_SUCCESS) DeadLetterArrived arrived) {
        registry.counter("mailroom.deadletter.arrivals", "queue", arrived.envelope().sourceQueue(),
                "reason", arrived.envelope().reason()).increment();
    }

    /** The latest snapshot, or null before the first. */
    public DeadLetterStats.Snapshot latest() {
        return latest.get();
    }

    public void publish(DeadLetterStats.Snapshot s) {
        Set<String> seen = new HashSet<>();
        for (DeadLetterStats.OpenGroup g : s.open()) {
            set(seen, "mailroom.deadletter.open", g.open(), "queue", g.queue(), "reason", g.reason());
            set(seen, "mailroom.deadletter.oldest.age.seconds", seconds(g.oldestFailedAt(), s.asOf()),
                    "queue", g.queue(), "reason", g.reason());
            set(seen, "mailroom.deadletter.retention.expiry.seconds", seconds(s.asOf(), g.nearestRetention()),
                    "queue", g.queue(), "reason", g.reason());
        }
        for (DeadLetterStats.JobStateCount c : s.jobStates()) {
            set(seen, "mailroom.jobs.state", c.jobs(), "queue", c.queue(), "state", c.state());
        }
        // a group with nothing open any more reads 0, not its last value
        values.forEach((key, holder) -> {
            if (!seen.contains(key)) {
                holder.v = 0;
            }
        });
        latest.set(s);
    }

    static double seconds(java.time.Instant from, java.time.Instant to) {
        return from == null || to == null ? 0 : Duration.between(from, to).toMillis() / 1000.0;
    }

    private void set(Set<String> seen, String name, double value, String... tags) {
        String key = name + String.join("|", tags);
        seen.add(key);
        values.computeIfAbsent(key, k -> {
            Value holder = new Value();
            // registry.gauge(...), not Gauge.builder(...).register(...): WildFly 39's per-deployment
            // registry forwards only the former to the registry Prometheus reads
            registry.gauge(name, Tags.of(tags), holder, h -> h.v);
            return holder;
        }).v = value;
    }
}
