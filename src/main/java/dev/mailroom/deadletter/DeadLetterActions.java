package dev.mailroom.deadletter;

import dev.mailroom.platform.Refused;
import dev.mailroom.job.JobLedger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What an operator does to a dead letter, always with who and why. Discard: the entry is resolved
 * without sending; its envelope (and payload) stay on the row until retention purges it, its broker
 * copies leave the DLQ in the same transaction. (Redrive, edit and replay come with the redrive capability.)
 */
@ApplicationScoped
public class DeadLetterActions {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JobLedger ledger;
    @Inject
    DeadLetterCopies copies;
    @Inject
    Clock clock;
    @Inject
    DeadLetterCounts counts;

    /**
     * Moves a dead letter to {@code to} (held by redrive run {@code redriveId}, or none) with the event
     * that says who and why; the job's timeline gets the same line. The caller holds the row's lock.
     * A dead letter that is resolved (discarded, or replayed: the replay took the copy it sent) leaves the
     * DLQ with it: every copy of it there is removed in this transaction, so the DLQ and the table stay
     * one truth and no sweep can find a copy of it later.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void transition(DeadLetter d, DeadLetter.Status to, String redriveId, String actor, String why) {
        List<DeadLetterCounts.Change> change = new ArrayList<>(1);
        transition(d, to, redriveId, actor, why, change);
        counts.apply(change);
    }

    /**
     * {@link #transition}, its change of the counts added to {@code uncounted} instead of applied: a transaction
     * that moves many dead letters applies them once, after its last ({@code counts.apply(uncounted)}), so it
     * takes the count rows' locks in {@link DeadLetterCounts}' one order.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void transition(DeadLetter d, DeadLetter.Status to, String redriveId, String actor, String why,
                           List<DeadLetterCounts.Change> uncounted) {
        Instant now = clock.instant();
        if (to.resolved()) {
            copies.remove(DeadLetterCopies.Identity.of(d));
        }
        em.persist(new DeadLetterEvent(d.getId(), now, d.getStatus(), to.name(), actor, why));
        DeadLetterCounts.Counted before = DeadLetterCounts.Counted.of(d);
        d.redriveStatus(to, redriveId, now);
        uncounted.add(new DeadLetterCounts.Change(before, DeadLetterCounts.Counted.of(d)));
        if (d.getJobId() != null && to != DeadLetter.Status.replaying && to != DeadLetter.Status.replayed) {
            ledger.event(ledger.job(d.getJobId()), "dead_letter_" + to.name(), "by " + actor + ": " + why, now);
        }
    }

    /** Records an edit of an open dead letter (its status stays {@code open}). */
    @Transactional(Transactional.TxType.MANDATORY)
    public void edited(DeadLetter d, String actor, String why) {
        Instant now = clock.instant();
        em.persist(new DeadLetterEvent(d.getId(), now, d.getStatus(), d.getStatus(), actor, why));
        if (d.getJobId() != null) {
            ledger.event(ledger.job(d.getJobId()), "dead_letter_edited", "by " + actor + ": " + why, now);
        }
    }

    @Transactional
    public DeadLetter discard(long id, String actor, String why) {
        if (actor == null || actor.isBlank() || why == null || why.isBlank()) {
            throw new Refused.Invalid("invalid_request", "a discard needs who (actor) and why (reason)");
        }
        DeadLetter d = em.find(DeadLetter.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (d == null) {
            throw new Refused.NotFound("dead_letter_not_found", "no dead letter with id " + id);
        }
        if (!DeadLetter.Status.open.name().equals(d.getStatus())) {
            throw new Refused.Conflict("not_open", "dead letter " + id + " is " + d.getStatus() + ", only an open one can be discarded");
        }
        transition(d, DeadLetter.Status.discarded, null, actor.trim(), why.trim());
        return d;
    }

    /**
     * The audit of an operator's "reveal": a payload shown unredacted is recorded like every other operator action,
     * in the dead letter's history (an event that keeps its status: who, when, what was shown) and on its job's
     * timeline ({@code payload_revealed}), so "who saw the secrets of #5" has an answer.
     */
    @Transactional
    public void revealed(java.util.Collection<Long> ids, String actor, String what) {
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
            java.util.logging.Logger.getLogger(DeadLetterActions.class.getName())
                    .info(() -> String.format("dead letter %d: %s %s", id, actor, why));
        }
    }
}
