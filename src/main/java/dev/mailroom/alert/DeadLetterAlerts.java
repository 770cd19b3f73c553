package dev.mailroom.alert;

import dev.mailroom.deadletter.DeadLetterArrived;
import dev.mailroom.deadletter.DeadLetterEnvelope;
import dev.mailroom.deadletter.DeadLetterNotice;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * Turns dead-letter facts into alerts: every arrival (routed by reason: page or ticket, grouped, bursts
 * detected), the oldest open one passing its age limit, and one nearing its retention expiry. The alert is
 * written to the outbox in the fact's own transaction ({@link AlertOutbox#raiseInTransaction}): it exists if
 * and only if the dead letter does, and survives a restart. Delivery happens later, off this thread: the send
 * path is not held up by a slow or absent alert receiver.
 */
@ApplicationScoped
public class DeadLetterAlerts {

    @Inject
    AlertOutbox alerts;

    void arrived(@Observes DeadLetterArrived arrived) {
        DeadLetterEnvelope e = arrived.envelope();
        alerts.raiseInTransaction(AlertEvent.deadLetter(e.sourceQueue(), e.reason(), e.failureClass(), e.errorType(),
                e.messageId(), e.failedAt()));
    }

    void notice(@Observes DeadLetterNotice n) {
        switch (n.kind()) {
            case OLDEST_AGE_EXCEEDED -> alerts.raiseInTransaction(AlertEvent.oldestAgeExceeded(n.queue(), n.age(), n.limit(),
                    n.messageId(), n.at()));
            case RETENTION_EXPIRING -> alerts.raiseInTransaction(AlertEvent.retentionExpiring(n.queue(), n.messageId(),
                    n.retentionUntil(), n.at()));
        }
    }
}
