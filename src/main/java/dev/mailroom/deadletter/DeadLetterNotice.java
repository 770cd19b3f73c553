package dev.mailroom.deadletter;

import java.time.Instant;

/**
 * CDI event: something about the dead letters an operator must hear about besides an arrival — the
 * oldest open one passing its age limit, or one nearing its retention expiry. Fired inside the
 * monitor's transaction; alerting observes it after success.
 */
public record DeadLetterNotice(Kind kind, String queue, String reason, String messageId, String summary,
                               java.time.Duration age, java.time.Duration limit, Instant retentionUntil, Instant at) {

    public enum Kind { OLDEST_AGE_EXCEEDED, RETENTION_EXPIRING }
}
