package dev.mailroom.stopline;

import dev.mailroom.job.Incoming;

/**
 * The send path as the probe needs it: handle one delivery of a send queue, exactly as its consumer would, in
 * the caller's transaction. Implemented in {@code send}; this package never imports it.
 */
public interface QueueHandler {
    void handle(Incoming delivery);
}
