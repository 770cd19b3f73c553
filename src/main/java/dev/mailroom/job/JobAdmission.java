package dev.mailroom.job;

import static dev.mailroom.job.JobTimeline.note;
import static dev.mailroom.job.LedgerSql.utc;

import dev.mailroom.recoverability.Admission;
import dev.mailroom.recoverability.AdmissionFacts;
import dev.mailroom.recoverability.AdmissionPolicy;
import dev.mailroom.recoverability.ClaimDecision;
import dev.mailroom.recoverability.Ownership;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.recoverability.SuppressionDecision;
import dev.mailroom.recoverability.SuppressionPolicy;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The ledger's admission part: the job received (inserted or locked), the facts about this delivery gathered,
 * {@link AdmissionPolicy} asked, and what it decided recorded, claim and suppression included. In the caller's
 * transaction; {@link JobLedger} holds the transaction attributes of its entries.
 */
final class JobAdmission {

    private final EntityManager em;
    private final Clock clock;
    private final ValidityWindow validity;
    private final JobTimeline timeline;

    JobAdmission(EntityManager em, Clock clock, ValidityWindow validity) {
        this.em = em;
        this.clock = clock;
        this.validity = validity;
        this.timeline = new JobTimeline(em, clock);
    }

    /**
     * The body of both entries of {@code begin}, in the caller's transaction, whichever it is: the admission decided and
     * recorded, then its timeline entries (received, ..., attempt_started) written together, in the order they happened:
     * one multi-row insert instead of one insert each (the timeline is ordered by their ids).
     */
    Begin admit(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted, boolean irrevocableFromTheStart) {
        List<JobEvent> entries = new ArrayList<>();
        Begin begun = decideAdmission(in, job, provider, permitGranted, irrevocableFromTheStart, entries);
        timeline.events(entries);
        em.flush();
        return begun;
    }

    /**
     * As {@link #admit}, in the delivery's transaction, where the attempt's outcome commits with the admission: a job
     * that proceeds leaves its entries to the outcome ({@link Begin.Proceed#unwritten}) and its row's changes to the
     * outcome's flush, so the row is updated once and the timeline written by one insert per job. Every other answer
     * ends the delivery here and is written here.
     */
    Begin admitInTheDelivery(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted,
                             boolean irrevocableFromTheStart) {
        List<JobEvent> entries = new ArrayList<>();
        Begin begun = decideAdmission(in, job, provider, permitGranted, irrevocableFromTheStart, entries);
        if (begun instanceof Begin.Proceed proceed) {
            return proceed.leaving(entries);
        }
        timeline.events(entries);
        em.flush();
        return begun;
    }

    /**
     * The body of {@link JobLedger#schedule}: a job whose {@code send_at} is ahead, received (or locked) and decided by
     * the same policy as {@link #admit}, without a provider: it is scheduled, or ends as a duplicate, already finished
     * or expired. Nothing is claimed and no attempt started; if its time came while this was decided, it is scheduled
     * due now (its copy takes the ordinary path).
     */
    Begin schedule(Incoming in, SendJob job) {
        List<JobEvent> entries = new ArrayList<>();
        Begin begun = decideAdmission(in, job, null, true, false, entries);
        timeline.events(entries);
        em.flush();
        return begun;
    }

