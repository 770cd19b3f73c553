package dev.mailroom.provider;

/**
 * One way of handing a mail to the outside world (SMTP, an HTTP API, the sandbox).
 *
 * <p>A provider never throws for what the remote side said or for a network fault: it returns a
 * {@link ProviderResponse} that says what happened, verbatim and bounded, so that the
 * recoverability core can classify it. Exceptions are left for bugs in our own code.
 */
public interface MailProvider {

    /** The provider's name as recorded on attempts and metrics ({@code sandbox}, {@code smtp}, {@code http}). */
    String name();

    /**
     * Whether the remote side itself drops a second request with the same idempotency key. Where it
     * does (HTTP APIs with an idempotency header), an ambiguous attempt may be retried with the same
     * key; where it does not (SMTP), an ambiguous attempt is never repeated automatically.
     */
    boolean dedupesByIdempotencyKey();

    /**
     * Sends one mail.
     *
     * @param checkpoint called exactly once, immediately before the first write after which the
     *                   remote side may have accepted the mail (SMTP: before the final "." of DATA;
     *                   HTTP: before the request is written). If it throws, nothing irrevocable has
     *                   been written and the exception propagates.
     */
    ProviderResponse send(OutboundMail mail, SendCheckpoint checkpoint);
}
