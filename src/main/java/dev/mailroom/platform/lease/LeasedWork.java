package dev.mailroom.platform.lease;

import java.time.Duration;

/**
 * Work that runs on a timer on the node holding its lease (the DLQ sweep, retention, reconciliation, taking
 * over a dead node's redrives). {@link LeasedTimers} gives every such bean its interval timer, waits for the
 * schema, takes the lease's turn and calls {@link #work} on the holder, {@link #idle} elsewhere; the bean
 * only says what to do (and in which transaction: it is called through its container proxy).
 *
 * <p>An EJB implementing this interface names both its views, {@code @LocalBean} (its own, for its other
 * callers) and {@code @Local(LeasedWork.class)}: with {@code @LocalBean} alone the interface is no business
 * interface, and {@link LeasedTimers} would find no such bean.
 */
public interface LeasedWork {

    /**
     * {@code lease}: its name, one node at a time does {@link #work} (also the timer's name); {@code interval}:
     * the time between two ticks, the first one interval after deployment.
     */
    record Schedule(String lease, Duration interval) {

        /** With the interval as an ISO-8601 duration (a configuration value). */
        public static Schedule of(String lease, Duration interval) {
            return new Schedule(lease, interval);
        }
    }

    /** Which lease, how often. */
    Schedule schedule();

    /** A tick on the node that holds the lease. */
    void work() throws Exception;

    /** A tick on a node that does not hold it: nothing, unless the work has a part every node does. */
    default void idle() {
    }
}
