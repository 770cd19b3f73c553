/**
 * Work that must happen once when several Mailroom nodes share one database (the DLQ sweeper, the
 * dead-letter monitor with retention, the reconciliation job, taking over a dead node's redrive runs)
 * runs on the node that holds its lease: a {@code lease} row (V15) per name with its holder and expiry,
 * taken and renewed by a conditional update on the row's version, so exactly one node holds it; when the
 * holder dies its lease expires and another node takes it over. {@link LeaseRules} decides, from a
 * table; {@link LeaseTable} carries a decision out on one database session; {@link Leases} is what the
 * jobs ask ("is it my turn?"); {@link LeasedTimers} is the one timer-and-lease set-up of every such job
 * (a {@link LeasedWork}).
 *
 * <p>May use: platform.
 */
package dev.mailroom.platform.lease;
