package dev.mailroom.deadletter;

import dev.mailroom.ops.Refused;
import dev.mailroom.send.JobLedger;
import dev.mailroom.send.MailJob;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;

/**
 * What an operator does to a dead letter, always with who and why. Discard: the entry is resolved
 * without sending; its envelope (and payload) stay until retention purges it. (Redrive, edit and
 * replay come with the redrive capability.)
 */
@ApplicationScoped
public class DeadLetterActions {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JobLedger ledger;
    @Inject
    Clock clock;

    @Transactional
    public DeadLetter discard(long id, String actor, String why) {
        if (actor == null || actor.isBlank() || why == null || why.isBlank()) {
            throw new Refused(400, "invalid_request", "a discard needs who (actor) and why (reason)");
        }
        DeadLetter d = em.find(DeadLetter.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (d == null) {
            throw new Refused(404, "dead_letter_not_found", "no dead letter with id " + id);
        }
        if (!DeadLetter.Status.open.name().equals(d.getStatus())) {
            throw new Refused(409, "not_open", "dead letter " + id + " is " + d.getStatus() + ", only an open one can be discarded");
        }
        Instant now = clock.instant();
        em.persist(new DeadLetterEvent(d.getId(), now, d.getStatus(), DeadLetter.Status.discarded.name(),
                actor.trim(), why.trim()));
        d.status(DeadLetter.Status.discarded, now);
        if (d.getJobId() != null) {
            MailJob job = ledger.job(d.getJobId());
            ledger.event(job, "dead_letter_discarded", "by " + actor.trim() + ": " + why.trim(), now);
        }
        return d;
    }
}
