package dev.mailroom.platform;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Mailroom's meters (Prometheus names {@code mailroom_jobs_total}, {@code mailroom_attempts_total}).
 * Meters are not transactional, so a job outcome is counted only once its transaction has committed:
 * a rolled-back delivery that is redelivered later is not counted twice.
 */
@ApplicationScoped
public class MailroomMetrics {

    @Inject
    @Meters
    MeterRegistry registry;

    @Resource
    TransactionSynchronizationRegistry tx;

    /**
     * The counters already looked up, by name and tag values: a registry lookup builds and sorts the meter's id
     * and runs the registry's filters on every call, which the send path paid several times per job.
     */
    private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();

    /** Counts a job reaching {@code outcome} when the current transaction commits. */
    public void outcome(String queue, String outcome) {
        Counter c = counter("mailroom.jobs", "queue", queue, "outcome", outcome);
        afterCommit(c::increment);
    }

    /** Counts a provider call right away: the call happened whatever becomes of the transaction. */
    public void attempt(String queue, String provider, String status) {
        counter("mailroom.attempts", "queue", queue, "provider", provider, "status", status).increment();
    }

    /**
     * Counts an attachment that could not be fetched ({@code mailroom_attachment_fetch_failures_total}, by the failure
     * class it was given) right away: no provider was called, so it is no provider attempt.
     */
    public void attachmentFetchFailed(String queue, String failureClass) {
        counter("mailroom.attachment.fetch.failures", "queue", queue, "class", failureClass).increment();
    }

    /**
     * Counts a recipient the suppression list withheld from a send ({@code mailroom_suppression_withheld_total},
     * by the entry's reason) right away: the ledger committed it on its own before the provider call.
     */
    public void withheld(String queue, String reason) {
        counter("mailroom.suppression.withheld", "queue", queue, "reason", reason).increment();
    }

    /** Counts a job not sent at all because every recipient is suppressed ({@code mailroom_suppression_jobs_skipped_total}). */
    public void skipped(String queue) {
        counter("mailroom.suppression.jobs.skipped", "queue", queue).increment();
    }

    /** The counter {@code name} with these tags (name, value, name, value...), looked up in the registry once. */
    private Counter counter(String name, String... tags) {
        List<String> key = new ArrayList<>(tags.length + 1);
        key.add(name);
        Collections.addAll(key, tags);
        return counters.computeIfAbsent(key, k -> registry.counter(name, tags));
    }

    private void afterCommit(Runnable r) {
        if (tx == null || tx.getTransactionKey() == null) {
            r.run();
            return;
        }
        tx.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    r.run();
                }
            }
        });
    }
}
