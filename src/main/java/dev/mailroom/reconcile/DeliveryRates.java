package dev.mailroom.reconcile;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The pure judgement of bounce and complaint rates, table-tested in {@code DeliveryRatesTest}:
 * given the recipients sent per queue and tenant in the window and how many of them bounced or complained,
 * which rates are over their threshold, and which of those have just crossed it (the ones to page about).
 * Below {@code minSent} recipients a rate is not judged: one bounce of three mails is not a reputation problem.
 */
public final class DeliveryRates {

    private DeliveryRates() {
    }

    /** The thresholds, as fractions (0.001 = 0.1 %). */
    public record Thresholds(double bounce, double complaint, long minSent) {
    }

    /** One queue and tenant's counts over the window. */
    public record Counts(String queue, String tenant, long sent, long bounced, long complained) {
    }

    /** A rate over its threshold; {@code crossed}: it was not over it at the last judgement. */
    public record Breach(String kind, Counts counts, long count, double rate, double threshold, boolean crossed) {
        /** The identity of what breaches, to remember between judgements. */
        public String key() {
            return kind + "|" + counts.queue() + "|" + counts.tenant();
        }
    }

    public static double rate(long count, long sent) {
        return sent == 0 ? 0 : (double) count / sent;
    }

    /** @param breachingBefore the {@link Breach#key()}s that were over their threshold at the last judgement */
    public static List<Breach> judge(List<Counts> counts, Thresholds t, Set<String> breachingBefore) {
        List<Breach> out = new ArrayList<>();
        for (Counts c : counts) {
            if (c.sent() < t.minSent()) {
                continue;
            }
            over("bounce", c, c.bounced(), t.bounce(), breachingBefore, out);
            over("complaint", c, c.complained(), t.complaint(), breachingBefore, out);
        }
        return out;
    }

    private static void over(String kind, Counts c, long count, double threshold, Set<String> before, List<Breach> out) {
        double rate = rate(count, c.sent());
        if (rate > threshold) {
            String key = kind + "|" + c.queue() + "|" + c.tenant();
            out.add(new Breach(kind, c, count, rate, threshold, !before.contains(key)));
        }
    }
}
