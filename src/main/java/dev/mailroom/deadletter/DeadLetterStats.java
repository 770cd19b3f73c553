package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.List;

/**
 * The figures an operator asks first — how many dead letters are open, per queue and reason, since
 * when, and how close the nearest one is to its retention expiry — and jobs per state. One query each,
 * read by the metrics and the API alike, so a scrape and an API call tell the same story.
 */
@ApplicationScoped
public class DeadLetterStats {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /** Open dead letters of one (queue, reason). */
    public record OpenGroup(String queue, String reason, long open, Instant oldestFailedAt, Instant nearestRetention) { }

    /** Jobs of one (queue, state). */
    public record JobStateCount(String queue, String state, long jobs) { }

    /** Every figure at one instant. */
    public record Snapshot(Instant asOf, List<OpenGroup> open, List<JobStateCount> jobStates) { }

    /** Open dead letters of one queue now: how many, and when the oldest of them failed (null if none). */
    public record QueueOpen(String queue, long open, Instant oldestFailedAt) { }

    public QueueOpen open(String queue) {
        Object[] r = em.createQuery("""
                        select count(d), min(d.failedAt) from DeadLetter d
                        where d.status = 'open' and d.sourceQueue = :queue""", Object[].class)
                .setParameter("queue", queue)
                .getSingleResult();
        return new QueueOpen(queue, ((Number) r[0]).longValue(), (Instant) r[1]);
    }

    public Snapshot snapshot(Instant asOf) {
        List<OpenGroup> open = em.createQuery("""
                        select d.sourceQueue, d.reason, count(d), min(d.failedAt), min(d.retentionUntil)
                        from DeadLetter d where d.status = 'open' group by d.sourceQueue, d.reason
                        order by d.sourceQueue, d.reason""", Object[].class)
                .getResultStream()
                .map(r -> new OpenGroup((String) r[0], (String) r[1], ((Number) r[2]).longValue(), (Instant) r[3],
                        (Instant) r[4]))
                .toList();
        List<JobStateCount> states = em.createQuery("""
                        select j.queue, j.state, count(j) from MailJob j group by j.queue, j.state
                        order by j.queue, j.state""", Object[].class)
                .getResultStream()
                .map(r -> new JobStateCount((String) r[0], String.valueOf(r[1]), ((Number) r[2]).longValue()))
                .toList();
        return new Snapshot(asOf, open, states);
    }
}
