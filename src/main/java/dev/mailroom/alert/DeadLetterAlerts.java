package dev.mailroom.alert;

import dev.mailroom.deadletter.DeadLetterArrived;
import dev.mailroom.deadletter.DeadLetterEnvelope;
import dev.mailroom.deadletter.DeadLetterNotice;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;

/**
 * Turns dead-letter facts into alerts, only once their transaction has committed: every arrival
 * (routed by reason: page or ticket, grouped, bursts detected), the oldest open one passing its age
 * limit, and one nearing its retention expiry. Raising never blocks: the send path is not held up by
 * a slow or absent alert receiver.
 */
@ApplicationScoped
public class DeadLetterAlerts {

    @Inject
    AlertService alerts;

    void arrived(@Observes(during = TransactionPhase.AFTER_SUCCESS) DeadLetterArrived arrived) {
        DeadLetterEnvelope e = arrived.envelope();
        alerts.raise(AlertEvent.deadLetter(e.sourceQueue(), e.reason(), e.failureClass(), e.errorType(),
                e.messageId(), e.failedAt()));
    }

    void notice(@Observes(during = TransactionPhase.AFTER_SUCCESS) DeadLetterNotice n) {
        switch (n.kind()) {
            case OLDEST_AGE_EXCEEDED -> alerts.raise(AlertEvent.oldestAgeExceeded(n.queue(), n.age(), n.limit(),
                    n.messageId(), n.at()));
            case RETENTION_EXPIRING -> alerts.raise(AlertEvent.retentionExpiring(n.queue(), n.messageId(),
                    n.retentionUntil(), n.at()));
        }
    }
}
