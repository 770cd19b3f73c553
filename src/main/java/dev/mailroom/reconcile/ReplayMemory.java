package dev.mailroom.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Delivery ids already accepted, remembered for as long as a call carrying them could still pass the
 * timestamp check; older ones are forgotten (a replay of them is refused as stale instead). Per node: the
 * {@code provider_event} dedupe key is what makes a replay across nodes a no-op.
 */
public final class ReplayMemory {

    private final Duration window;
    private final Map<String, Instant> seen = new HashMap<>();

    public ReplayMemory(Duration window) {
        this.window = window;
    }

    /** Remembers {@code id} and answers true, or answers false when it is already remembered. */
    public synchronized boolean firstSighting(String id, Instant now) {
        for (Iterator<Instant> it = seen.values().iterator(); it.hasNext(); ) {
            if (it.next().plus(window).isBefore(now)) {
                it.remove();
            }
        }
        return seen.putIfAbsent(id, now) == null;
    }
}
