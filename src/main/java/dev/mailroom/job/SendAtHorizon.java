package dev.mailroom.job;

import dev.mailroom.contract.SendAtRule;
import dev.mailroom.platform.settings.SettingsReader;
import java.time.Duration;
import java.time.Instant;

/**
 * How far ahead a job's {@code send_at} may be ({@value SendAtRule#SETTING}, a positive duration, default
 * {@code P30D}), read once at deployment, and the door's decision with it ({@link SendAtRule}).
 *
 * @param horizon the furthest a send time may be ahead of the job's arrival
 */
public record SendAtHorizon(Duration horizon) {

    /** @throws IllegalArgumentException naming the key of a value that is not a positive duration */
    public static SendAtHorizon read(SettingsReader settings) {
        return new SendAtHorizon(settings.positiveDuration(SendAtRule.DEFAULT_HORIZON, SendAtRule.SETTING));
    }

    /** The rule's decision on {@code job} arriving at {@code now}. */
    public SendAtRule.Decision decide(SendJob job, Instant now) {
        return SendAtRule.decide(job.sendAt(), horizon, now);
    }
}
