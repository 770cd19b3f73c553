package dev.mailroom.job;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.AdmissionPolicy;
import dev.mailroom.recoverability.AttemptHistory;
import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.LateOutcomePolicy;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.recoverability.RecoveryAction;
import dev.mailroom.recoverability.TransactionPlan;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The send path's record of jobs, claims, attempts and the timeline: the entries other packages call, each with
 * its transaction attribute, over the parts that do the work in the caller's transaction (the admission with its
 * claim and suppression step, {@link JobAdmission}; attempts, {@link AttemptRecords}; the timeline,
 * {@link JobTimeline}; operators' decisions on unknown sends, {@link UnknownJobs}; jobs waiting for their send time,
 * {@link ScheduledJobs}). The parts are plain objects,
 * not beans: a call into one runs in whatever transaction the entry has, as a call within this bean would.
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

    // the parts, made per call from the injected fields: a few small objects, and a test that sets the fields
    // of a ledger it made itself gets parts on them
    private JobAdmission admission() {
        return new JobAdmission(em, clock, validity);
    }

    private AttemptRecords attempts() {
        return new AttemptRecords(em, clock);
    }

    private JobTimeline timeline() {
        return new JobTimeline(em, clock);
    }

    private UnknownJobs unknownJobs() {
        return new UnknownJobs(em, clock);
    }

    private ScheduledJobs scheduledJobs() {
        return new ScheduledJobs(em, clock);
    }

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
        return admission().admit(in, job, provider, permitGranted, irrevocableFromTheStart);
    }

    /**
     * As {@link #begin(Incoming, SendJob, ProviderTraits, boolean, boolean)}, in the delivery's transaction
     * ({@link TransactionPlan.InTheDelivery}): nothing of it commits before the provider's write and the outcome do,
     * and a rollback of the delivery takes it back with them. The job's row stays locked until then, so a redelivery
     * of the same message waits for this one's outcome instead of finding an open attempt. A {@link Begin.Proceed}
     * leaves its timeline entries ({@link Begin.Proceed#unwritten}) to {@link #recordSentInTheDelivery} or
     * {@link #recordFailureInTheDelivery}, which write them with their own.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Begin beginInTheDelivery(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted,
                                    boolean irrevocableFromTheStart) {
        return admission().admitInTheDelivery(in, job, provider, permitGranted, irrevocableFromTheStart);
    }

    /**
     * A job whose {@code send_at} is ahead, in the delivery's transaction: received (or locked) and decided by
     * {@link AdmissionPolicy} like {@link #begin}, but never claimed or started: {@link Begin.Scheduled} (the caller
     * puts its copy on the broker and records it with {@link #scheduled}), or a duplicate, finished or expired one.
     * The job's row, the copy and the acknowledgement commit together.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Begin schedule(Incoming in, SendJob job) {
        return admission().schedule(in, job);
    }

    /** The scheduled job's copy, JMS message {@code copyJmsMessageId}, waits on the broker and owns the job. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void scheduled(long jobId, String copyJmsMessageId) {
        scheduledJobs().copyScheduled(jobId, copyJmsMessageId);
    }

    /**
     * An operator cancels the {@code scheduled} job {@code jobId} before its send time: it ends {@code cancelled},
     * recorded with who and why, and its copy is ignored when it arrives.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public MailJob cancel(long jobId, String actor, String why) {
        return scheduledJobs().cancel(jobId, actor, why);
    }

    /**
     * The job row for (queue, message_id), created in {@code initial} state if new, locked for the rest
     * of the transaction. An insert that loses a race to a concurrent one finds the winner's row.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public MailJob receive(Incoming in, SendJob job, JobState initial, Instant now) {
        return admission().receive(in, job, initial, now);
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
        return attempts().markIrrevocable(attemptId);
    }

    /**
     * Records what a worker knew of its attempt and could not record then, because the database did not answer:
     * that it never wrote the mail (its point of no return's commit failed) or that the provider accepted it (the
     * acceptance's commit failed). {@link LateOutcomePolicy} decides on the job as it is now; a
     * {@link LateOutcomePolicy.SendAgain} is for the caller to carry out.
     *
     * @param accepted the provider's answer for {@code ACCEPTED}, else null
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public LateOutcomePolicy.Action recordLate(LateOutcomePolicy.Known known, Begin.Proceed p, ProviderResponse accepted) {
        return new LateRecords(em, clock).record(known, p, accepted);
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
        attempts().sent(p, r);
    }

    /**
     * As {@link #recordSent}, in the delivery's transaction ({@link TransactionPlan.InTheDelivery}): the provider's
     * write is in that transaction too, so the acceptance must commit with it, not before it. Committed on its own,
     * a rollback of the delivery (a broker failover, a kill before its commit) would leave the job sent and the
     * provider without the mail, and the redelivery would find the job finished.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void recordSentInTheDelivery(Begin.Proceed p, ProviderResponse r) {
        attempts().sentInTheDelivery(p, r);
    }

    /**
     * Records a failed attempt, what it was classified as and what was decided, in its own transaction:
     * it stays recorded even when the delivery that made it rolls back. {@code providerCalled} is false for an attempt
     * that ended before its provider's call (an attachment that could not be fetched): it is no provider call.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void recordFailure(Begin.Proceed p, ProviderResponse r, Failure failure, RecoveryAction decision,
                              boolean providerCalled) {
        attempts().failed(p, r, failure, decision, providerCalled);
    }

    /**
     * As {@link #recordFailure}, in the delivery's transaction ({@link TransactionPlan.InTheDelivery}): the attempt
     * was begun there and is not committed yet, so a transaction of its own could not even see it.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void recordFailureInTheDelivery(Begin.Proceed p, ProviderResponse r, Failure failure, RecoveryAction decision,
                                           boolean providerCalled) {
        attempts().failed(p, r, failure, decision, providerCalled);
    }

    /**
     * The job's failed attempts before {@code attemptId} since its last replay, oldest first: what its
     * retry budgets are counted from. The database is the record; the JMS properties of a retry only mirror it.
     */
    public AttemptHistory historyBefore(long jobId, long attemptId) {
        return attempts().historyBefore(jobId, attemptId);
    }

    /** The job waits for its retry: a copy, JMS message {@code retryJmsMessageId}, is scheduled. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void retryScheduled(long jobId, String retryJmsMessageId, RecoveryAction decision, Instant dueAt) {
        attempts().retryScheduled(jobId, retryJmsMessageId, decision, dueAt);
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public void event(MailJob j, String type, String detail, Instant at) {
        timeline().event(j, type, detail, at);
    }

    /**
     * Writes these timeline entries (not yet persisted), in this order, with one multi-row insert per
     * {@value JobTimeline#EVENTS_PER_INSERT}. For a caller that writes many at once (the reconciliation: an entry
     * per webhook event), where {@code persist} would be one insert each.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void events(List<JobEvent> entries) {
        timeline().events(entries);
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public void moveTo(MailJob j, JobState state, Instant at) {
        j.moveTo(state, at);
    }

    /** The job ends in {@code state} with an event saying why. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void finish(long jobId, JobState state, String eventType, String detail) {
        timeline().finish(jobId, state, eventType, detail);
    }

    /**
     * A delivery was put back before any attempt (the provider's rate limit): if the job is known, the
     * copy {@code retryJmsMessageId} takes over its ownership.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void deferred(String queue, String messageId, String retryJmsMessageId, String why) {
        timeline().deferred(queue, messageId, retryJmsMessageId, why);
    }

    /**
     * A redrive republished the job as JMS message {@code jmsMessageId}: it is received again, owned by
     * that copy, and its retry budgets start afresh. Its idempotency claim stays: the replay sends under
     * the same key, so a job that was in fact sent is suppressed, not sent twice.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void replayed(long jobId, String jmsMessageId, String detail) {
        timeline().replayed(jobId, jmsMessageId, detail);
    }

    /**
     * The send's outcome is unknown: it passed its point of no return and failed without an answer, and
     * the provider cannot drop a duplicate. The job ends {@code unknown}, its bytes are kept for an
     * operator's "send again". In the delivery's transaction.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void unknown(long jobId, Incoming in, String detail) {
        unknownJobs().unknown(jobId, in, detail);
    }

    /**
     * The held bytes of the {@code unknown} job {@code jobId}, its row locked for the rest of the
     * transaction (two operators sending it again at once: the second one finds it no longer unknown).
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public HeldSend heldForSendAgain(long jobId) {
        return unknownJobs().heldForSendAgain(jobId);
    }

    /**
     * An operator says the {@code unknown} job {@code jobId} did reach the provider: it is
     * {@code sent_to_provider} and keeps its idempotency key. Recorded with who and why.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public MailJob markSent(long jobId, String actor, String why) {
        return unknownJobs().markSent(jobId, actor, why);
    }

    /**
     * An operator sends the {@code unknown} job {@code jobId} again: its held bytes went back to its queue
     * as JMS message {@code jmsMessageId} (marked {@link Incoming#SEND_AGAIN_PROPERTY}), which now owns the
     * job; the job is received again and admitted once, under the same idempotency key. Recorded with who and why.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void sendAgain(long jobId, String jmsMessageId, String actor, String why) {
        unknownJobs().sendAgain(jobId, jmsMessageId, actor, why);
    }

    public MailJob job(long jobId) {
        return em.find(MailJob.class, jobId);
    }

    /** The jobs with {@code messageId}, on {@code queue} if given. */
    public List<MailJob> byMessageId(String messageId, String queue) {
        return em.createQuery("select j from MailJob j where j.messageId = :m order by j.id", MailJob.class)
                .setParameter("m", messageId)
                .getResultStream()
                .filter(j -> queue == null || queue.equals(j.getQueue()))
                .toList();
    }

    /** The job's recipients in order (to, cc, bcc). */
    public List<JobRecipient> recipients(long jobId) {
        return new RecipientSuppression(em).recipients(jobId);
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
}
