package dev.mailroom.job;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.LateOutcomePolicy;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Instant;

/**
 * The body of {@link JobLedger#recordLate}: what a worker knew of its attempt and could not record when it knew it,
 * recorded once the database answers, as {@link LateOutcomePolicy} decides on the job as it is now. The job row's
 * lock orders this with a redelivery's admission, which takes the same lock; the attempt row's lock orders it with the
 * worker's own commit that failed to answer, which holds that row until it lands or rolls back.
 */
final class LateRecords {

    private final EntityManager em;
    private final Clock clock;

    LateRecords(EntityManager em, Clock clock) {
        this.em = em;
        this.clock = clock;
    }

    LateOutcomePolicy.Action record(LateOutcomePolicy.Known known, Begin.Proceed p, ProviderResponse accepted) {
        MailJob j = em.find(MailJob.class, p.jobId(), LockModeType.PESSIMISTIC_WRITE);
        if (j == null) {
            return new LateOutcomePolicy.Nothing("the job is no longer recorded");
        }
        // locked as well: the point of no return's own commit may be landing only now (its answer was lost, not its
        // request), and a plain read would see the attempt as it was before it and take back nothing
        JobAttempt a = em.find(JobAttempt.class, p.attemptId(), LockModeType.PESSIMISTIC_WRITE);
        Integer last = em.createQuery("select max(a.attemptNumber) from JobAttempt a where a.jobId = :j", Integer.class)
                .setParameter("j", p.jobId())
                .getSingleResult();
        boolean open = a != null && a.getFinishedAt() == null;
        boolean unknownFromThis = j.getState() == JobState.unknown && last != null && last == p.attemptNumber();
        LateOutcomePolicy.Action action = LateOutcomePolicy.decide(
                new LateOutcomePolicy.Facts(known, open, j.getState().name(), unknownFromThis));
        Instant now = clock.instant();
        if (action instanceof LateOutcomePolicy.TakeBack) {
            a.irrevocableFrom(null);
            new JobTimeline(em, clock).event(j, "point_of_no_return_taken_back", "attempt " + p.attemptNumber()
                    + ": its point of no return's commit failed, so its worker never wrote the mail", now);
        } else if (action instanceof LateOutcomePolicy.RecordSent) {
            new AttemptRecords(em, clock).sent(p, accepted);
        }
        return action;
    }
}