    /**
     * Decides the admission and records it; its timeline entries go to {@code entries}, for {@link #admit} to write.
     * Without a {@code provider} (a job waiting for its send time) an admitted job is scheduled due now, not started.
     */
    private Begin decideAdmission(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted,
                                  boolean irrevocableFromTheStart, List<JobEvent> entries) {
        Instant now = clock.instant();
        Received received = insertOrLock(in, job, JobState.received, now, entries);
        MailJob j = received.job();
        JobAttempt open = openAttempt(received);
        Ownership ownership = AdmissionPolicy.ownership(j.getJmsMessageId(), in.jmsMessageId(), in.descendsFrom());
        AdmissionFacts facts = new AdmissionFacts(null, j.getState().name(), j.getState().finished(), ownership.owns(),
                open == null ? null : new AdmissionFacts.Interrupted(open.getAttemptNumber(),
                        open.getIrrevocableAt() != null, traitsOf(open.getProvider(), provider)),
                j.getExpiresAt(), now, permitGranted, j.getSendAt());
        Admission admission = AdmissionPolicy.decide(facts);

        if (admission instanceof Admission.AlreadyFinished) {
            note(entries, j, "redelivery_ignored", admission.describe(), now);
            return new Begin.AlreadyFinished(j.getId(), j.getState());
        }
        if (admission instanceof Admission.DuplicateMessage) {
            note(entries, j, "duplicate_message_ignored", "JMS message " + in.jmsMessageId()
                    + " repeats message_id of " + j.getJmsMessageId() + ", which owns the job", now);
            return new Begin.DuplicateMessage(j.getId());
        }
        j.ownedBy(in.jmsMessageId());
        if (ownership instanceof Ownership.Descendant descendant) {
            // the put-backs that could not be recorded then (the database stopped the line) are recorded now
            note(entries, j, "deferred", descendant.describe(), now);
        }
        if (open != null) {
            closeInterrupted(j, open, admission, now, entries);
        }
        if (admission instanceof Admission.Unknown) {
            new UnknownJobs(em, clock).hold(j, in, now);
            j.moveTo(JobState.unknown, now);
            note(entries, j, "ambiguous_not_resent", admission.describe(), now);
            return new Begin.Ambiguous(j.getId());
        }
        if (admission instanceof Admission.Expired) {
            j.moveTo(JobState.discarded, now);
            note(entries, j, "discarded", admission.describe(), now);
            return new Begin.Expired(j.getId());
        }
        if (admission instanceof Admission.Scheduled || provider == null) {
            return scheduled(j, now, entries);
        }
        if (admission instanceof Admission.PutBack putBack) {
            return new Begin.PutBack(j.getId(), putBack.delay());
        }
        return claimAndStart(in, job, received, provider, irrevocableFromTheStart, now, entries);
    }

    /** The job waits for its {@code send_at} on the broker (due at once if that has come): recorded {@code scheduled}. */
    private static Begin scheduled(MailJob j, Instant now, List<JobEvent> entries) {
        Duration delay = j.getSendAt() == null || !j.getSendAt().isAfter(now) ? Duration.ZERO
                : Duration.between(now, j.getSendAt());
        j.moveTo(JobState.scheduled, now);
        note(entries, j, "scheduled", "waits on the broker until its send time " + j.getSendAt()
                + (delay.isZero() ? " (due now)" : ""), now);
        return new Begin.Scheduled(j.getId(), j.getSendAt(), delay);
    }

    /** The job's attempt that a worker left unfinished, locked; none if every attempt finished. */
    private JobAttempt openAttempt(Received received) {
        // a job this transaction has just inserted has no attempt yet: nothing to read back
        JobAttempt last = received.inserted() ? null : lastAttempt(received.job().getId());
        if (last != null && last.unfinished()) {
            // locked and read again: a worker still in its call (a redelivery after a broker failover can come
            // while it is) commits its point of no return either before this reads it or after this closed it
            em.refresh(last, LockModeType.PESSIMISTIC_WRITE);
        }
        return last != null && last.unfinished() ? last : null;
    }

    /** An admitted job: its idempotency key claimed, its suppressed recipients withheld, then its attempt started. */
    private Begin claimAndStart(Incoming in, SendJob job, Received received, ProviderTraits provider,
                                boolean irrevocableFromTheStart, Instant now, List<JobEvent> entries) {
        MailJob j = received.job();
        ClaimDecision claim = new IdempotencyClaims(em).claim(job.idempotencyKey(), j, now, entries);
        if (claim instanceof ClaimDecision.Kept kept) {
            j.moveTo(JobState.duplicate_suppressed, now);
            note(entries, j, "duplicate_suppressed", claim.describe(), now);
            return new Begin.DuplicateKey(j.getId(), kept.ownerJobId());
        }

        RecipientSuppression suppressions = new RecipientSuppression(em);
        // a new job's recipients are the ones this transaction has just persisted: no need to read them back
        SuppressionDecision suppression = SuppressionPolicy.decide(suppressions.facts(j,
                received.inserted() ? received.recipients() : suppressions.recipients(j.getId())));
        suppressions.withhold(j, suppression.withheld(), now, entries);
        if (suppression instanceof SuppressionDecision.SuppressAll all) {
            j.moveTo(JobState.suppressed, now);
            note(entries, j, "suppressed", all.describe(), now);
            return new Begin.Suppressed(j.getId(), all.withheld());
        }

        JobAttempt attempt = new JobAttempt(j.getId(), j.getAttemptCount() + 1, in.jmsMessageId(), provider.name(), now);
        if (irrevocableFromTheStart) {
            attempt.irrevocableFrom(now);
        }
        em.persist(attempt);
        j.attemptStarted(provider.name(), in.jmsMessageId(), now);
        note(entries, j, "attempt_started", "attempt " + attempt.getAttemptNumber() + " through " + provider.name()
                + (j.getId().equals(in.sendAgainOf()) ? " (an operator's send again, admitted once: this copy owns the job)" : ""), now);
        return new Begin.Proceed(j.getId(), attempt.getId(), attempt.getAttemptNumber(), j.getExpiresAt(),
                suppression.withheld(), irrevocableFromTheStart);
    }

