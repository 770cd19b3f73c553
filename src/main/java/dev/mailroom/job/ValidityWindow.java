package dev.mailroom.job;

import java.time.Duration;
import java.time.Instant;
import dev.mailroom.platform.settings.DurationText;
import dev.mailroom.platform.settings.SettingsReader;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * When a job stops being worth sending: its own {@code expires_at}, or else the time-to-live of its
 * {@code category} (a password reset is useful for minutes, an invoice for days), or else the default
 * time-to-live, counted from receipt or from a later {@code send_at}. Nothing is sent, and no retry is scheduled, past it.
 *
 * <p>Configuration: {@code mailroom.validity.ttl.<category>} and {@code mailroom.validity.default-ttl},
 * durations ({@code 15m}, {@code 3d}, ISO-8601 {@code PT15M}); a default of {@code none} means "no window". Each key is
 * read once; every key the configuration lists is read at deployment ({@link #check}).
 */
public final class ValidityWindow {

    static final String TTL_PREFIX = "mailroom.validity.ttl.";
    static final String DEFAULT_TTL = "mailroom.validity.default-ttl";

    private final SettingsReader config;
    private final Map<String, Optional<Duration>> read = new ConcurrentHashMap<>();

    public ValidityWindow(Function<String, Optional<String>> config) {
        this.config = new SettingsReader(config);
    }

    /** Reads the default and every category's time-to-live among {@code keys} (the configuration's names). */
    public void check(Iterable<String> keys) {
        duration(DEFAULT_TTL);
        for (String key : keys) {
            if (key.startsWith(TTL_PREFIX)) {
                duration(key);
            }
        }
    }

    /**
     * The instant the job expires, or null when it has no window at all. A time-to-live counts from the job's
     * {@code send_at} when that is later than its receipt: it says how long a mail stays worth sending once it is
     * meant to go, so a reminder scheduled a week ahead is not expired by a three-day default before its time.
     */
    public Instant expiresAt(SendJob job, Instant receivedAt) {
        if (job.expiresAt() != null) {
            return job.expiresAt();
        }
        Optional<Duration> ttl = Optional.empty();
        if (job.category() != null && !job.category().isBlank()) {
            ttl = duration(TTL_PREFIX + job.category());
        }
        if (ttl.isEmpty()) {
            ttl = duration(DEFAULT_TTL);
        }
        Instant from = job.sendAt() != null && job.sendAt().isAfter(receivedAt) ? job.sendAt() : receivedAt;
        return ttl.map(from::plus).orElse(null);
    }

    /**
     * A key's time-to-live, kept once read when the configuration has the key. A category nobody configured is
     * looked up each time and not kept: categories come from producers, and keeping every one a job names would
     * let a stream of odd categories grow this map without bound.
     */
    private Optional<Duration> duration(String key) {
        Optional<Duration> known = read.get(key);
        if (known != null) {
            return known;
        }
        Optional<SettingsReader.Value> value = config.find(key);
        Optional<Duration> d = value.filter(v -> !v.text().equalsIgnoreCase("none")).map(v -> v.positiveDuration());
        if (value.isPresent()) {
            read.put(key, d);
        }
        return d;
    }
}
