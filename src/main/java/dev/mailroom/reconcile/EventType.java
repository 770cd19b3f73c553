package dev.mailroom.reconcile;

/**
 * The normalised kind of a provider event, as django-anymail's {@code AnymailTrackingEvent.event_type} names
 * them, so every profile's vocabulary maps onto one.
 */
public enum EventType {
    queued, sent, rejected, failed, bounced, deferred, delivered, complained, unsubscribed, opened, clicked, unknown
    // what each does to a recipient's delivery state: DeliveryState.of
}
