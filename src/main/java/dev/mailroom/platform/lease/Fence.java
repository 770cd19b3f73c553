package dev.mailroom.platform.lease;

/** What {@link LeaseRules#fence} answers: whether a write guarded by a lease may go ahead on this node. */
public sealed interface Fence {

    /** This node still holds the lease as it took it: the write goes ahead. */
    record Holds(long token) implements Fence {
    }

    /** The lease moved (or was released) since this node took it: the write is not made. */
    record Lost(String why) implements Fence {
    }
}
