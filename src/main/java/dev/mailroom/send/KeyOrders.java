package dev.mailroom.send;

import dev.mailroom.deadletter.DeadLetterArrived;
import dev.mailroom.deadletter.DeadLetterEnvelope;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.KeyLedger;
import dev.mailroom.job.KeyRelease;
import dev.mailroom.job.JobState;
import dev.mailroom.job.KeyOrderSettings;
import dev.mailroom.job.SendJob;
import dev.mailroom.platform.MailroomMetrics;
import dev.mailroom.recoverability.KeyOrderPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Duration;

/**
 * Jobs with an {@code ordering_key} (docs/job-contract.md "An ordering key"): at the door, a job whose key's head has
 * not ended waits, recorded with its bytes, its message acknowledged; after a delivery of a keyed job that ended it,
 * the key's next waiting job goes back to its queue as a copy, in the delivery's transaction, the way a retry's copy
 * does ({@link RecoveryExecutor#scheduleCopy}). A job without a key passes both steps without reading anything.
 */
@ApplicationScoped
public class KeyOrders {

    @Inject
    KeyLedger ledger;
    @Inject
    RecoveryExecutor executor;
    @Inject
    KeyOrderSettings settings;
    @Inject
    MailroomMetrics metrics;

    /** Whether {@code job} waits for its key (recorded; the delivery is over); false when it goes now. */
    public boolean waits(Incoming in, SendJob job) {
        if (job.orderingKey() == null) {
            return false;
        }
        KeyOrderPolicy.Place place = ledger.arrive(in, job);
        if (place instanceof KeyOrderPolicy.Go) {
            return false;
        }
        metrics.outcome(in.queue(), place instanceof KeyOrderPolicy.AlreadyWaiting ? "redelivery_ignored"
                : JobState.waiting_for_key.name());
        return true;
    }

    /** After a delivery of {@code job}: if it ended, its key's next job released (or the key held). */
    @Transactional(Transactional.TxType.MANDATORY)
    public void after(Incoming in, SendJob job) {
        after(in.queue(), job.messageId(), job.orderingKey());
    }

    /** As {@link #after(Incoming, SendJob)}, for job {@code messageId} on {@code queue} whose key is {@code orderingKey}. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void after(String queue, String messageId, String orderingKey) {
        if (orderingKey != null) {
            ended(queue, messageId, "the job before it in its key ended");
        }
    }

    /**
     * A job the broker dead-lettered by itself (its delivery limit reached: every delivery failed before the send path
     * could end it) has ended as well: its key's next job goes or the key is held, as after any other end, in the
     * sweeper's transaction that records it. A dead letter the send path routed was handled by {@link #after} already.
     */
    void brokerDeadLettered(@Observes DeadLetterArrived arrived) {
        DeadLetterEnvelope envelope = arrived.envelope();
        if (DeadLetterEnvelope.ROUTED_BY_BROKER.equals(envelope.routedBy())) {
            ended(envelope.sourceQueue(), envelope.messageId(),
                    "the job before it in its key was dead-lettered by the broker");
        }
    }

    /** Job {@code messageId} of {@code queue} ended (if it did): its key's next job released, or the key held. */
    private void ended(String queue, String messageId, String why) {
        ledger.after(queue, messageId, settings.afterDeadLetter(queue)).ifPresent(release -> publish(release, why));
    }

    /**
     * An operator releases the held key {@code orderingKey} of {@code queue}: its first waiting job goes, the later ones
     * after it as each ends. Recorded with who and why on the released job.
     */
    @Transactional
    public void release(String queue, String orderingKey, String actor, String reason) {
        String why = OperatorRequests.reason(reason);
        ledger.release(queue, orderingKey, actor, why)
                .ifPresent(release -> publish(release, "its key's hold was released by " + actor));
    }

    /** The released job's waiting delivery goes back to its queue as a copy due now, which owns the job from now on. */
    private void publish(KeyRelease release, String why) {
        String copy = executor.scheduleCopy(release.delivery(), Duration.ZERO, 0);
        ledger.released(release.jobId(), copy, why);
    }
}
