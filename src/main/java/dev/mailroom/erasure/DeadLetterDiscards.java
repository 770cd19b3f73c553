package dev.mailroom.erasure;

import dev.mailroom.deadletter.DeadLetter;
import dev.mailroom.deadletter.DeadLetterActions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/** Discards an open dead letter as an operator's discard does: its DLQ copy goes, its history says who and why. */
@ApplicationScoped
public class DeadLetterDiscards implements ErasureBatch.Discards {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    DeadLetterActions actions;

    @Override
    @Transactional(Transactional.TxType.MANDATORY)
    public void discard(long deadLetterId, String actor, String why) {
        DeadLetter d = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
        actions.transition(d, DeadLetter.Status.discarded, null, actor, why);
        em.flush();
    }
}
