package dev.mailroom.suppression;

/** Why an address is on the suppression list. */
public enum SuppressionReason {
    /** The provider reported a hard bounce for it. */
    hard_bounce,
    /** The recipient marked a mail as spam. */
    complaint,
    /** The provider itself suppressed it (its own list, an unsubscribe) and said so in an event. */
    provider_suppression,
    /** An operator put it there, saying why. */
    manual
}
