package dev.mailroom.bench.naive;

import java.sql.Timestamp;
import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * The guarded bean's two transactions of its own, each committed before the method returns ({@code REQUIRES_NEW}:
 * the delivery's transaction is suspended meanwhile). Plain SQL, the fewest statements that keep the rule.
 */
@ApplicationScoped
public class GuardedLedger {

    @PersistenceContext(unitName = "naive")
    EntityManager em;

    /**
     * Claims the job and records an attempt, durable before the provider call, so that a crash during the call leaves
     * an attempt a redelivery finds. A new job: 2 statements (insert job, insert attempt). A redelivered one: its row
     * locked and read; a job already accepted is not sent again ({@code -1}: acknowledge without a call), another gets a
     * further attempt (sent again under the same idempotency key, which the provider drops if it had it).
     *
     * @return the attempt's number, or -1 when the job was accepted already
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int claim(String messageId) {
        Timestamp now = Timestamp.from(Instant.now());
        int attempt = 1;
        int inserted = em.createNativeQuery("insert into guarded_job (message_id, state, attempts, received_at) "
                        + "values (?1, 'sending', 1, ?2) on conflict do nothing")
                .setParameter(1, messageId).setParameter(2, now).executeUpdate();
        if (inserted == 0) {
            Object[] job = (Object[]) em.createNativeQuery(
                            "select state, attempts from guarded_job where message_id = ?1 for update")
                    .setParameter(1, messageId).getSingleResult();
            if ("accepted".equals(job[0])) {
                return -1;
            }
            attempt = ((Number) job[1]).intValue() + 1;
            em.createNativeQuery("update guarded_job set attempts = ?2 where message_id = ?1")
                    .setParameter(1, messageId).setParameter(2, attempt).executeUpdate();
        }
        em.createNativeQuery("insert into guarded_attempt (message_id, attempt_no, started_at) values (?1, ?2, ?3)")
                .setParameter(1, messageId).setParameter(2, attempt).setParameter(3, now).executeUpdate();
        return attempt;
    }

    /**
     * The provider accepted: the attempt and the job say so, committed on their own, so that a broker failover that
     * rolls the delivery back cannot undo the acceptance (the redelivery then finds the job accepted). 2 statements.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void accepted(String messageId, int attempt) {
        Timestamp now = Timestamp.from(Instant.now());
        em.createNativeQuery("update guarded_attempt set outcome = 'accepted', finished_at = ?3 "
                        + "where message_id = ?1 and attempt_no = ?2")
                .setParameter(1, messageId).setParameter(2, attempt).setParameter(3, now).executeUpdate();
        em.createNativeQuery("update guarded_job set state = 'accepted', accepted_at = ?2 where message_id = ?1")
                .setParameter(1, messageId).setParameter(2, now).executeUpdate();
    }
}
