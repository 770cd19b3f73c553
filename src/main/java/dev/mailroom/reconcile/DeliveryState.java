package dev.mailroom.reconcile;

import java.util.Optional;

/**
 * A recipient's delivery state as provider events tell it ({@code job_recipient.delivery_state}), in rising
 * order of severity: a change only ever goes up, so a late or duplicated event never erases a worse one and
 * the same events in any order end in the same state.
 */
public enum DeliveryState {
    deferred, delivered, bounced, complained;

    /** The state an event moves a recipient towards, if it speaks of delivery at all. */
    public static Optional<DeliveryState> of(EventType event) {
        return switch (event) {
            case deferred -> Optional.of(deferred);
            case delivered -> Optional.of(delivered);
            // rejected and failed: the provider gave the mail up; not a proven bad address (no suppression)
            case bounced, rejected, failed -> Optional.of(bounced);
            case complained -> Optional.of(complained);
            default -> Optional.empty();
        };
    }

    /** The stored column's value, or empty for a recipient no event has spoken of (or an unknown value). */
    public static Optional<DeliveryState> parse(String stored) {
        if (stored == null) {
            return Optional.empty();
        }
        for (DeliveryState s : values()) {
            if (s.name().equals(stored)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    public boolean worseThan(Optional<DeliveryState> other) {
        return other.isEmpty() || compareTo(other.get()) > 0;
    }
}
