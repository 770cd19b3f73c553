package dev.mailroom.job;

import dev.mailroom.platform.Refused;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.Admission;
import dev.mailroom.recoverability.AdmissionFacts;
import dev.mailroom.recoverability.AdmissionPolicy;
import dev.mailroom.recoverability.ClaimDecision;
import dev.mailroom.recoverability.ClaimFacts;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.recoverability.AttemptHistory;
import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.FailureClass;
import dev.mailroom.recoverability.RecoveryAction;
import dev.mailroom.recoverability.SuppressionDecision;
import dev.mailroom.recoverability.SuppressionFacts;
import dev.mailroom.recoverability.SuppressionPolicy;
import dev.mailroom.recoverability.TransactionPlan;
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
import java.util.ArrayList;
import java.util.List;

/**
 * The send path's record of jobs, claims, attempts and the timeline.
 *
 * <p>Four of its steps commit on their own ({@code REQUIRES_NEW}), because a provider call cannot be
 * rolled back: the claim and the attempt are durable before the call starts, the point of no return
 * is durable before the write that passes it, the provider's acceptance is durable the moment it is
 * known, and a failed attempt stays recorded when the delivery rolls back. What a redelivery finds
 * there tells it whether sending again is safe; the delivery's own transaction only acknowledges it.
 *
 * <p>A provider whose write is a row of our own database in the delivery's transaction (the sandbox) can be rolled
 * back with it: for it ({@link TransactionPlan.InTheDelivery}) the same steps have a second entry that runs in the
 * delivery's transaction ({@code MANDATORY}: {@link #beginInTheDelivery}, {@link #recordSentInTheDelivery},
 * {@link #recordFailureInTheDelivery}), so the job's record and the provider's write commit together or not at all,
 * in one commit per job. Each pair shares one body; the send path chooses the entry by the plan.
 */
@ApplicationScoped
public class JobLedger {

    /** A recipient's {@code job_recipient.delivery_state} when the suppression list withheld it: never mailed. */
    public static final String SUPPRESSED = "suppressed";

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    @Inject
    Clock clock;

    @Inject
    ValidityWindow validity;

    /**
     * Gathers the facts about this delivery with the job's row locked, lets {@link AdmissionPolicy}
     * decide, and records what it decided. Only {@link Begin.Proceed} leads to a provider call.
     *
     * @param provider      the provider the job would go to now
     * @param permitGranted whether the provider's rate limiter granted a permit within the pacing bound
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Begin begin(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted) {
        return begin(in, job, provider, permitGranted, false);
    }

    /**
     * As {@link #begin(Incoming, SendJob, ProviderTraits, boolean)}.
     *
     * @param irrevocableFromTheStart the attempt is recorded past its point of no return in this transaction
     *                                ({@link dev.mailroom.provider.MailProvider#irrevocableFromTheStart}), so the
     *                                call's checkpoint needs no transaction of its own ({@link Begin.Proceed#irrevocable})
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Begin begin(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted,
                       boolean irrevocableFromTheStart) {
        return admit(in, job, provider, permitGranted, irrevocableFromTheStart);
    }

    /**
     * As {@link #begin(Incoming, SendJob, ProviderTraits, boolean, boolean)}, in the delivery's transaction
     * ({@link TransactionPlan.InTheDelivery}): nothing of it commits before the provider's write and the outcome do,
     * and a rollback of the delivery takes it back with them. The job's row stays locked until then, so a redelivery
     * of the same message waits for this one's outcome instead of finding an open attempt.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Begin beginInTheDelivery(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted,
                                    boolean irrevocableFromTheStart) {
        return admit(in, job, provider, permitGranted, irrevocableFromTheStart);
    }

    /**
     * The body of both entries of {@code begin}, in the caller's transaction, whichever it is: the admission decided and
     * recorded, then its timeline entries (received, ..., attempt_started) written together, in the order they happened:
     * one multi-row insert instead of one insert each (the timeline is ordered by their ids).
     */
    private Begin admit(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted,
                        boolean irrevocableFromTheStart) {
        List<JobEvent> timeline = new ArrayList<>();
        Begin begun = decideAdmission(in, job, provider, permitGranted, irrevocableFromTheStart, timeline);
        events(timeline);
        em.flush();
        return begun;
    }

