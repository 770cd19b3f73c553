package dev.mailroom.job;

import dev.mailroom.platform.Refused;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Instant;

/**
 * The ledger's part for jobs whose send is {@code unknown}: their held bytes, and an operator's decision on them
 * (marked as sent, or sent again). In the caller's transaction; {@link JobLedger} holds the transaction attributes
 * of its entries.
 */
final class UnknownJobs {

    private final EntityManager em;
    private final Clock clock;

    UnknownJobs(EntityManager em, Clock clock) {
        this.em = em;
        this.clock = clock;
    }

    /** Keeps the delivery's bytes of a job that ends {@code unknown}: what an operator's "send again" republishes. */
    void hold(MailJob j, Incoming in, Instant now) {
        HeldSend held = em.find(HeldSend.class, j.getId());
        if (held != null) {
            em.remove(held);
            em.flush();
        }
        em.persist(new HeldSend(j.getId(), in, now));
    }

    void unknown(long jobId, Incoming in, String detail) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId);
        hold(j, in, now);
        j.moveTo(JobState.unknown, now);
        new JobTimeline(em, clock).event(j, "ambiguous_not_resent", detail, now);
    }

    HeldSend heldForSendAgain(long jobId) {
        MailJob j = unknownJob(jobId);
        HeldSend held = em.find(HeldSend.class, jobId);
        if (held == null) {
            throw new Refused.Conflict("no_held_payload", "job " + j.getMessageId() + " has no held bytes to send"
                    + " again (it went unknown before they were kept): mark it as sent, or publish it again yourself");
        }
        return held;
    }

    MailJob markSent(long jobId, String actor, String why) {
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

    void sendAgain(long jobId, String jmsMessageId, String actor, String why) {
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
}
