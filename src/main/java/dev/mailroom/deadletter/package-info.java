/**
 * Dead letters: the per-queue DLQ copy with its envelope ({@code mr_*} properties), the
 * {@code dead_letter} record an operator queries and filters (one filter, {@link dev.mailroom.deadletter.DeadLetterFilter},
 * for the list, its groups and redrive plans), the sweeper of broker-routed dead letters, the
 * monitor (retention, the oldest open one, metrics) and the counts. Owns nothing of the decision to dead-letter:
 * that is {@code recoverability}'s; the arrival is an event {@code alert} and {@code stopline} observe.
 *
 * <p>May use: contract, platform, job.
 */
package dev.mailroom.deadletter;
