package dev.mailroom.job;

import dev.mailroom.platform.Refused;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Instant;

/**
 * The ledger's part for jobs waiting for their {@code send_at}: which copy on the broker owns one, and an operator's
 * cancellation. In the caller's transaction; {@link JobLedger} holds the transaction attributes of its entries.
 */
final class ScheduledJobs {

    private final EntityManager em;
    private final Clock clock;

    ScheduledJobs(EntityManager em, Clock clock) {
        this.em = em;
        this.clock = clock;
    }

    /** The copy {@code jmsMessageId} waiting on the broker owns the job: any other delivery of it is a duplicate. */
    void copyScheduled(long jobId, String jmsMessageId) {
        em.find(MailJob.class, jobId).ownedBy(jmsMessageId);
    }

    /**
     * Cancels a {@code scheduled} job: it ends {@code cancelled}, recorded with who and why. Its copy stays on the
     * broker and is ignored when it comes (the job is finished): nothing has to be found and removed there, and a
     * cancellation can never race the copy into a send, as both lock the job's row.
     */
    MailJob cancel(long jobId, String actor, String why) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId, LockModeType.PESSIMISTIC_WRITE);
        if (j == null) {
            throw new Refused.NotFound("job_not_found", "no job " + jobId);
        }
        if (j.getState() != JobState.scheduled) {
            throw new Refused.Conflict("not_scheduled", "job " + j.getMessageId() + " is " + j.getState()
                    + ": only a job waiting for its send time (scheduled) can be cancelled");
        }
        j.moveTo(JobState.cancelled, now);
        em.persist(new JobEvent(j.getId(), now, "cancelled", "cancelled by " + actor + " before its send time "
                + j.getSendAt() + ": " + why, actor));
        return j;
    }
}
