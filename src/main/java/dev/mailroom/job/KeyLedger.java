package dev.mailroom.job;

import dev.mailroom.recoverability.KeyOrderPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The ledger's entries for jobs with an {@code ordering_key}, each with its transaction attribute, over
 * {@link KeyedJobs}, which does the work in the caller's transaction (as {@link JobLedger}'s parts do).
 */
@ApplicationScoped
public class KeyLedger {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    Clock clock;
    @Inject
    ValidityWindow validity;

    private KeyedJobs keyedJobs() {
        return new KeyedJobs(em, clock, validity);
    }

    /**
     * A job with an {@code ordering_key} at the door, committed on its own before anything else of the delivery: its
     * row and its place in its key together, then it goes or waits ({@code waiting_for_key}, its bytes kept).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public KeyOrderPolicy.Place arrive(Incoming in, SendJob job) {
        return keyedJobs().arrive(in, job).place();
    }

    /** After a delivery of a keyed job: its key's next job to release, if it ended and the key is not held. */
    @Transactional(Transactional.TxType.MANDATORY)
    public Optional<KeyRelease> after(String queue, String messageId, KeyOrderPolicy.AfterDeadLetter setting) {
        return keyedJobs().after(queue, messageId, setting);
    }

    /** The released job's copy, JMS message {@code copyJmsMessageId}, is on its queue and owns the job. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void released(long jobId, String copyJmsMessageId, String why) {
        keyedJobs().released(jobId, copyJmsMessageId, why);
    }

    /** An operator releases the held key: its first waiting job, if any, to publish. */
    @Transactional(Transactional.TxType.MANDATORY)
    public Optional<KeyRelease> release(String queue, String orderingKey, String actor, String why) {
        return keyedJobs().release(queue, orderingKey, actor, why);
    }

    /** The held ordering keys, on {@code queue} if given, oldest hold first, at most {@code limit}. */
    public List<HeldKey> held(String queue, int limit) {
        return keyedJobs().held(queue, limit);
    }
}