    /** Decides the admission and records it; its timeline entries go to {@code timeline}, for {@link #admit} to write. */
    private Begin decideAdmission(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted,
                                  boolean irrevocableFromTheStart, List<JobEvent> timeline) {
        Instant now = clock.instant();
        Received received = insertOrLock(in, job, JobState.received, now, timeline);
        MailJob j = received.job();
        // a job this transaction has just inserted has no attempt yet: nothing to read back
        JobAttempt last = received.inserted() ? null : lastAttempt(j.getId());
        if (last != null && last.unfinished()) {
            // locked and read again: a worker still in its call (a redelivery after a broker failover can come
            // while it is) commits its point of no return either before this reads it or after this closed it
            em.refresh(last, LockModeType.PESSIMISTIC_WRITE);
        }
        JobAttempt open = last != null && last.unfinished() ? last : null;
        AdmissionFacts facts = new AdmissionFacts(null, j.getState().name(), j.getState().finished(),
                j.getJmsMessageId() == null || j.getJmsMessageId().equals(in.jmsMessageId()),
                open == null ? null : new AdmissionFacts.Interrupted(open.getAttemptNumber(),
                        open.getIrrevocableAt() != null, traitsOf(open.getProvider(), provider)),
                j.getExpiresAt(), now, permitGranted);
        Admission admission = AdmissionPolicy.decide(facts);

        if (admission instanceof Admission.AlreadyFinished) {
            note(timeline, j, "redelivery_ignored", admission.describe(), now);
            return new Begin.AlreadyFinished(j.getId(), j.getState());
        }
        if (admission instanceof Admission.DuplicateMessage) {
            note(timeline, j, "duplicate_message_ignored", "JMS message " + in.jmsMessageId()
                    + " repeats message_id of " + j.getJmsMessageId() + ", which owns the job", now);
            return new Begin.DuplicateMessage(j.getId());
        }
        j.ownedBy(in.jmsMessageId());
        if (open != null) {
            closeInterrupted(j, open, admission, now, timeline);
        }
        if (admission instanceof Admission.Unknown) {
            hold(j, in, now);
            j.moveTo(JobState.unknown, now);
            note(timeline, j, "ambiguous_not_resent", admission.describe(), now);
            return new Begin.Ambiguous(j.getId());
        }
        if (admission instanceof Admission.Expired) {
            j.moveTo(JobState.discarded, now);
            note(timeline, j, "discarded", admission.describe(), now);
            return new Begin.Expired(j.getId());
        }
        if (admission instanceof Admission.PutBack putBack) {
            return new Begin.PutBack(j.getId(), putBack.delay());
        }

        ClaimDecision claim = claim(job.idempotencyKey(), j, now, timeline);
        if (claim instanceof ClaimDecision.Kept kept) {
            j.moveTo(JobState.duplicate_suppressed, now);
            note(timeline, j, "duplicate_suppressed", claim.describe(), now);
            return new Begin.DuplicateKey(j.getId(), kept.ownerJobId());
        }

        // a new job's recipients are the ones this transaction has just persisted: no need to read them back
        SuppressionDecision suppression = SuppressionPolicy.decide(suppressionFacts(j,
                received.inserted() ? received.recipients() : recipients(j.getId())));
        withhold(j, suppression.withheld(), now, timeline);
        if (suppression instanceof SuppressionDecision.SuppressAll all) {
            j.moveTo(JobState.suppressed, now);
            note(timeline, j, "suppressed", all.describe(), now);
            return new Begin.Suppressed(j.getId(), all.withheld());
        }

        JobAttempt attempt = new JobAttempt(j.getId(), j.getAttemptCount() + 1, in.jmsMessageId(), provider.name(), now);
        if (irrevocableFromTheStart) {
            attempt.irrevocableFrom(now);
        }
        em.persist(attempt);
        j.attemptStarted(provider.name(), in.jmsMessageId(), now);
        note(timeline, j, "attempt_started", "attempt " + attempt.getAttemptNumber() + " through " + provider.name()
                + (j.getId().equals(in.sendAgainOf()) ? " (an operator's send again, admitted once: this copy owns the job)" : ""), now);
        return new Begin.Proceed(j.getId(), attempt.getId(), attempt.getAttemptNumber(), j.getExpiresAt(),
                suppression.withheld(), irrevocableFromTheStart);
    }

