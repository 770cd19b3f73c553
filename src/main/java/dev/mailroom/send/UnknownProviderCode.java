package dev.mailroom.send;

import java.time.Instant;

/**
 * A provider answered with a code no mapping table covers: somebody must look at it and add a row.
 * Fired (synchronously, outside any rule) by the send path; the alert side turns it into an alert.
 */
public record UnknownProviderCode(String provider, String code, String queue, String messageId, Instant at) {
}
