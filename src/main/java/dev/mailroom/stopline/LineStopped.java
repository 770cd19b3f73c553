package dev.mailroom.stopline;

import java.time.Instant;

/** CDI event: a send queue's line stopped (its consumers are being paused); the alert side pages on it. */
public record LineStopped(String queue, String reason, String detail, Instant since) {
}
