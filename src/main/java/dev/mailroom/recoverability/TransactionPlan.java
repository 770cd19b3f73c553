package dev.mailroom.recoverability;

/**
 * Which transactions carry one send: where the ledger's steps (the claim and attempt, the point of no return, the
 * acceptance or the failure) commit. Decided by {@link #decide} from what the provider says of itself, before the claim;
 * the send path only carries it out. Every plan keeps the rule that a write which cannot be taken back is preceded by a
 * durable record of it; they differ in how many commits that takes.
 */
public sealed interface TransactionPlan {

    /**
     * Whether the ledger's steps commit in transactions of their own ({@code REQUIRES_NEW}: durable whatever befalls
     * the delivery afterwards), or in the delivery's own transaction ({@code MANDATORY}: they commit with its
     * acknowledgement, or not at all).
     */
    default boolean ledgerCommitsOnItsOwn() {
        return !(this instanceof InTheDelivery);
    }

    /**
     * Whether the attempt is recorded past its point of no return with the claim, so that the call's checkpoint has
     * nothing left to commit.
     */
    default boolean irrevocableFromTheStart() {
        return !(this instanceof ClaimThenCheckpoint);
    }

    /**
     * Four commits per job (SMTP; HTTP without an idempotency header): the claim and attempt, then the point of no
     * return just before the write that passes it (SMTP's final "." comes after connect, EHLO and RCPT, which fail
     * harmlessly: a worker dying there must leave an attempt that never reached the provider), the acceptance, the
     * delivery.
     */
    record ClaimThenCheckpoint() implements TransactionPlan {
    }

    /**
     * Three commits per job (HTTP with an idempotency header): the attempt is past its point of no return from the
     * claim on, since nothing harmless comes between them and the provider drops a duplicate; the acceptance and the
     * delivery follow.
     */
    record ClaimIrrevocable() implements TransactionPlan {
    }

    /**
     * One commit per job (the sandbox): the provider's "send" is a row of our own database written in the delivery's
     * transaction, so the claim, the attempt, the provider's write and the outcome commit together with the
     * acknowledgement or not at all. There is no point of no return to make durable first (a rollback takes the
     * provider's write back too), and no outcome a redelivery could find half-recorded: a job says sent exactly when
     * the provider's write committed. The attempt is still marked irrevocable from its start, in that same
     * transaction, for what it says once committed: its call may have written (a call that timed out after writing
     * commits its row with the failure, and a retry under the same key finds it).
     */
    record InTheDelivery() implements TransactionPlan {
    }

    /**
     * What the plan is decided from: what the provider says of itself.
     *
     * @param writesInTheDeliveryTransaction  its write is a row of our own database in the caller's transaction
     *                                        ({@code MailProvider.writesInTheDeliveryTransaction}, the sandbox)
     * @param irrevocableFromTheStart         it does no connection work before its checkpoint that could fail
     *                                        harmlessly ({@code MailProvider.irrevocableFromTheStart})
     * @param dedupesByIdempotencyKey         it drops a second request with the same idempotency key
     */
    record Facts(boolean writesInTheDeliveryTransaction, boolean irrevocableFromTheStart,
                 boolean dedupesByIdempotencyKey) {
    }

    /**
     * The plan for a send to a provider with these facts:
     * <ol>
     *   <li>a provider that writes in the delivery's transaction: {@link InTheDelivery}, whatever else it says (its
     *       write cannot outlive a rollback, so nothing needs committing before it or apart from the delivery);</li>
     *   <li>one whose checkpoint comes first and that drops a duplicate: {@link ClaimIrrevocable} (a worker dying
     *       between the claim and the call leaves an attempt that "may have reached the provider", which it may
     *       safely be sent again under the same key);</li>
     *   <li>any other, including one that says its checkpoint comes first but cannot drop a duplicate (that attempt
     *       would end {@code unknown} for a mail never sent): {@link ClaimThenCheckpoint}.</li>
     * </ol>
     */
    static TransactionPlan decide(Facts facts) {
        if (facts.writesInTheDeliveryTransaction()) {
            return new InTheDelivery();
        }
        if (facts.irrevocableFromTheStart() && facts.dedupesByIdempotencyKey()) {
            return new ClaimIrrevocable();
        }
        return new ClaimThenCheckpoint();
    }
}
