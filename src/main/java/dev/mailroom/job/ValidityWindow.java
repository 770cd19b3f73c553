package dev.mailroom.job;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Function;

/**
 * When a job stops being worth sending: its own {@code expires_at}, or else the time-to-live of its
 * {@code category} (a password reset is useful for minutes, an invoice for days), or else the default
 * time-to-live. Nothing is sent, and no retry is scheduled, past it.
 *
 * <p>Configuration: {@code mailroom.validity.ttl.<category>} and {@code mailroom.validity.default-ttl},
 * ISO-8601 durations ({@code PT15M}, {@code P3D}); a default of {@code none} means "no window".
 */
public final class ValidityWindow {

    private final Function<String, Optional<String>> config;

    public ValidityWindow(Function<String, Optional<String>> config) {
        this.config = config;
    }

    /** The instant the job expires, or null when it has no window at all. */
    public Instant expiresAt(SendJob job, Instant receivedAt) {
        if (job.expiresAt() != null) {
            return job.expiresAt();
        }
        Optional<Duration> ttl = Optional.empty();
        if (job.category() != null && !job.category().isBlank()) {
            ttl = duration("mailroom.validity.ttl." + job.category());
        }
        if (ttl.isEmpty()) {
            ttl = duration("mailroom.validity.default-ttl");
        }
        return ttl.map(receivedAt::plus).orElse(null);
    }

    private Optional<Duration> duration(String key) {
        Optional<String> value = config.apply(key).map(String::trim).filter(s -> !s.isEmpty());
        if (value.isEmpty() || value.get().equalsIgnoreCase("none")) {
            return Optional.empty();
        }
        try {
            Duration d = Duration.parse(value.get());
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(key + " must be a positive duration, not " + value.get());
            }
            return Optional.of(d);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(key + " is not an ISO-8601 duration (e.g. PT15M, P3D): " + value.get(), e);
        }
    }
}
