/**
 * Recoverability: what a failure is and what to do about it (README "When a send fails"), as plain Java with no
 * container, JPA or JMS, so every rule is unit-tested.
 *
 * <p>This package owns two decisions and the data behind them:
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
 *       and the jitter source are arguments.</li>
 * </ul>
 * It also holds the per-provider {@link dev.mailroom.recoverability.AimdRateLimiter} that throttling
 * feeds. It carries nothing out: the send consumer schedules the broker copy, records the attempt,
 * dead-letters or pauses, elsewhere.
 */
package dev.mailroom.recoverability;
