package dev.mailroom.job;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.AttemptHistory;
import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.FailureClass;
import dev.mailroom.recoverability.RecoveryAction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * The send path's record of jobs, claims, attempts and the timeline.
 *
 * <p>Three of its steps commit on their own ({@code REQUIRES_NEW}), because a provider call cannot be
 * rolled back: the claim and the attempt are durable before the call starts, the point of no return
 * is durable before the write that passes it, and a failed attempt stays recorded when the delivery
 * rolls back. What a redelivery finds there tells it whether sending again is safe.
 */
@ApplicationScoped
public class JobLedger {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    @Inject
    Clock clock;

    @Inject
    ValidityWindow validity;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Begin begin(Incoming in, SendJob job, String provider, boolean providerDedupes) {
        Instant now = clock.instant();
        MailJob j = receive(in, job, JobState.received, now);

        if (j.getState().finished()) {
            event(j, "redelivery_ignored", "job is already " + j.getState() + "; not sent again", now);
            return new Begin.AlreadyFinished(j.getId(), j.getState());
        }
        if (j.getJmsMessageId() != null && !j.getJmsMessageId().equals(in.jmsMessageId())) {
            event(j, "duplicate_message_ignored", "JMS message " + in.jmsMessageId()
                    + " repeats message_id of " + j.getJmsMessageId() + ", which owns the job", now);
            return new Begin.DuplicateMessage(j.getId());
        }
        j.ownedBy(in.jmsMessageId());

        JobAttempt last = lastAttempt(j.getId());
        if (last != null && last.unfinished()) {
            if (last.getIrrevocableAt() == null) {
                last.close(JobAttempt.Outcome.abandoned,
                        "worker stopped before the point of no return: nothing reached the provider", now);
                event(j, "attempt_abandoned", "attempt " + last.getAttemptNumber() + " never reached the provider", now);
            } else if (providerDedupes) {
                last.close(JobAttempt.Outcome.ambiguous,
                        "worker stopped after the point of no return; provider dedupes by idempotency key", now);
                event(j, "attempt_ambiguous", "attempt " + last.getAttemptNumber()
                        + " may have reached the provider; sending again with the same idempotency key", now);
            } else {
                last.close(JobAttempt.Outcome.ambiguous,
                        "worker stopped after the point of no return; the provider may have the mail", now);
                j.moveTo(JobState.unknown, now);
                event(j, "ambiguous_not_resent", "attempt " + last.getAttemptNumber() + " through " + last.getProvider()
                        + " passed its point of no return and its worker died; " + last.getProvider()
                        + " cannot drop a duplicate, so it is not sent again: reconcile or replay it by hand", now);
                return new Begin.Ambiguous(j.getId());
            }
        }

        if (j.getExpiresAt() != null && !now.isBefore(j.getExpiresAt())) {
            j.moveTo(JobState.discarded, now);
            event(j, "discarded", "expired: validity window ended at " + j.getExpiresAt() + "; never sent late", now);
            return new Begin.Expired(j.getId());
        }

        Long owner = claim(job.idempotencyKey(), j.getId(), now);
        if (owner != j.getId().longValue()) {
            j.moveTo(JobState.duplicate_suppressed, now);
            event(j, "duplicate_suppressed", "idempotency key already claimed by job " + owner, now);
            return new Begin.DuplicateKey(j.getId(), owner);
        }

        JobAttempt attempt = new JobAttempt(j.getId(), j.getAttemptCount() + 1, in.jmsMessageId(), provider, now);
        em.persist(attempt);
        j.attemptStarted(provider, in.jmsMessageId(), now);
        event(j, "attempt_started", "attempt " + attempt.getAttemptNumber() + " through " + provider, now);
        em.flush();
        return new Begin.Proceed(j.getId(), attempt.getId(), attempt.getAttemptNumber(), j.getExpiresAt());
    }

    /** Commits that attempt {@code attemptId} is about to pass its point of no return. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void markIrrevocable(long attemptId) {
        em.find(JobAttempt.class, attemptId).irrevocable(clock.instant());
    }

    /**
     * Records a failed attempt, what it was classified as and what was decided, in its own transaction:
     * it stays recorded even when the delivery that made it rolls back.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void recordFailure(Begin.Proceed p, ProviderResponse r, Failure failure, RecoveryAction decision) {
        Instant now = clock.instant();
        JobAttempt a = em.find(JobAttempt.class, p.attemptId());
        a.finish(r, now);
        a.classified(failure.failureClass().wireName(), decision.consumesAttempt(), decision.describe());
        MailJob j = em.find(MailJob.class, p.jobId());
        event(j, "attempt_failed", "attempt " + p.attemptNumber() + " (" + failure.failureClass().wireName() + "): "
                + describe(r) + " -> " + decision.describe(), now);
    }

    /**
     * The job's failed attempts before {@code attemptId} since its last replay, oldest first: what its
     * retry budgets are counted from. The database is the record; the JMS properties of a retry only mirror it.
     */
    public AttemptHistory historyBefore(long jobId, long attemptId) {
        Instant replayedAt = em.find(MailJob.class, jobId).getReplayedAt();
        List<AttemptHistory.Attempt> attempts = em.createQuery("""
                        select a from JobAttempt a where a.jobId = :j and a.id <> :a and a.failureClass is not null
                        and a.startedAt >= :since order by a.attemptNumber""", JobAttempt.class)
                .setParameter("j", jobId)
                .setParameter("a", attemptId)
                .setParameter("since", replayedAt == null ? Instant.EPOCH : replayedAt)
                .getResultStream()
                .map(a -> new AttemptHistory.Attempt(a.getFinishedAt(), FailureClass.fromWireName(a.getFailureClass()),
                        a.isConsumedAttempt()))
                .toList();
        return new AttemptHistory(attempts);
    }

