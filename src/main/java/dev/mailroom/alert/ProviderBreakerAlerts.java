package dev.mailroom.alert;

import dev.mailroom.provider.BreakerStateChanged;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/** A provider's breaker opening (a page) or closing (a ticket) raises an alert; half-open is only a probe. */
@ApplicationScoped
public class ProviderBreakerAlerts {

    @Inject
    AlertOutbox alerts;

    void changed(@Observes BreakerStateChanged c) {
        if ("open".equals(c.state()) || "closed".equals(c.state())) {
            alerts.raise(AlertEvent.providerBreaker(c.provider(), c.state(), c.lastFailure(), c.at()));
        }
    }
}
