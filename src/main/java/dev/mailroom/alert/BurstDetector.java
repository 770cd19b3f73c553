package dev.mailroom.alert;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;

/**
 * Finds bursts: {@code threshold} dead letters of one (queue, reason) within a sliding {@code window},
 * reported once per window, not once per arrival past the threshold.
 *
 * <p>Per (queue, reason) it keeps the times of the last {@code threshold} arrivals in a ring: a burst is
 * there exactly when the oldest of them is less than a window old. This is a true sliding window (a
 * burst that straddles a fixed window boundary is still found) in memory bounded by the threshold.
 * After a report that (queue, reason) stays quiet for one window; if the burst goes on it is reported
 * again then, so a burst of an hour is twelve pages at a 5-minute window, not 5,000.
 *
 * <p>Not thread-safe: the dispatcher calls it from its one ticking thread. Time is passed in.
 */
public final class BurstDetector {

    private final int threshold;
    private final long windowMillis;
    private final Map<Key, Ring> rings = new HashMap<>();

    public BurstDetector(int threshold, Duration window) {
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be >= 1: " + threshold);
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive: " + window);
        }
        this.threshold = threshold;
        this.windowMillis = window.toMillis();
    }

    /**
     * Counts one dead letter of (queue, reason) at {@code now}.
     *
     * @return true when this arrival completes a burst that has not been reported in the last window
     */
    public boolean arrival(String queue, String reason, Instant now) {
        long t = now.toEpochMilli();
        Ring r = rings.computeIfAbsent(new Key(queue, reason), k -> new Ring(threshold));
        r.add(t);
        if (r.full() && t - r.oldest() < windowMillis && t >= r.quietUntil) {
            r.quietUntil = t + windowMillis;
            return true;
        }
        return false;
    }

    /**
     * Forgets every (queue, reason) without an arrival for a window and not in its quiet time: they can
     * not be part of a burst any more, so the map holds only what is active.
     */
    public void forgetIdle(Instant now) {
        long t = now.toEpochMilli();
        for (Iterator<Ring> it = rings.values().iterator(); it.hasNext(); ) {
            Ring r = it.next();
            if (t - r.newest() >= windowMillis && t >= r.quietUntil) {
                it.remove();
            }
        }
    }

    /** How many (queue, reason) pairs are tracked right now. */
    public int tracked() {
        return rings.size();
    }

    private record Key(String queue, String reason) {
        Key {
            Objects.requireNonNull(queue, "queue");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** The last {@code n} arrival times, oldest overwritten first. */
    private static final class Ring {
        final long[] times;
        int next;
        int size;
        long quietUntil = Long.MIN_VALUE;

        Ring(int n) {
            times = new long[n];
        }

        void add(long t) {
            times[next] = t;
            next = (next + 1) % times.length;
            size = Math.min(size + 1, times.length);
        }

        boolean full() {
            return size == times.length;
        }

        /** When full, the slot written next is the oldest. */
        long oldest() {
            return times[next];
        }

        long newest() {
            return times[(next - 1 + times.length) % times.length];
        }
    }
}
