package dev.mailroom.job;

import dev.mailroom.platform.lease.LeasedWork;
import io.micrometer.core.instrument.MeterRegistry;
import dev.mailroom.platform.Meters;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Local;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Every {@code mailroom.jobs.retention-interval} (default 1 min), on the node holding the {@value #LEASE} lease:
 * removes finished jobs past their retention ({@link JobRetentionPolicy}), {@value #BATCH} a transaction
 * ({@link RetentionBatch}), at most {@value #BATCHES_PER_PASS} batches a pass (the rest at the next one), then the
 * claims past their window and the processed webhook calls past the general retention. Every node publishes the
 * oldest finished job's age. No transaction here: each batch is one of its own.
 *
 * <p>Metrics: {@code mailroom_jobs_retention_removed_total{kind}} (job, attempt, recipient, timeline, claim,
 * provider_event), counted once the batch committed; {@code mailroom_jobs_finished_oldest_age_seconds}.
 */
@Singleton
@LocalBean
@Local(LeasedWork.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class JobRetention implements LeasedWork {

    /** The lease of retention: one node removes at a time. */
    public static final String LEASE = "job-retention";
    /** Jobs removed per transaction at most. */
    static final int BATCH = 500;
    /** Batches per cohort and pass at most: a pass stays bounded however far behind retention is. */
    static final int BATCHES_PER_PASS = 20;

    @Inject
    JobRetentionPolicy.Settings settings;
    @Inject
    RetentionBatch batches;
    @Inject
    Clock clock;
    @Inject
    @Meters
    MeterRegistry meters;

    /** Seconds since the oldest finished job last changed (0 when there is none), as of the last tick. */
    private final AtomicReference<Double> oldestAge = new AtomicReference<>(0.0);

    @PostConstruct
    void registerMeters() {
        // every kind's counter exists from deployment at 0: increase() misses the first count of a new series
        RetentionBatch.Removed.KINDS.forEach(kind -> meters.counter("mailroom.jobs.retention.removed", "kind", kind));
        meters.gauge("mailroom.jobs.finished.oldest.age.seconds", io.micrometer.core.instrument.Tags.empty(),
                oldestAge, AtomicReference::get);
    }

    @Override
    public Schedule schedule() {
        return Schedule.of(LEASE, settings.interval());
    }

    @Override
    public void work() {
        Instant now = clock.instant();
        pass(now);
        measure(now);
    }

    /** Another node removes: this one only keeps its gauge current, whichever node a scraper reaches. */
    @Override
    public void idle() {
        measure(clock.instant());
    }

    /** One pass: every cohort's batches, then the expired claims and webhook calls; stops when the lease is lost. */
    void pass(Instant now) {
        for (JobRetentionPolicy.Cohort cohort : JobRetentionPolicy.cohorts(settings)) {
            for (int i = 0; i < BATCHES_PER_PASS; i++) {
                RetentionBatch.Removed removed = batches.jobs(settings, cohort, now, BATCH);
                if (removed.fenced()) {
                    return;
                }
                count(removed);
                if (removed.of("job") < BATCH) {
                    break;
                }
            }
        }
        for (int i = 0; i < BATCHES_PER_PASS; i++) {
            RetentionBatch.Removed removed = batches.expired(settings, now, BATCH);
            if (removed.fenced()) {
                return;
            }
            count(removed);
            if (removed.of("claim") < BATCH && removed.of("provider_event") < BATCH) {
                break;
            }
        }
    }

    private void count(RetentionBatch.Removed removed) {
        removed.rows().forEach((kind, n) -> {
            if (n > 0) {
                meters.counter("mailroom.jobs.retention.removed", "kind", kind).increment(n);
            }
        });
    }

    private void measure(Instant now) {
        Instant oldest = batches.oldestFinished();
        oldestAge.set(oldest == null ? 0.0 : Math.max(0, Duration.between(oldest, now).toMillis() / 1000.0));
    }
}