    /**
     * The provider of an interrupted attempt, as far as the ledger can tell: the current provider's traits
     * if it is the same one, else (or with none chosen yet) one that is assumed unable to drop a duplicate (the safe
     * side).
     */
    private static ProviderTraits traitsOf(String attemptProvider, ProviderTraits current) {
        return current != null && current.name().equals(attemptProvider) ? current
                : new ProviderTraits(attemptProvider, false);
    }

    /** Records how an attempt whose worker died ended: it never reached the provider, or it may have. */
    private static void closeInterrupted(MailJob j, JobAttempt open, Admission admission, Instant now,
                                         List<JobEvent> entries) {
        if (open.getIrrevocableAt() == null) {
            open.close(JobAttempt.Outcome.abandoned,
                    "worker stopped before the point of no return: nothing reached the provider", now);
            note(entries, j, "attempt_abandoned", "attempt " + open.getAttemptNumber() + " never reached the provider", now);
        } else if (admission instanceof Admission.Unknown) {
            open.close(JobAttempt.Outcome.ambiguous,
                    "worker stopped after the point of no return; the provider may have the mail", now);
        } else {
            open.close(JobAttempt.Outcome.ambiguous,
                    "worker stopped after the point of no return; provider dedupes by idempotency key", now);
            note(entries, j, "attempt_ambiguous", "attempt " + open.getAttemptNumber()
                    + " may have reached the provider; it drops a duplicate, so the same idempotency key may be sent again", now);
        }
    }

    private JobAttempt lastAttempt(long jobId) {
        List<JobAttempt> attempts = em.createQuery(
                        "select a from JobAttempt a where a.jobId = :j order by a.attemptNumber desc", JobAttempt.class)
                .setParameter("j", jobId)
                .setMaxResults(1)
                .getResultList();
        return attempts.isEmpty() ? null : attempts.get(0);
    }

    /** The body of {@link JobLedger#receive}: the job row inserted or locked, a new job's entry written. */
    MailJob receive(Incoming in, SendJob job, JobState initial, Instant now) {
        List<JobEvent> entries = new ArrayList<>();
        MailJob j = insertOrLock(in, job, initial, now, entries).job();
        timeline.events(entries);
        return j;
    }

    /** The job row, locked, and if this call inserted it, the recipients it persisted with it (else none). */
    private record Received(MailJob job, boolean inserted, List<JobRecipient> recipients) {
    }

    /** As {@link #receive}; a new job's {@code received} entry goes to {@code entries}, for the caller to write. */
    private Received insertOrLock(Incoming in, SendJob job, JobState initial, Instant now, List<JobEvent> entries) {
        int inserted = em.createNativeQuery("""
                insert into mail_job (queue, message_id, idempotency_key, tenant, campaign_id, category, state,
                                      attempt_count, trace_id, expires_at, received_at, updated_at, subject,
                                      template_id, queued_at, send_at)
                values (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?9, ?10, ?10, ?11, ?12, ?13, ?14)
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
                .setParameter(14, utc(job.sendAt()))
                .executeUpdate();
        MailJob j = em.createQuery("select j from MailJob j where j.queue = :q and j.messageId = :m", MailJob.class)
                .setParameter("q", in.queue())
                .setParameter("m", job.messageId())
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .getSingleResult();
        if (inserted != 1) {
            return new Received(j, false, List.of());
        }
        note(entries, j, "received", "from " + in.queue() + " as JMS message " + in.jmsMessageId(), now);
        List<JobRecipient> recipients = JobRecipient.of(j.getId(), job);
        recipients.forEach(em::persist);
        return new Received(j, true, recipients);
    }
}