    /**
     * The facts {@link SuppressionPolicy} decides from: the job's recipients and the active entries of its
     * tenant's suppression list for their addresses. The list is read by its table ({@code suppression}), as
     * {@link #deadLetterPending} reads {@code dead_letter}: the suppression capability stands on this package,
     * not under it.
     */
    private SuppressionFacts suppressionFacts(MailJob j, List<JobRecipient> recipients) {
        if (recipients.isEmpty()) {
            return new SuppressionFacts(List.of());
        }
        List<String> keys = recipients.stream().map(r -> suppressionKey(j.getTenant(), r.getAddress())).distinct().toList();
        java.util.Map<String, SuppressionFacts.Match> active = new java.util.HashMap<>();
        @SuppressWarnings("unchecked")
        List<Object[]> rows = onTables(
                        "select id, address, reason, created_at, cause from suppression where active_key in (:keys)",
                        "suppression")
                .setParameter("keys", keys)
                .getResultList();
        for (Object[] row : rows) {
            active.put((String) row[1], new SuppressionFacts.Match(((Number) row[0]).longValue(), (String) row[2],
                    instant(row[3]), (String) row[4]));
        }
        return new SuppressionFacts(recipients.stream()
                .map(r -> new SuppressionFacts.Recipient(r.getPosition(), r.getAddress(), active.get(r.getAddress()),
                        SUPPRESSED.equals(r.getDeliveryState())))
                .toList());
    }

    /** Records each newly withheld recipient: its delivery state and, on the job's timeline, which suppression. */
    private void withhold(MailJob j, List<SuppressionDecision.Withheld> withheld, Instant now, List<JobEvent> timeline) {
        for (SuppressionDecision.Withheld w : withheld) {
            if (!w.newlyWithheld()) {
                continue;
            }
            em.find(JobRecipient.class, new JobRecipient.Key(j.getId(), w.position())).delivery(SUPPRESSED, w.describe(), now);
            note(timeline, j, "recipient_suppressed", w.describe(), now);
        }
    }

    /** The job's recipients in order (to, cc, bcc). */
    public List<JobRecipient> recipients(long jobId) {
        return em.createQuery("select r from JobRecipient r where r.jobId = :j order by r.position", JobRecipient.class)
                .setParameter("j", jobId)
                .getResultList();
    }

    /**
     * The key that makes an entry of the suppression list unique while it is active
     * ({@code suppression.active_key}): the tenant (none: the default tenant) and the normalised address,
     * length-prefixed so that no two pairs run together.
     */
    public static String suppressionKey(String tenant, String normalisedAddress) {
        String t = tenant == null ? "" : tenant;
        return t.length() + ":" + t + ":" + normalisedAddress;
    }

    private static Instant instant(Object value) {
        if (value instanceof Instant i) {
            return i;
        }
        if (value instanceof OffsetDateTime o) {
            return o.toInstant();
        }
        if (value instanceof java.sql.Timestamp t) {
            return t.toInstant();
        }
        return null;
    }

    /**
     * The provider of an interrupted attempt, as far as the ledger can tell: the current provider's traits
     * if it is the same one, else one that is assumed unable to drop a duplicate (the safe side).
     */
    private static ProviderTraits traitsOf(String attemptProvider, ProviderTraits current) {
        return current.name().equals(attemptProvider) ? current : new ProviderTraits(attemptProvider, false);
    }

