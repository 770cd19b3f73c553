package dev.mailroom.alert;

import dev.mailroom.send.SendOutcomeUnknown;
import dev.mailroom.send.UnknownProviderCode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/** Turns facts the send path fires into alerts; raising never blocks the send path. */
@ApplicationScoped
public class SendPathAlerts {

    @Inject
    AlertOutbox alerts;

    void unknownCode(@Observes UnknownProviderCode u) {
        alerts.raise(AlertEvent.unknownProviderCode(u.provider(), u.code(), u.queue(), u.messageId(), u.at()));
    }

    void unknownOutcome(@Observes SendOutcomeUnknown u) {
        alerts.raise(AlertEvent.sendOutcomeUnknown(u.provider(), u.queue(), u.messageId(), u.path(), u.detail(), u.at()));
    }
}
