package dev.mailroom.alert;

import dev.mailroom.reconcile.DeliveryRateExceeded;
import dev.mailroom.reconcile.DeliverySilent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/** Turns what the reconciliation's watch fires into alerts: silent jobs (ticket), bounce/complaint rates (page). */
@ApplicationScoped
public class DeliveryAlerts {

    @Inject
    AlertOutbox alerts;

    void silent(@Observes DeliverySilent s) {
        alerts.raise(AlertEvent.deliverySilent(s.provider(), s.queue(), s.messageId(), s.limit(), s.at()));
    }

    void rate(@Observes DeliveryRateExceeded r) {
        alerts.raise(AlertEvent.deliveryRateExceeded(r.kind(), r.queue(), r.tenant(), r.sent(), r.count(), r.rate(),
                r.threshold(), r.window(), r.at()));
    }
}
