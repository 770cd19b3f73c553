/**
 * Dead letters: the per-queue DLQ copy with its envelope ({@code mr_*} properties), the
 * {@code dead_letter} record an operator queries, and (later) the sweeper, alerts, metrics and
 * retention. Owns nothing of the decision to dead-letter: that is {@code recoverability}'s.
 */
package dev.mailroom.deadletter;
