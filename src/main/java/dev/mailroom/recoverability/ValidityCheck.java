package dev.mailroom.recoverability;

import java.time.Duration;
import java.time.Instant;

/**
 * The one place that says whether a job's validity window is over: admission (before a send),
 * the recoverability policy (before a retry) and a redrive (before a replay) all ask here. Where
 * the window comes from ({@code expires_at}, a category's time-to-live) is {@code job.ValidityWindow}'s.
 */
public final class ValidityCheck {

    private ValidityCheck() {
    }

    /** Whether a job whose window ends at {@code expiresAt} (null: no window) may no longer be sent at {@code now}. */
    public static boolean expired(Instant expiresAt, Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    /** Whether a try {@code delay} from {@code now} still lands before the end of the window. */
    public static boolean landsInWindow(Duration delay, Instant expiresAt, Instant now) {
        return expiresAt == null || now.plus(delay).isBefore(expiresAt);
    }
}
