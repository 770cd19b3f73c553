package dev.mailroom.reconcile;

import java.util.Random;

/**
 * The mix of provider event types the reconciliation tests post (the component test's random batches and
 * WebhookProofIT's 10,000 events): one table of types and weights, one weighted pick.
 */
public final class EventMix {

    public static final String[] TYPES = {"deferred", "delivered", "opened", "clicked", "bounced", "complained", "failed", "queued"};
    public static final int[] WEIGHTS = {30, 40, 10, 5, 9, 2, 2, 2};

    private EventMix() {
    }

    /** One type, drawn with its weight. */
    public static String pick(Random random) {
        int total = 0;
        for (int w : WEIGHTS) {
            total += w;
        }
        int r = random.nextInt(total);
        for (int i = 0; i < TYPES.length; i++) {
            r -= WEIGHTS[i];
            if (r < 0) {
                return TYPES[i];
            }
        }
        throw new IllegalStateException();
    }
}
