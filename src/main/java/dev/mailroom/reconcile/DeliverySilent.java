package dev.mailroom.reconcile;

import java.time.Duration;
import java.time.Instant;

/**
 * A job is still {@code sent_to_provider} longer than its provider's limit after it was sent, and no event of
 * the provider has spoken of it: the webhooks may be misconfigured, or the provider lost the mail. It is
 * never assumed failed; an operator looks. Fired once per job (synchronously) by {@link DeliveryWatch}; the
 * alert side turns it into an alert.
 */
public record DeliverySilent(String provider, String queue, String messageId, long jobId, Instant sentAt,
                             Duration limit, Instant at) {
}
