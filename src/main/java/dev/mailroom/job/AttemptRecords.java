package dev.mailroom.job;

import static dev.mailroom.job.JobLedger.describe;
import static dev.mailroom.job.LedgerSql.onTables;
import static dev.mailroom.job.LedgerSql.utc;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.AttemptHistory;
import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.FailureClass;
import dev.mailroom.recoverability.RecoveryAction;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The ledger's attempt part: an attempt's point of no return, its outcome (sent or failed), the history its retry
 * budgets count and the retry it waits for. In the caller's transaction; {@link JobLedger} holds the transaction
 * attributes of its entries (an attempt's records commit on their own, or with the delivery).
 */
final class AttemptRecords {

    private final EntityManager em;
    private final Clock clock;
    private final JobTimeline timeline;

    AttemptRecords(EntityManager em, Clock clock) {
        this.em = em;
        this.clock = clock;
        this.timeline = new JobTimeline(em, clock);
    }

    boolean markIrrevocable(long attemptId) {
        // one conditional update: it takes the row's lock (waiting for a redelivery that holds it) and its
        // condition is evaluated on the row as it is then, so "still open" and "now irrevocable" are one step
        return em.createNativeQuery("update job_attempt set irrevocable_at = ?1 where id = ?2 and finished_at is null")
                .setParameter(1, utc(clock.instant()))
                .setParameter(2, attemptId)
                .executeUpdate() == 1;
    }

    void failed(Begin.Proceed p, ProviderResponse r, Failure failure, RecoveryAction decision, boolean providerCalled) {
        Instant now = clock.instant();
        JobAttempt a = em.find(JobAttempt.class, p.attemptId());
        a.finish(r, now);
        if (!providerCalled) {
            a.endedBeforeItsCall();
        }
        a.classified(failure.failureClass().wireName(), decision.consumesAttempt(), decision.describe());
        MailJob j = em.find(MailJob.class, p.jobId());
        String detail = "attempt " + p.attemptNumber() + " (" + failure.failureClass().wireName() + "): " + describe(r)
                + " -> " + decision.describe();
        List<JobEvent> admitted = p.unwritten().take();
        if (admitted.isEmpty()) {
            timeline.event(j, "attempt_failed", detail, now);
            return;
        }
        // the admission's entries first, then this one: written before anything the decision's carrying out records
        List<JobEvent> entries = new ArrayList<>(admitted);
        entries.add(new JobEvent(j.getId(), now, "attempt_failed", detail, JobEvent.SYSTEM));
        timeline.events(entries);
    }

    AttemptHistory historyBefore(long jobId, long attemptId) {
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

    void retryScheduled(long jobId, String retryJmsMessageId, RecoveryAction decision, Instant dueAt) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId);
        j.ownedBy(retryJmsMessageId);
        j.moveTo(JobState.retry_scheduled, now);
        timeline.event(j, "retry_scheduled", decision.describe() + "; due at " + dueAt + " as JMS message " + retryJmsMessageId, now);
    }

    /** The body of both entries of {@code recordSent}: in the caller's transaction, whichever it is. */
    void sent(Begin.Proceed p, ProviderResponse r) {
        Instant now = clock.instant();
        // the usual case in one statement, which takes the job row's lock as the read below would: the job moves
        // to sent_to_provider unless a redelivery held it as unknown meanwhile (that case is settled below)
        int sent = em.createNativeQuery("""
                        update mail_job set state = ?1, provider_message_id = ?2, sent_at = ?3, updated_at = ?3,
                        silence_check_at = ?3
                        where id = ?4 and state <> ?5""")
                .setParameter(1, JobState.sent_to_provider.name())
                .setParameter(2, r.providerMessageId())
                .setParameter(3, utc(now))
                .setParameter(4, p.jobId())
                .setParameter(5, JobState.unknown.name())
                .executeUpdate();
        if (sent == 1) {
            // nothing loaded, nothing managed: the attempt closed and the entry written by a statement each
            finishAttempt(p.attemptId(), r, now);
            timeline.events(List.of(sentEntry(p, r, now)));
            return;
        }
        MailJob j = em.find(MailJob.class, p.jobId(), LockModeType.PESSIMISTIC_WRITE);
        em.find(JobAttempt.class, p.attemptId()).finish(r, now);
        if (j.getState() == JobState.unknown) {
            HeldSend held = em.find(HeldSend.class, j.getId());
            if (held != null) {
                em.remove(held);
            }
            timeline.event(j, "unknown_settled", "attempt " + p.attemptNumber() + " was accepted after a redelivery had held"
                    + " the job as unknown: it was sent", now);
        }
        j.sent(r.providerMessageId(), now);
        timeline.event(j, "sent", "accepted by " + r.provider() + ": " + describe(r), now);
    }

    /**
     * The body of {@code recordSentInTheDelivery}: the admission ran in this transaction and locked the job's row, so no
     * redelivery can have held the job meanwhile; its row and attempt are still managed here, and change in memory, to
     * be written by one flush (the row once per job, not once at the admission and once now), and the admission's
     * entries go with {@code sent} in one insert.
     */
    void sentInTheDelivery(Begin.Proceed p, ProviderResponse r) {
        List<JobEvent> admitted = p.unwritten().take();
        if (admitted.isEmpty()) {
            sent(p, r);
            return;
        }
        Instant now = clock.instant();
        em.find(JobAttempt.class, p.attemptId()).finish(r, now);
        em.find(MailJob.class, p.jobId()).sent(r.providerMessageId(), now);
        List<JobEvent> entries = new ArrayList<>(admitted);
        entries.add(sentEntry(p, r, now));
        timeline.events(entries);
    }

    private static JobEvent sentEntry(Begin.Proceed p, ProviderResponse r, Instant at) {
        return new JobEvent(p.jobId(), at, "sent", "accepted by " + r.provider() + ": " + describe(r), JobEvent.SYSTEM);
    }

    /**
     * Closes attempt {@code attemptId} with the provider's answer, as {@link JobAttempt#finish} does, in one update
     * without reading it first (an {@code em.find} and a dirty check cost a statement and a flush more).
     */
    private void finishAttempt(long attemptId, ProviderResponse r, Instant at) {
        onTables(em, """
                        update job_attempt set finished_at = ?1, outcome = ?2, code = ?3, enhanced_code = ?4,
                                               response = ?5, error_type = ?6
                        where id = ?7""", "job_attempt")
                .setParameter(1, utc(at))
                .setParameter(2, JobAttempt.outcomeOf(r).name())
                .setParameter(3, r.code())
                .setParameter(4, r.enhancedCode())
                .setParameter(5, ProviderResponse.bound(r.text()))
                .setParameter(6, r.errorType())
                .setParameter(7, attemptId)
                .executeUpdate();
    }
}