    /** Records how an attempt whose worker died ended: it never reached the provider, or it may have. */
    private static void closeInterrupted(MailJob j, JobAttempt open, Admission admission, Instant now,
                                         List<JobEvent> timeline) {
        if (open.getIrrevocableAt() == null) {
            open.close(JobAttempt.Outcome.abandoned,
                    "worker stopped before the point of no return: nothing reached the provider", now);
            note(timeline, j, "attempt_abandoned", "attempt " + open.getAttemptNumber() + " never reached the provider", now);
        } else if (admission instanceof Admission.Unknown) {
            open.close(JobAttempt.Outcome.ambiguous,
                    "worker stopped after the point of no return; the provider may have the mail", now);
        } else {
            open.close(JobAttempt.Outcome.ambiguous,
                    "worker stopped after the point of no return; provider dedupes by idempotency key", now);
            note(timeline, j, "attempt_ambiguous", "attempt " + open.getAttemptNumber()
                    + " may have reached the provider; it drops a duplicate, so the same idempotency key may be sent again", now);
        }
    }

    /** Keeps the delivery's bytes of a job that ends {@code unknown}: what an operator's "send again" republishes. */
    private void hold(MailJob j, Incoming in, Instant now) {
        HeldSend held = em.find(HeldSend.class, j.getId());
        if (held != null) {
            em.remove(held);
            em.flush();
        }
        em.persist(new HeldSend(j.getId(), in, now));
    }

    /**
     * The send's outcome is unknown: it passed its point of no return and failed without an answer, and
     * the provider cannot drop a duplicate. The job ends {@code unknown}, its bytes are kept for an
     * operator's "send again". In the delivery's transaction.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void unknown(long jobId, Incoming in, String detail) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId);
        hold(j, in, now);
        j.moveTo(JobState.unknown, now);
        event(j, "ambiguous_not_resent", detail, now);
    }

    /**
     * The held bytes of the {@code unknown} job {@code jobId}, its row locked for the rest of the
     * transaction (two operators sending it again at once: the second one finds it no longer unknown).
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public HeldSend heldForSendAgain(long jobId) {
        MailJob j = unknownJob(jobId);
        HeldSend held = em.find(HeldSend.class, jobId);
        if (held == null) {
            throw new Refused.Conflict("no_held_payload", "job " + j.getMessageId() + " has no held bytes to send"
                    + " again (it went unknown before they were kept): mark it as sent, or publish it again yourself");
        }
        return held;
    }

    /** The jobs with {@code messageId}, on {@code queue} if given. */
    public List<MailJob> byMessageId(String messageId, String queue) {
        return em.createQuery("select j from MailJob j where j.messageId = :m order by j.id", MailJob.class)
                .setParameter("m", messageId)
                .getResultStream()
                .filter(j -> queue == null || queue.equals(j.getQueue()))
                .toList();
    }

