package dev.mailroom.alert;

import dev.mailroom.stopline.LineStopped;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * A line stopped by the world (credentials, providers, dead-letter rate, database) pages: the queue's jobs wait
 * until a probe or an operator starts it again. An operator's own pause does not page.
 */
@ApplicationScoped
public class StopLineAlerts {

    @Inject
    AlertOutbox alerts;

    void stopped(@Observes LineStopped s) {
        if ("operator".equals(s.reason())) {
            return;
        }
        alerts.raise(AlertEvent.queuePaused(s.queue(), s.reason(), s.detail(), s.since()));
    }
}
