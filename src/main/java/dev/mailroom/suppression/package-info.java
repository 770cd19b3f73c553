/**
 * The suppression list (docs/delivery-events.md): per tenant, the addresses Mailroom does not mail again because they
 * hard-bounced, complained, were suppressed by the provider, or an operator put them there.
 *
 * <p>{@link dev.mailroom.suppression.SuppressionList} keeps it: entries added by the reconciliation (a bounce, a
 * complaint or a provider's own suppression applied to a job) and by operators, and lifted, never deleted —
 * the rows are their own audit trail (who, why, when, what caused it). The send path does not call up into
 * this package: the ledger reads the {@code suppression} table for its facts and the pure
 * {@code recoverability.SuppressionPolicy} decides which recipients are withheld.
 *
 * <p>May use: platform, job.
 */
package dev.mailroom.suppression;
