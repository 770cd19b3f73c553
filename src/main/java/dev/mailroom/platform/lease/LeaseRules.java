package dev.mailroom.platform.lease;

import java.time.Instant;
import java.util.Objects;

/**
 * Who may hold a lease, decided from the lease's row as read and the database's time. A pure function:
 * the table in {@code LeaseRulesTest} is the whole of it. The caller carries the decision out with an
 * update conditional on the row's {@code version} as read, so of two nodes deciding on the same row at
 * once only one succeeds; the other finds the row changed and keeps away.
 */
public final class LeaseRules {

    private LeaseRules() {
    }

    /** A lease row as read: {@code holder} null when nobody holds it (never taken, or released). */
    public record Row(String name, String holder, Instant expiresAt, long version) {
        public Row {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }
    }

    /**
     * What {@code node} does about {@code row} at {@code now} (the database's time, the same for every node):
     * <ul>
     *   <li>nobody holds it: {@link LeaseAction.Take};</li>
     *   <li>{@code node} holds it, expired or not (nobody else took it meanwhile): {@link LeaseAction.Renew};</li>
     *   <li>another node holds it until after {@code now}: {@link LeaseAction.KeepAway};</li>
     *   <li>another node held it and it expired (the holder died or lost the database): {@link LeaseAction.TakeOver}.</li>
     * </ul>
     */
    public static LeaseAction decide(Row row, String node, Instant now) {
        Objects.requireNonNull(node, "node");
        if (row.holder() == null) {
            return new LeaseAction.Take(row.version());
        }
        if (row.holder().equals(node)) {
            return new LeaseAction.Renew(row.version());
        }
        if (row.expiresAt().isAfter(now)) {
            return new LeaseAction.KeepAway(row.holder(), row.expiresAt());
        }
        return new LeaseAction.TakeOver(row.holder(), row.expiresAt(), row.version());
    }
}
