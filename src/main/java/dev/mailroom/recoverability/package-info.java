/**
 * Recoverability: what a failure is and what to do about it (docs/how-it-works.md "When a send fails"), as plain Java with no
 * container, JPA or JMS, so every rule is unit-tested.
 *
 * <p>This package owns four decisions and the data behind them:
 * <ul>
 *   <li><b>Classification.</b> {@link dev.mailroom.recoverability.FailureClassifier} turns a provider's
 *       {@link dev.mailroom.provider.ProviderResponse} into a {@link dev.mailroom.recoverability.Failure}
 *       of one {@link dev.mailroom.recoverability.FailureClass}, by per-provider
 *       {@link dev.mailroom.recoverability.MappingTables} loaded from
 *       {@code recoverability/provider-mappings.json} (configuration, not code). Poison jobs and our own
 *       exceptions become failures through {@code Failure.poison} and {@code Failure.internal}.</li>
 *   <li><b>The decision.</b> {@link dev.mailroom.recoverability.RecoverabilityPolicy#decide} returns one
 *       {@link dev.mailroom.recoverability.RecoveryAction} (ack, retry, throttle, dead-letter, discard,
 *       pause) from the failure, the job's {@link dev.mailroom.recoverability.AttemptHistory}, the send
 *       queue's {@link dev.mailroom.recoverability.RetryPolicy} and the validity window. Pure: the clock
 *       and the jitter source are arguments. An {@code ambiguous} failure is resent only to a provider
 *       that drops duplicates ({@link dev.mailroom.recoverability.ProviderTraits#mayResendAmbiguous()}); to SMTP
 *       it is {@code Ack(unknown)}.</li>
 *   <li><b>Admission.</b> {@link dev.mailroom.recoverability.AdmissionPolicy#decide} says, before a send, whether
 *       a delivery goes on ({@link dev.mailroom.recoverability.Admission}: poison, already finished, duplicate
 *       message, unknown after a crash by the same ambiguity rule, expired, put back for the rate limit, proceed),
 *       and {@link dev.mailroom.recoverability.AdmissionPolicy#claim} whether an idempotency key held by another
 *       job moves over. The ledger gathers the facts and records the decision. Whether a validity window is over
 *       is {@link dev.mailroom.recoverability.ValidityCheck}'s alone.</li>

 *   <li><b>The transaction plan.</b> {@link dev.mailroom.recoverability.TransactionPlan#decide} says, from what the
 *       provider says of itself, which of the ledger's steps commit on their own and which with the delivery: a
 *       separate point of no return (SMTP), the claim irrevocable (HTTP with an idempotency header), or everything
 *       in the delivery's transaction (the sandbox, whose write is a row of our own database).</li>
 * </ul>
 * It also holds the per-provider {@link dev.mailroom.recoverability.AimdRateLimiter} that throttling
 * feeds. It carries nothing out: the send consumer schedules the broker copy, records the attempt,
 * dead-letters or pauses, elsewhere.
 *
 * <p>May use: platform, provider (its answers; never an adapter: ArchitectureTest).
 */
package dev.mailroom.recoverability;
