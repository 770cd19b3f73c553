package dev.mailroom.platform;

import java.util.Locale;

/**
 * Whether the broker's store disk lets producers in (a pure function of the broker's own figures,
 * {@link BrokerQueues.DiskFigures}): Artemis blocks every producer while its store disk's used share is above its
 * {@code max-disk-usage}, so jobs cannot be submitted (and a node cannot put a job back or schedule a retry) until
 * space returns. The health check's broker part says so, naming the broker and its journal directory: the disk an
 * operator must free.
 */
public final class BrokerDiskRule {

    private BrokerDiskRule() {
    }

    /** {@link HealthProbes#UP}, or {@code DOWN: ...} saying which disk is full and what that blocks. */
    public static String verdict(BrokerQueues.DiskFigures disk) {
        if (!(disk.usage() >= 0 && disk.limit() > 0) || disk.usage() <= disk.limit()) {
            return HealthProbes.UP; // unknown figures are no full disk; the queue figures say whether the broker answers
        }
        return String.format(Locale.ROOT, "DOWN: the disk of broker %s's store (journal %s) is %.0f%% full, above its"
                        + " max-disk-usage %.0f%%: the broker blocks every producer until space is freed",
                disk.broker(), disk.journal(), disk.usage() * 100, disk.limit() * 100);
    }
}
