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

    /**
     * A lease row as read: {@code holder} null when nobody holds it (never taken, or released); {@code token} the
     * version at which the holder took it (a renewal keeps it): what {@link #fence} compares.
     */
    public record Row(String name, String holder, Instant expiresAt, long version, long token) {
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

    /**
     * Whether {@code node}, which took the lease with {@code token} (0: it never held it), may still write under it,
     * the row read under its lock in the transaction of that write:
     * <ul>
     *   <li>nobody holds it (released), or another node does: {@link Fence.Lost};</li>
     *   <li>{@code node} holds it with another token (it lost the lease and took it again since): {@link Fence.Lost},
     *       the work begun under the old token is not this tenure's;</li>
     *   <li>{@code node} holds it with {@code token}: {@link Fence.Holds}, expired or not: nobody took it over, and
     *       the row's lock keeps anyone from doing so before the write commits.</li>
     * </ul>
     * Not the monotonic clock {@link Leases} trusts before a tick: a node stopped in the middle of its work (a long
     * pause) resumes the work without asking again, and only the row says whether the lease moved meanwhile.
     */
    public static Fence fence(Row row, String node, long token) {
        Objects.requireNonNull(node, "node");
        if (row.holder() == null) {
            return new Fence.Lost(row.name() + " is free (released or never taken)");
        }
        if (!row.holder().equals(node)) {
            return new Fence.Lost(row.name() + " is held by " + row.holder() + " since version " + row.token());
        }
        if (token == 0 || row.token() != token) {
            return new Fence.Lost(row.name() + " was taken again by " + node + " at version " + row.token()
                    + "; this work began under " + (token == 0 ? "no hold" : "version " + token));
        }
        return new Fence.Holds(token);
    }
}
