package dev.mailroom.contract;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Whether a job's {@code send_at} is accepted at the door: one further ahead than the horizon is refused as poison
 * ({@link RejectReason#send_at_beyond_horizon}), so a typo of a year does not park a mail on the broker for a year.
 * How far the horizon reaches is the server's setting ({@value #SETTING}); this is the decision alone. A past or
 * present {@code send_at} is accepted (it sends now); one after {@code expires_at} is the contract's own refusal
 * ({@link JobContract}), as both are in the job.
 */
public final class SendAtRule {

    /** The setting: how far ahead a {@code send_at} may be, a duration. */
    public static final String SETTING = "mailroom.send-at.horizon";
    /** The horizon when nothing is configured. */
    public static final Duration DEFAULT_HORIZON = Duration.ofDays(30);

    private SendAtRule() {
    }

    /** The decision on one job. */
    public sealed interface Decision {
    }

    /** The job may go on: now, or at its time. */
    public record Allowed() implements Decision {
    }

    /** The job is refused; {@code violation} is its detail, {@code <path>: <what>} like any contract violation. */
    public record Refused(RejectReason reason, String violation) implements Decision {
    }

    /**
     * @param sendAt  the job's {@code send_at}, null when it has none
     * @param horizon how far ahead of {@code now} a send time may be
     * @param now     the time of the decision
     */
    public static Decision decide(Instant sendAt, Duration horizon, Instant now) {
        Objects.requireNonNull(horizon, "horizon");
        Objects.requireNonNull(now, "now");
        if (sendAt == null || !sendAt.isAfter(now.plus(horizon))) {
            return new Allowed();
        }
        return new Refused(RejectReason.send_at_beyond_horizon, "/send_at: " + sendAt + " is further ahead than "
                + SETTING + " (" + horizon + " from " + now + "); send it closer to its time");
    }
}
