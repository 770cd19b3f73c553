package dev.mailroom.deadletter;

import dev.mailroom.job.JobLedger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.logging.Logger;

/**
 * The audit of an operator's "reveal": a payload shown unredacted is recorded like every other operator action,
 * in the dead letter's history (an event that keeps its status: who, when, what was shown) and on its job's
 * timeline ({@code payload_revealed}), so "who saw the secrets of #5" has an answer.
 */
@ApplicationScoped
public class PayloadReveals {

    private static final Logger LOG = Logger.getLogger(PayloadReveals.class.getName());

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JobLedger ledger;
    @Inject
    Clock clock;

    /** Records that {@code actor} was shown the unredacted payload of each dead letter in {@code ids}, by {@code what}. */
    @Transactional
    public void revealed(Collection<Long> ids, String actor, String what) {
        Instant now = clock.instant();
        String why = "revealed the payload: " + what;
        for (long id : ids) {
            DeadLetter d = em.find(DeadLetter.class, id);
            if (d == null) {
                continue;
            }
            em.persist(new DeadLetterEvent(d.getId(), now, d.getStatus(), d.getStatus(), actor, why));
            if (d.getJobId() != null) {
                ledger.event(ledger.job(d.getJobId()), "payload_revealed", "by " + actor + ": " + what, now);
            }
            LOG.info(() -> String.format("dead letter %d: %s %s", id, actor, why));
        }
    }
}