    /** The job waits for its retry: a copy, JMS message {@code retryJmsMessageId}, is scheduled. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void retryScheduled(long jobId, String retryJmsMessageId, RecoveryAction decision, Instant dueAt) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId);
        j.ownedBy(retryJmsMessageId);
        j.moveTo(JobState.retry_scheduled, now);
        event(j, "retry_scheduled", decision.describe() + "; due at " + dueAt + " as JMS message " + retryJmsMessageId, now);
    }

    /** The job ends in {@code state} with an event saying why. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void finish(long jobId, JobState state, String eventType, String detail) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId);
        j.moveTo(state, now);
        event(j, eventType, detail, now);
    }

    /**
     * A delivery was put back before any attempt (the provider's rate limit): if the job is known, the
     * copy {@code retryJmsMessageId} takes over its ownership.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void deferred(String queue, String messageId, String retryJmsMessageId, String why) {
        List<MailJob> jobs = em.createQuery("select j from MailJob j where j.queue = :q and j.messageId = :m", MailJob.class)
                .setParameter("q", queue)
                .setParameter("m", messageId)
                .getResultList();
        for (MailJob j : jobs) {
            if (!j.getState().finished()) {
                j.ownedBy(retryJmsMessageId);
                event(j, "deferred", why, clock.instant());
            }
        }
    }

    /**
     * A redrive republished the job as JMS message {@code jmsMessageId}: it is received again, owned by
     * that copy, and its retry budgets start afresh. Its idempotency claim stays: the replay sends under
     * the same key, so a job that was in fact sent is suppressed, not sent twice.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void replayed(long jobId, String jmsMessageId, String detail) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId, LockModeType.PESSIMISTIC_WRITE);
        j.replayed(jmsMessageId, now);
        event(j, "replayed", detail + " as JMS message " + jmsMessageId, now);
    }

    public MailJob job(long jobId) {
        return em.find(MailJob.class, jobId);
    }

    /** Records the accepted attempt and the job's new state, in the delivery's own transaction. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void recordSent(Begin.Proceed p, ProviderResponse r) {
        Instant now = clock.instant();
        em.find(JobAttempt.class, p.attemptId()).finish(r, now);
        MailJob j = em.find(MailJob.class, p.jobId());
        j.sent(r.providerMessageId(), now);
        event(j, "sent", "accepted by " + r.provider() + ": " + describe(r), now);
    }

    /**
     * The job row for (queue, message_id), created in {@code initial} state if new, locked for the rest
     * of the transaction. An insert that loses a race to a concurrent one finds the winner's row.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public MailJob receive(Incoming in, SendJob job, JobState initial, Instant now) {
        int inserted = em.createNativeQuery("""
                insert into mail_job (queue, message_id, idempotency_key, tenant, campaign_id, category, state,
                                      attempt_count, trace_id, expires_at, received_at, updated_at)
                values (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?9, ?10, ?10)
                on conflict do nothing""")
                .setParameter(1, in.queue())
                .setParameter(2, job.messageId())
                .setParameter(3, job.idempotencyKey())
                .setParameter(4, job.tenant())
                .setParameter(5, job.campaignId())
                .setParameter(6, job.category())
                .setParameter(7, initial.name())
                .setParameter(8, in.traceId())
                .setParameter(9, utc(validity.expiresAt(job, now)))
                .setParameter(10, utc(now))
                .executeUpdate();
        MailJob j = em.createQuery("select j from MailJob j where j.queue = :q and j.messageId = :m", MailJob.class)
                .setParameter("q", in.queue())
                .setParameter("m", job.messageId())
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .getSingleResult();
        if (inserted == 1) {
            event(j, "received", "from " + in.queue() + " as JMS message " + in.jmsMessageId(), now);
        }
        return j;
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public void event(MailJob j, String type, String detail, Instant at) {
        em.persist(new JobEvent(j.getId(), at, type, detail, JobEvent.SYSTEM));
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public void moveTo(MailJob j, JobState state, Instant at) {
        j.moveTo(state, at);
    }

    private JobAttempt lastAttempt(long jobId) {
        List<JobAttempt> attempts = em.createQuery(
                        "select a from JobAttempt a where a.jobId = :j order by a.attemptNumber desc", JobAttempt.class)
                .setParameter("j", jobId)
                .setMaxResults(1)
                .getResultList();
        return attempts.isEmpty() ? null : attempts.get(0);
    }

    /** Claims the key for the job; returns the id of the job that owns the key (this one if the claim took). */
    private long claim(String key, long jobId, Instant now) {
        em.createNativeQuery("insert into send_claim (idempotency_key, job_id, claimed_at) values (?1, ?2, ?3) on conflict do nothing")
                .setParameter(1, key)
                .setParameter(2, jobId)
                .setParameter(3, utc(now))
                .executeUpdate();
        Number owner = (Number) em.createNativeQuery("select job_id from send_claim where idempotency_key = ?1")
                .setParameter(1, key)
                .getSingleResult();
        return owner.longValue();
    }

    static String describe(ProviderResponse r) {
        StringBuilder s = new StringBuilder(r.status().name().toLowerCase());
        if (r.code() != null) {
            s.append(' ').append(r.code());
        }
        if (r.enhancedCode() != null) {
            s.append(' ').append(r.enhancedCode());
        }
        if (r.errorType() != null) {
            s.append(' ').append(r.errorType());
        }
        if (r.text() != null) {
            s.append(": ").append(r.text());
        }
        return s.toString();
    }

    static OffsetDateTime utc(Instant i) {
        return i == null ? null : i.atOffset(ZoneOffset.UTC);
    }
}
