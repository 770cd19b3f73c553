package dev.mailroom.send;

import dev.mailroom.contract.SendAtRule;
import dev.mailroom.job.Begin;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobState;
import dev.mailroom.job.MailJob;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.SendAtHorizon;
import dev.mailroom.job.SendJob;
import dev.mailroom.platform.MailroomMetrics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.Optional;

/**
 * Jobs with a {@code send_at}: refused at the door beyond the horizon, otherwise waiting on the broker as a scheduled
 * copy (JMS delivery delay, the mechanism retries use: nothing held in memory, no worker blocked), recorded
 * {@code scheduled}, in the delivery's transaction; and an operator's cancellation of one before its time. When the
 * copy comes, the job takes the ordinary send path, which claims its idempotency key then (a duplicate of a scheduled
 * job meets the same ownership and claim rules as any other) and ignores the copy of a cancelled job.
 */
@ApplicationScoped
public class ScheduledSends {

    @Inject
    SendAtHorizon horizon;
    @Inject
    JobLedger ledger;
    @Inject
    RecoveryExecutor executor;
    @Inject
    MailroomMetrics metrics;
    @Inject
    Clock clock;
    @Inject
    KeyOrders keys;

    /** Why {@code job} is refused at the door for its send time, if it is. */
    public Optional<ParseResult.Rejected> refusal(SendJob job) {
        if (horizon.decide(job, clock.instant()) instanceof SendAtRule.Refused refused) {
            return Optional.of(new ParseResult.Rejected(refused.reason(), refused.violation(), job.messageId()));
        }
        return Optional.empty();
    }

    /**
     * If {@code job}'s send time is ahead: recorded and put back on the broker until then (or ended, when it is a
     * duplicate, finished or expired), and true; false when it goes now.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean waits(Incoming in, SendJob job) {
        if (job.sendAt() == null || !job.sendAt().isAfter(clock.instant())) {
            return false;
        }
        Begin begin = ledger.schedule(in, job);
        if (begin instanceof Begin.Scheduled scheduled) {
            carryOut(in, scheduled);
        } else {
            metrics.outcome(in.queue(), begin instanceof Begin.Expired ? JobState.discarded.name()
                    : begin instanceof Begin.DuplicateMessage ? "duplicate_message_ignored" : "redelivery_ignored");
        }
        return true;
    }

    /** The scheduled job's copy goes on the broker, due at its send time, and owns the job from now on. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void carryOut(Incoming in, Begin.Scheduled scheduled) {
        String copy = executor.scheduleCopy(in, scheduled.delay(), 0);
        ledger.scheduled(scheduled.jobId(), copy);
        metrics.outcome(in.queue(), JobState.scheduled.name());
    }

    /** An operator cancels a scheduled job before its time; recorded with who and why. */
    @Transactional
    public MailJob cancel(String messageId, String queue, String actor, String reason) {
        String why = OperatorRequests.reason(reason);
        MailJob cancelled = ledger.cancel(OperatorRequests.job(ledger, messageId, queue).getId(), actor, why);
        keys.after(cancelled.getQueue(), cancelled.getMessageId(), cancelled.getOrderingKey());
        return cancelled;
    }
}
