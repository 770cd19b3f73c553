package dev.mailroom.reconcile;

/**
 * The normalised kind of a provider event, as django-anymail's {@code AnymailTrackingEvent.event_type} names
 * them, so every profile's vocabulary maps onto one.
 */
public enum EventType {
    queued, sent, rejected, failed, bounced, deferred, delivered, complained, unsubscribed, opened, clicked, unknown;

    /**
     * How bad the news is for a job's delivery state: transitions only go up, so a late or duplicated event
     * never erases a worse one and any order of the same events ends in the same state. 0: no delivery state.
     */
    public int severity() {
        return switch (this) {
            case deferred -> 1;
            case delivered -> 2;
            case bounced, rejected, failed -> 3;
            case complained -> 4;
            default -> 0;
        };
    }
}
