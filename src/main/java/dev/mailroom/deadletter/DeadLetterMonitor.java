package dev.mailroom.deadletter;

import dev.mailroom.platform.lease.LeasedWork;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Local;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Every {@code mailroom.deadletter.monitor-interval} (default 10 s): applies retention, checks the
 * oldest open dead letter's age, and publishes a fresh {@link DeadLetterStats.Snapshot} to the
 * metrics and the API. Time is Mailroom's clock, so tests move it instead of sleeping.
 *
 * <p>Retention: a resolved entry (replayed, discarded) is purged once its retention ends; an open
 * one is announced {@code mailroom.deadletter.retention-alert-before} (default 2 days) before, and
 * when its retention ends it becomes {@code expired}: the envelope is kept, only the payload is dropped.
 * Either way its broker copies leave the DLQ in the same transaction: retention holds on the broker too,
 * and a copy left behind would come back as a dead letter nobody can find the record of.
 *
 * <p>With several nodes, retention and the oldest-age alert run on the node holding the {@value #LEASE}
 * lease; the snapshot (reads only) is taken on every node, so each node's metrics and
 * {@code /dead-letters/stats} are current whichever node an operator or a scraper reaches. Each tick is one
 * transaction (this bean's default), its timer and lease {@link dev.mailroom.platform.lease.LeasedTimers}'.
 */
@Singleton
@LocalBean
@Local(LeasedWork.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class DeadLetterMonitor implements LeasedWork {

    /** The lease of retention and the age alerts: one node applies them at a time. */
    public static final String LEASE = "dead-letter-monitor";

    @Inject
    @ConfigProperty(name = "mailroom.deadletter.monitor-interval", defaultValue = "PT10S")
    Duration interval;
    @Inject
    @ConfigProperty(name = "mailroom.deadletter.retention-alert-before", defaultValue = "P2D")
    Duration alertBefore;
    @Inject
    @ConfigProperty(name = "mailroom.deadletter.oldest-age-limit", defaultValue = "PT24H")
    Duration oldestAgeLimit;
    @Inject
    DeadLetterStats stats;
    @Inject
    DeadLetterMetrics metrics;
    @Inject
    Event<DeadLetterNotice> notices;
    @Inject
    DeadLetterCopies copies;
    @Inject
    Clock clock;
    @Inject
    DeadLetterCounts counts;
    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /** Dead letters purged per statement (the size of an {@code in} list). */
    private static final int PURGE_BATCH = 500;
    /** Dead letters purged per pass at most (each pass is one transaction). */
    private static final int PURGE_PER_PASS = 5000;

    /** When the oldest-age alert last went out per queue: at most once per age limit. */
    private final Map<String, Instant> oldestAlerted = new HashMap<>();

    @Override
    public Schedule schedule() {
        return Schedule.of(LEASE, interval);
    }

    /** This node holds the lease: retention, the snapshot, the oldest-age alert. */
    @Override
    public void work() {
        tick(true);
    }

    /** Another node holds it: the snapshot only. */
    @Override
    public void idle() {
        tick(false);
    }

    private void tick(boolean mine) {
        Instant now = clock.instant();
        if (mine) {
            applyRetention(now);
        }
        DeadLetterStats.Snapshot snapshot = stats.snapshot(now);
        if (mine) {
            checkOldestAge(snapshot, now);
        }
        metrics.publish(snapshot);
    }

    void applyRetention(Instant now) {
        // the counts of the purge and of the expiries are applied at once, after the last dead letter's change
        // (DeadLetterCounts' one lock order)
        List<DeadLetterCounts.Change> changed = new java.util.ArrayList<>();
        purgeResolved(now, changed);
        announceExpiring(now);
        expireOpen(now, changed);
        counts.apply(changed);
        counts.dropEmpty();
    }

    /** Resolved and past retention: purged, with its events, revisions and any broker copy left behind. */
    private void purgeResolved(Instant now, List<DeadLetterCounts.Change> changed) {
        // resolved and past retention: purged (the job's timeline keeps what happened), with any broker copy
        // a discard or replay before copies were removed with it left behind
        em.createQuery("""
                        select d.consumer, d.sourceQueue, d.messageId, d.lap, d.dlqJmsMessageId from DeadLetter d
                        where d.status in ('replayed', 'discarded') and d.retentionUntil <= :now""", Object[].class)
                .setParameter("now", now).getResultStream()
                .forEach(r -> copies.remove(new DeadLetterCopies.Identity((String) r[0], (String) r[1], (String) r[2],
                        (Integer) r[3], (String) r[4])));
        // the rows purged are the rows counted out: locked as they are read (a row reopened meanwhile is not
        // read), deleted by id; at most PURGE_PER_PASS a pass, the rest at the next one
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        select id, status, source_queue, reason, failure_class, error_type, error_fingerprint,
                        consumer_version, failed_at from dead_letter
                        where status in ('replayed', 'discarded') and retention_until <= ?1
                        order by id fetch first""" + " " + PURGE_PER_PASS + " rows only for update")
                .setParameter(1, now).getResultList();
        for (int from = 0; from < rows.size(); from += PURGE_BATCH) {
            List<Object[]> batch = rows.subList(from, Math.min(rows.size(), from + PURGE_BATCH));
            List<Long> ids = batch.stream().map(r -> ((Number) r[0]).longValue()).toList();
            em.createQuery("delete from DeadLetterEvent e where e.deadLetterId in :ids").setParameter("ids", ids)
                    .executeUpdate();
            em.createQuery("delete from DeadLetterRevision r where r.deadLetterId in :ids").setParameter("ids", ids)
                    .executeUpdate();
            em.createQuery("delete from DeadLetter d where d.id in :ids").setParameter("ids", ids).executeUpdate();
            batch.forEach(r -> changed.add(new DeadLetterCounts.Change(new DeadLetterCounts.Counted((String) r[1],
                    (String) r[2], (String) r[3], (String) r[4], (String) r[5], (String) r[6], (String) r[7],
                    DeadLetterCounts.instant(r[8])), null)));
        }
    }

    /** Open and about to expire: announced once. */
    private void announceExpiring(Instant now) {
        Instant horizon = now.plus(alertBefore);
        for (DeadLetter d : em.createQuery("""
                        select d from DeadLetter d where d.status = 'open' and d.retentionUntil <= :horizon
                        and d.retentionUntil > :now and d.retentionAlertedAt is null""", DeadLetter.class)
                .setParameter("horizon", horizon).setParameter("now", now).getResultList()) {
            d.retentionAlerted(now);
            notices.fire(new DeadLetterNotice(DeadLetterNotice.Kind.RETENTION_EXPIRING, d.getSourceQueue(),
                    d.getReason(), d.getMessageId(), "dead letter " + d.getMessageId() + " (" + d.getReason()
                    + ") is still open and its retention ends at " + d.getRetentionUntil(), null, null,
                    d.getRetentionUntil(), now));
        }
    }

    /** Open and past retention: expired, envelope kept, payload dropped, broker copy removed. */
    private void expireOpen(Instant now, List<DeadLetterCounts.Change> changed) {
        for (DeadLetter d : em.createQuery(
                        "select d from DeadLetter d where d.status = 'open' and d.retentionUntil <= :now", DeadLetter.class)
                .setParameter("now", now).getResultList()) {
            em.persist(new DeadLetterEvent(d.getId(), now, d.getStatus(), DeadLetter.Status.expired.name(),
                    DeadLetterRecorder.SYSTEM, "retention ended at " + d.getRetentionUntil()
                    + " while open; envelope kept, payload dropped, broker copy removed"));
            copies.remove(DeadLetterCopies.Identity.of(d));
            DeadLetterCounts.Counted before = DeadLetterCounts.Counted.of(d);
            d.status(DeadLetter.Status.expired, now);
            d.dropPayload();
            changed.add(new DeadLetterCounts.Change(before, DeadLetterCounts.Counted.of(d)));
        }
    }

    void checkOldestAge(DeadLetterStats.Snapshot snapshot, Instant now) {
        Duration limit = oldestAgeLimit;
        Map<String, Instant> oldestPerQueue = new HashMap<>();
        Map<String, String> reasonOfOldest = new HashMap<>();
        for (DeadLetterStats.OpenGroup g : snapshot.open()) {
            Instant seen = oldestPerQueue.get(g.queue());
            if (seen == null || g.oldestFailedAt().isBefore(seen)) {
                oldestPerQueue.put(g.queue(), g.oldestFailedAt());
                reasonOfOldest.put(g.queue(), g.reason());
            }
        }
        oldestPerQueue.forEach((queue, oldest) -> {
            Duration age = Duration.between(oldest, now);
            Instant last = oldestAlerted.get(queue);
            if (age.compareTo(limit) > 0 && (last == null || Duration.between(last, now).compareTo(limit) >= 0)) {
                oldestAlerted.put(queue, now);
                notices.fire(new DeadLetterNotice(DeadLetterNotice.Kind.OLDEST_AGE_EXCEEDED, queue,
                        reasonOfOldest.get(queue), null, "the oldest open dead letter of " + queue + " is "
                        + age.toHours() + " h old (limit " + limit + ")", age, limit, null, now));
            }
        });
    }
}