    /**
     * An operator says the {@code unknown} job {@code jobId} did reach the provider: it is
     * {@code sent_to_provider} and keeps its idempotency key. Recorded with who and why.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public MailJob markSent(long jobId, String actor, String why) {
        Instant now = clock.instant();
        MailJob j = unknownJob(jobId);
        HeldSend held = em.find(HeldSend.class, jobId);
        if (held != null) {
            em.remove(held);
        }
        j.moveTo(JobState.sent_to_provider, now);
        em.persist(new JobEvent(j.getId(), now, "marked_sent", "marked as sent by " + actor + ": " + why, actor));
        return j;
    }

    /**
     * An operator sends the {@code unknown} job {@code jobId} again: its held bytes went back to its queue
     * as JMS message {@code jmsMessageId} (marked {@link Incoming#SEND_AGAIN_PROPERTY}), which now owns the
     * job; the job is received again and admitted once, under the same idempotency key. Recorded with who and why.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void sendAgain(long jobId, String jmsMessageId, String actor, String why) {
        Instant now = clock.instant();
        MailJob j = unknownJob(jobId);
        HeldSend held = em.find(HeldSend.class, jobId);
        if (held != null) {
            em.remove(held);
        }
        j.replayed(jmsMessageId, now);
        em.persist(new JobEvent(j.getId(), now, "send_again", "sent again by " + actor + ": " + why
                + "; same idempotency key, as JMS message " + jmsMessageId, actor));
    }

    private MailJob unknownJob(long jobId) {
        MailJob j = em.find(MailJob.class, jobId, LockModeType.PESSIMISTIC_WRITE);
        if (j == null) {
            throw new Refused.NotFound("job_not_found", "no job " + jobId);
        }
        if (j.getState() != JobState.unknown) {
            throw new Refused.Conflict("not_unknown", "job " + j.getMessageId() + " is " + j.getState()
                    + ": only a job whose send is unknown can be marked as sent or sent again");
        }
        return j;
    }

    /**
     * Commits that attempt {@code attemptId} is about to pass its point of no return, if it is still open.
     *
     * @return false when a redelivery of its message already closed it (the broker failed over and delivered
     *         the message again while this worker was still before its point of no return): this worker must
     *         not write on, the redelivery owns the job now
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean markIrrevocable(long attemptId) {
        // one conditional update: it takes the row's lock (waiting for a redelivery that holds it) and its
        // condition is evaluated on the row as it is then, so "still open" and "now irrevocable" are one step
        return em.createNativeQuery("update job_attempt set irrevocable_at = ?1 where id = ?2 and finished_at is null")
                .setParameter(1, utc(clock.instant()))
                .setParameter(2, attemptId)
                .executeUpdate() == 1;
    }

    /**
     * Records a failed attempt, what it was classified as and what was decided, in its own transaction:
     * it stays recorded even when the delivery that made it rolls back.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void recordFailure(Begin.Proceed p, ProviderResponse r, Failure failure, RecoveryAction decision) {
        failed(p, r, failure, decision);
    }

    /**
     * As {@link #recordFailure}, in the delivery's transaction ({@link TransactionPlan.InTheDelivery}): the attempt
     * was begun there and is not committed yet, so a transaction of its own could not even see it.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void recordFailureInTheDelivery(Begin.Proceed p, ProviderResponse r, Failure failure, RecoveryAction decision) {
        failed(p, r, failure, decision);
    }

    private void failed(Begin.Proceed p, ProviderResponse r, Failure failure, RecoveryAction decision) {
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

    /**
     * Records the accepted attempt and the job's new state in a transaction of its own, committed the moment
     * the provider accepted, not with the delivery. The acceptance is then the database's alone: nothing that
     * befalls the delivery afterwards (a broker failover that rolls its XA transaction back, a kill before its
     * ack) can undo it, and the redelivery that follows finds the job sent ({@code AlreadyFinished}), not an
     * open attempt past its point of no return ({@code Unknown}). RemoteBrokerIT measured the difference.
     *
     * <p>A redelivery that came while this worker was still in its call (the broker failed over faster than
     * the provider answered) may already have held the job as {@code unknown}: the provider's acceptance
     * settles it, the held bytes go.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void recordSent(Begin.Proceed p, ProviderResponse r) {
        sent(p, r);
    }

    /**
     * As {@link #recordSent}, in the delivery's transaction ({@link TransactionPlan.InTheDelivery}): the provider's
     * write is in that transaction too, so the acceptance must commit with it, not before it. Committed on its own,
     * a rollback of the delivery (a broker failover, a kill before its commit) would leave the job sent and the
     * provider without the mail, and the redelivery would find the job finished.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void recordSentInTheDelivery(Begin.Proceed p, ProviderResponse r) {
        sent(p, r);
    }

    /** The body of both entries of {@code recordSent}: in the caller's transaction, whichever it is. */
    private void sent(Begin.Proceed p, ProviderResponse r) {
        Instant now = clock.instant();
        // the usual case in one statement, which takes the job row's lock as the read below would: the job moves
        // to sent_to_provider unless a redelivery held it as unknown meanwhile (that case is settled below)
        int sent = em.createNativeQuery("""
                        update mail_job set state = ?1, provider_message_id = ?2, sent_at = ?3, updated_at = ?3
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
            events(List.of(new JobEvent(p.jobId(), now, "sent", "accepted by " + r.provider() + ": " + describe(r),
                    JobEvent.SYSTEM)));
            return;
        }
        MailJob j = em.find(MailJob.class, p.jobId(), LockModeType.PESSIMISTIC_WRITE);
        em.find(JobAttempt.class, p.attemptId()).finish(r, now);
        if (j.getState() == JobState.unknown) {
            HeldSend held = em.find(HeldSend.class, j.getId());
            if (held != null) {
                em.remove(held);
            }
            event(j, "unknown_settled", "attempt " + p.attemptNumber() + " was accepted after a redelivery had held"
                    + " the job as unknown: it was sent", now);
        }
        j.sent(r.providerMessageId(), now);
        event(j, "sent", "accepted by " + r.provider() + ": " + describe(r), now);
    }

    /**
     * Closes attempt {@code attemptId} with the provider's answer, as {@link JobAttempt#finish} does, in one update
     * without reading it first (an {@code em.find} and a dirty check cost a statement and a flush more).
     */
    private void finishAttempt(long attemptId, ProviderResponse r, Instant at) {
        onTables("""
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

    /**
     * A native statement that reads or writes only {@code tables}. Before a native statement Hibernate flushes the
     * whole persistence context unless it is told which tables the statement touches
     * ({@code org.hibernate.query.native.spaces}); told, it flushes only what is pending for those. {@link #begin}'s
     * claim and suppression read then no longer write the job row and its recipients early, so the job row is
     * updated once per admission, not twice (bench/README.md, "Where a job's CPU goes").
     */
    private jakarta.persistence.Query onTables(String sql, String... tables) {
        return em.createNativeQuery(sql).setHint(NATIVE_SPACES, tables);
    }

    /** Hibernate's hint naming a native statement's tables ({@code HibernateHints.HINT_NATIVE_SPACES}). */
    static final String NATIVE_SPACES = "org.hibernate.query.native.spaces";

    /**
     * The job row for (queue, message_id), created in {@code initial} state if new, locked for the rest
     * of the transaction. An insert that loses a race to a concurrent one finds the winner's row.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public MailJob receive(Incoming in, SendJob job, JobState initial, Instant now) {
        List<JobEvent> timeline = new ArrayList<>();
        MailJob j = insertOrLock(in, job, initial, now, timeline).job();
        events(timeline);
        return j;
    }

    /** The job row, locked, and if this call inserted it, the recipients it persisted with it (else none). */
    private record Received(MailJob job, boolean inserted, List<JobRecipient> recipients) {
    }

    /** As {@link #receive}; a new job's {@code received} entry goes to {@code timeline}, for the caller to write. */
    private Received insertOrLock(Incoming in, SendJob job, JobState initial, Instant now, List<JobEvent> timeline) {
        int inserted = em.createNativeQuery("""
                insert into mail_job (queue, message_id, idempotency_key, tenant, campaign_id, category, state,
                                      attempt_count, trace_id, expires_at, received_at, updated_at, subject,
                                      template_id, queued_at)
                values (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?9, ?10, ?10, ?11, ?12, ?13)
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
                .setParameter(11, MailJob.subject(job.subject()))
                .setParameter(12, job.templateId())
                .setParameter(13, utc(in.brokerTimestamp()))
                .executeUpdate();
        MailJob j = em.createQuery("select j from MailJob j where j.queue = :q and j.messageId = :m", MailJob.class)
                .setParameter("q", in.queue())
                .setParameter("m", job.messageId())
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .getSingleResult();
        if (inserted != 1) {
            return new Received(j, false, List.of());
        }
        note(timeline, j, "received", "from " + in.queue() + " as JMS message " + in.jmsMessageId(), now);
        List<JobRecipient> recipients = JobRecipient.of(j.getId(), job);
        recipients.forEach(em::persist);
        return new Received(j, true, recipients);
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public void event(MailJob j, String type, String detail, Instant at) {
        em.persist(new JobEvent(j.getId(), at, type, detail, JobEvent.SYSTEM));
    }

    /** A timeline entry of {@code j}, kept in {@code timeline} to be written with the others ({@link #events}). */
    private static void note(List<JobEvent> timeline, MailJob j, String type, String detail, Instant at) {
        timeline.add(new JobEvent(j.getId(), at, type, detail, JobEvent.SYSTEM));
    }

    /** Timeline rows per multi-row insert: 5 bind parameters each, well under every database's limit. */
    static final int EVENTS_PER_INSERT = 100;

    /**
     * Writes these timeline entries (not yet persisted), in this order, with one multi-row insert per
     * {@value #EVENTS_PER_INSERT}. For a caller that writes many at once (the reconciliation: an entry per webhook
     * event): {@code persist} would be one insert each, as Hibernate cannot batch inserts of identity ids, and the
     * timeline is ordered by that id (a pooled sequence would not keep it in order across nodes). Nothing is read
     * back: the entries stay unmanaged.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void events(List<JobEvent> entries) {
        for (int from = 0; from < entries.size(); from += EVENTS_PER_INSERT) {
            List<JobEvent> chunk = entries.subList(from, Math.min(entries.size(), from + EVENTS_PER_INSERT));
            StringBuilder sql = new StringBuilder("insert into job_event (job_id, at, type, detail, actor) values ");
            for (int i = 0; i < chunk.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append("(?").append(5 * i + 1).append(", ?").append(5 * i + 2)
                        .append(", ?").append(5 * i + 3).append(", ?").append(5 * i + 4).append(", ?").append(5 * i + 5).append(')');
            }
            jakarta.persistence.Query insert = em.createNativeQuery(sql.toString());
            for (int i = 0; i < chunk.size(); i++) {
                JobEvent e = chunk.get(i);
                insert.setParameter(5 * i + 1, e.getJobId())
                        .setParameter(5 * i + 2, utc(e.getAt()))
                        .setParameter(5 * i + 3, e.getType())
                        .setParameter(5 * i + 4, e.getDetail())
                        .setParameter(5 * i + 5, e.getActor());
            }
            insert.executeUpdate();
        }
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

    /**
     * Claims the key for job {@code j}. A new key is inserted (its primary key makes one claimant win);
     * a held one is locked ({@code for update}: a second claimant waits, then sees the first one's
     * outcome), the holder's facts gathered, and {@link AdmissionPolicy#claim} decides whether the key
     * moves over. A move is recorded on both jobs' timelines.
     */
    private ClaimDecision claim(String key, MailJob j, Instant now, List<JobEvent> timeline) {
        int inserted = onTables(
                        "insert into send_claim (idempotency_key, job_id, claimed_at) values (?1, ?2, ?3) on conflict do nothing",
                        "send_claim")
                .setParameter(1, key)
                .setParameter(2, j.getId())
                .setParameter(3, utc(now))
                .executeUpdate();
        if (inserted == 1) {
            return new ClaimDecision.Held();
        }
        long owner = ((Number) em.createNativeQuery("select job_id from send_claim where idempotency_key = ?1 for update")
                .setParameter(1, key)
                .getSingleResult()).longValue();
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

    /** Whether the job has a dead letter an operator may still replay (open, or being replayed). */
    private boolean deadLetterPending(long jobId) {
        Number n = (Number) em.createNativeQuery(
                        "select count(*) from dead_letter where job_id = ?1 and status in ('open', 'replaying')")
                .setParameter(1, jobId)
                .getSingleResult();
        return n.longValue() > 0;
    }

    public static String describe(ProviderResponse r) {
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
