package dev.mailroom.reconcile;

import java.time.Instant;

/** Decides whether a webhook call is genuine, fresh and new. Implementations are pure apart from their replay memory. */
public interface WebhookVerifier {

    Verdict verify(WebhookRequest request, Instant now);
}
