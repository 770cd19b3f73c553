package dev.mailroom.job;

import static dev.mailroom.job.JobTimeline.note;
import static dev.mailroom.job.LedgerSql.onTables;
import static dev.mailroom.job.LedgerSql.utc;

import dev.mailroom.recoverability.AdmissionPolicy;
import dev.mailroom.recoverability.ClaimDecision;
import dev.mailroom.recoverability.ClaimFacts;
import jakarta.persistence.EntityManager;
import java.time.Instant;
import java.util.List;

/** The admission's idempotency claim ({@code send_claim}): who holds a key, and whether it moves over. */
final class IdempotencyClaims {

    private final EntityManager em;

    IdempotencyClaims(EntityManager em) {
        this.em = em;
    }

    /**
     * Claims the key for job {@code j}. A new key is inserted (its primary key makes one claimant win);
     * a held one is locked ({@code for update}: a second claimant waits, then sees the first one's
     * outcome), the holder's facts gathered, and {@link AdmissionPolicy#claim} decides whether the key
     * moves over. A move is recorded on both jobs' timelines.
     */
    ClaimDecision claim(String key, MailJob j, Instant now, List<JobEvent> timeline) {
        int inserted = onTables(em,
                        "insert into send_claim (idempotency_key, job_id, claimed_at) values (?1, ?2, ?3) on conflict do nothing",
                        "send_claim")
                .setParameter(1, key)
                .setParameter(2, j.getId())
                .setParameter(3, utc(now))
                .executeUpdate();
        if (inserted == 1) {
            return new ClaimDecision.Held();
        }
        Object[] held = (Object[]) em.createNativeQuery(
                        "select job_id, kept_until from send_claim where idempotency_key = ?1 for update")
                .setParameter(1, key)
                .getSingleResult();
        long owner = ((Number) held[0]).longValue();
        if (held[1] != null) {
            // the holder was removed by retention; its claim is kept for the claim window
            return JobRetentionPolicy.claimOfRemovedJob(owner, LedgerSql.instant(held[1]));
        }
        ClaimFacts facts;
        if (owner == j.getId()) {
            facts = new ClaimFacts(j.getId(), owner, j.getState().name(), false, false);
        } else {
            MailJob holder = em.find(MailJob.class, owner);
            em.refresh(holder);
            facts = new ClaimFacts(j.getId(), owner, holder.getState().name(), mayHaveReachedProvider(owner),
                    deadLetterPending(owner));
        }
        ClaimDecision decision = AdmissionPolicy.claim(facts);
        if (decision instanceof ClaimDecision.TakeOver takeOver) {
            em.createNativeQuery("update send_claim set job_id = ?1, claimed_at = ?2 where idempotency_key = ?3")
                    .setParameter(1, j.getId())
                    .setParameter(2, utc(now))
                    .setParameter(3, key)
                    .executeUpdate();
            note(timeline, em.find(MailJob.class, owner), "idempotency_key_released", "idempotency key '" + key
                    + "' taken over by job " + j.getId() + " (" + j.getMessageId() + "): " + takeOver.why(), now);
            note(timeline, j, "idempotency_key_taken_over", decision.describe(), now);
        }
        return decision;
    }

    /** Whether any attempt of the job was accepted, or passed its point of no return without a definite refusal. */
    private boolean mayHaveReachedProvider(long jobId) {
        Number n = (Number) em.createNativeQuery("""
                        select count(*) from job_attempt where job_id = ?1 and (outcome in ('accepted', 'ambiguous')
                        or (irrevocable_at is not null and (outcome is null or outcome <> 'rejected')))""")
                .setParameter(1, jobId)
                .getSingleResult();
        return n.longValue() > 0;
    }

    /**
     * Whether the job has a dead letter an operator may still replay (open, or being replayed). Read by its table
     * ({@code dead_letter}): the dead-letter capability stands on this package, not under it.
     */
    private boolean deadLetterPending(long jobId) {
        Number n = (Number) em.createNativeQuery(
                        "select count(*) from dead_letter where job_id = ?1 and status in ('open', 'replaying')")
                .setParameter(1, jobId)
                .getSingleResult();
        return n.longValue() > 0;
    }
}
