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
     * Whether an attempt may be recorded as past its point of no return from its start, together with the
     * claim, instead of in a transaction of its own just before the call: true only where the call does no
     * connection work before its checkpoint that could fail harmlessly (the sandbox writes at once; the HTTP
     * provider connects after it) <em>and</em> the remote side drops a duplicate. Then an attempt whose worker
     * died between the claim and the call reads "may have reached the provider" and is sent again under its
     * idempotency key (it counts against the retry budget, as an ambiguous attempt does; only a redelivery that
     * a breaker sends to another provider of the chain holds it {@code unknown}, as it would a worker that died in
     * the call); a provider that cannot drop a duplicate (SMTP) keeps the separate point of no return, committed
     * just before the final ".". One commit less per job (bench/README.md, "Where a job's CPU goes"). Which plan a
     * send gets from this and the other traits is {@code recoverability.TransactionPlan.decide}'s.
     */
    default boolean irrevocableFromTheStart() {
        return false;
    }

    /**
     * Whether its "send" is a write in our own database, in the caller's transaction (the sandbox's outbox row):
     * then the claim, the attempt, that write and the outcome commit with the delivery or not at all, one commit per
     * job instead of three or four, and a rollback of the delivery takes the write back with the job's record of it
     * ({@code recoverability.TransactionPlan.InTheDelivery}). Never true for a provider that reaches another system.
     */
    default boolean writesInTheDeliveryTransaction() {
        return false;
    }

    /**
     * Sends one mail.
     *
     * @param checkpoint called exactly once, immediately before the first write after which the
     *                   remote side may have accepted the mail (SMTP: before the final "." of DATA;
     *                   HTTP: before the request is written). If it throws, nothing irrevocable has
     *                   been written and the exception propagates.
     */
    ProviderResponse send(OutboundMail mail, SendCheckpoint checkpoint);

    /**
     * The mapping table that classifies this provider's failed answers: its kind's ({@code smtp}, {@code http},
     * {@code sandbox}), also for a named instance of that kind.
     */
    default String mappingTable() {
        return name();
    }

    /** The table's profile for this instance (an HTTP API's {@code generic} or {@code resend}); empty: the table's default. */
    default java.util.Optional<String> mappingProfile() {
        return java.util.Optional.empty();
    }
}
