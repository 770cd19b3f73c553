package dev.mailroom.reconcile;

import java.time.Instant;

/** Refuses a body over {@code maxBytes} before the wrapped verifier parses or hashes anything. */
public record SizeLimited(int maxBytes, WebhookVerifier inner) implements WebhookVerifier {

    @Override
    public Verdict verify(WebhookRequest request, Instant now) {
        int size = request.body().length;
        if (size > maxBytes) {
            return Verdict.refused(Verdict.Reason.oversized, size + " bytes > " + maxBytes);
        }
        return inner.verify(request, now);
    }
}
