package dev.mailroom.alert;

import java.util.List;

/**
 * Where alerts go. Called by the dispatcher from its one ticking thread, never from the send path.
 * A sink either takes the whole list or throws: the dispatcher then keeps the list for that sink alone
 * and retries it later with backoff, while the other sinks carry on.
 */
public interface AlertSink {

    /** A short name for the log, e.g. {@code log} or {@code webhook http://alertmanager:9093/api/v2/alerts}. */
    String name();

    /**
     * Delivers {@code alerts}, in order.
     *
     * @throws Exception when they were not (all) delivered; they will be offered again
     */
    void deliver(List<Alert> alerts) throws Exception;
}
