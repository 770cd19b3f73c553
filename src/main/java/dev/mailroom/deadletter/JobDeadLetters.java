package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.List;

/**
 * The dead letters of one job, newest first, for its page to link straight to them: each lap of a job that was
 * dead-lettered, redriven and dead-lettered again is one. A message the broker dead-lettered before its job was
 * recorded has no job id; it is found by message id on the job's queue.
 */
@ApplicationScoped
public class JobDeadLetters {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /** One dead letter of the job: enough to link to it and say what it is. */
    public record Link(long id, String status, String reason, int lap, Instant failedAt) { }

    public List<Link> of(long jobId, String messageId, String queue) {
        return em.createQuery("""
                        select d.id, d.status, d.reason, d.lap, d.failedAt from DeadLetter d
                        where d.jobId = :j or (d.jobId is null and d.messageId = :m and d.sourceQueue = :q)
                        order by d.id desc""", Object[].class)
                .setParameter("j", jobId)
                .setParameter("m", messageId)
                .setParameter("q", queue)
                .setMaxResults(20)
                .getResultStream()
                .map(r -> new Link((Long) r[0], (String) r[1], (String) r[2], ((Number) r[3]).intValue(), (Instant) r[4]))
                .toList();
    }
}
