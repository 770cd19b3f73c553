package dev.mailroom.reconcile;

import java.time.Duration;
import java.time.Instant;

/**
 * What {@link DeliveryWatch} does with a job due for a silence check that no provider event has reached: past its
 * provider's limit it is silent (reported once, never assumed failed); before it, the watch looks again when that
 * limit has passed. A job is due when its {@code silence_check_at} is at least the shortest limit of any provider
 * ago, so "look again" is stored as the instant that makes it due exactly when its own limit passes.
 */
public final class SilenceCheck {

    private SilenceCheck() {
    }

    /** The outcome for one job. */
    public sealed interface Verdict {

        /** Silent for {@code silentFor}, past {@code limit}: report it; nothing more to look for afterwards. */
        record Silent(Duration limit, Duration silentFor) implements Verdict {
        }

        /** Not yet past its limit: its {@code silence_check_at} becomes {@code checkAt}. */
        record LookAgain(Instant checkAt) implements Verdict {
        }
    }

    public static Verdict judge(Instant sentAt, Duration limit, Duration shortest, Instant now) {
        Instant silentFrom = sentAt.plus(limit);
        if (silentFrom.isAfter(now)) {
            return new Verdict.LookAgain(silentFrom.minus(shortest));
        }
        return new Verdict.Silent(limit, Duration.between(sentAt, now));
    }
}
