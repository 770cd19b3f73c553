package dev.mailroom.it.support;

import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * How far the mails of the keys that did not wait fell behind the mails sent next to them, in one run of a
 * {@link KeyedLoad}: for each such mail, its arrival at the relay minus the median arrival of the other such mails
 * sent within {@code window} positions of it.
 *
 * <p>Why this measures "held up by the waiting keys": the broker gives each key (its JMS group) to one consumer. A
 * waiting job that kept its consumer busy (sleeping until its turn, or rolled back and redelivered over and over)
 * would stop every other key of that consumer while the rest go on, so those keys' mails would arrive later than the
 * mails sent next to them, by about the time the consumer was held. What a loaded machine does to a run (a slow
 * second, a collection pause, the JIT) slows the mails sent next to each other alike and cancels out, so the figure
 * holds on a shared 2-core machine where two runs of the same load differ by seconds. It does not see a uniform
 * slowdown of every consumer; the waiting keys' own work (their refused attempts, their waits recorded, their sends
 * once released) is a few percent of a run's.
 */
public final class KeyLag {

    private KeyLag() {
    }

    /**
     * The lags of the mails of keys not in {@code waiting}, in milliseconds, in the order they were sent. The window
     * is symmetric, so it narrows at both ends of the run (the last mail has no later neighbour to compare with).
     */
    public static long[] lagsMillis(List<KeyedLoad.Arrival> arrivals, Set<Integer> waiting, int window) {
        KeyedLoad.Arrival[] others = arrivals.stream().filter(a -> !waiting.contains(a.key()))
                .sorted(Comparator.comparingInt(KeyedLoad.Arrival::position)).toArray(KeyedLoad.Arrival[]::new);
        int[] positions = Arrays.stream(others).mapToInt(KeyedLoad.Arrival::position).toArray();
        long[] lags = new long[others.length];
        for (int i = 0; i < others.length; i++) {
            int p = positions[i];
            int w = Math.min(window, Math.min(p - positions[0], positions[positions.length - 1] - p));
            int from = firstAtLeast(positions, p - w);
            int to = firstAtLeast(positions, p + w + 1);
            long[] near = new long[to - from];
            for (int j = from; j < to; j++) {
                near[j - from] = others[j].at().toEpochMilli();
            }
            Arrays.sort(near);
            lags[i] = others[i].at().toEpochMilli() - near[(near.length - 1) / 2];
        }
        return lags;
    }

    /** The index of the first of the ascending {@code positions} that is at least {@code p}. */
    private static int firstAtLeast(int[] positions, int p) {
        int at = Arrays.binarySearch(positions, p);
        return at >= 0 ? at : -at - 1;
    }

    /** The {@code share} quantile (0..1) of {@code lags}: the lag that share of the mails was at most. */
    public static Duration quantile(long[] lags, double share) {
        long[] sorted = lags.clone();
        Arrays.sort(sorted);
        int at = Math.max(0, (int) Math.ceil(share * sorted.length) - 1);
        return Duration.ofMillis(sorted[at]);
    }
}
