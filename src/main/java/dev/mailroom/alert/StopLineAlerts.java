package dev.mailroom.alert;

import dev.mailroom.stopline.LineStopped;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/** A stopped line pages: the queue's jobs wait until a probe or an operator starts it again. */
@ApplicationScoped
public class StopLineAlerts {

    @Inject
    AlertService alerts;

    void stopped(@Observes LineStopped s) {
        alerts.raise(AlertEvent.queuePaused(s.queue(), s.reason(), s.detail(), s.since()));
    }
}
