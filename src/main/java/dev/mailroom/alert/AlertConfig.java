package dev.mailroom.alert;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads {@code mailroom.alerts.*} values through a plain lookup (MicroProfile Config's
 * {@code getOptionalValue} in the server, a map in tests). Every value that cannot be used fails with
 * the key in the message, so a typo is found at deployment, not when the first alert is due.
 * Durations take the forms the rest of Mailroom's configuration takes: {@code 500ms}, {@code 10s},
 * {@code 5m}, {@code 1h}, {@code 2d} or ISO-8601 ({@code PT10S}).
 */
final class AlertConfig {

    static final String PREFIX = "mailroom.alerts.";


    private final Function<String, Optional<String>> lookup;

    AlertConfig(Function<String, Optional<String>> lookup) {
        this.lookup = java.util.Objects.requireNonNull(lookup, "config");
    }

    /** The trimmed value, empty when unset or blank (a blank default in a properties file means unset). */
    Optional<String> string(String key) {
        Optional<String> v = lookup.apply(key);
        return v == null ? Optional.empty() : v.map(String::trim).filter(s -> !s.isEmpty());
    }

    /** A positive duration. */
    Duration duration(String key, Duration dflt) {
        return string(key).map(v -> {
            Duration d;
            try {
                d = parseDuration(v);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
            }
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(key + ": '" + v + "' is not a positive duration");
            }
            return d;
        }).orElse(dflt);
    }

    /** An int in {@code [min, max]}. */
    int integer(String key, int dflt, int min, int max) {
        return string(key).map(v -> {
            int n;
            try {
                n = Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + ": '" + v + "' is not a whole number");
            }
            if (n < min || n > max) {
                throw new IllegalArgumentException(key + ": " + n + " is not between " + min + " and " + max);
            }
            return n;
        }).orElse(dflt);
    }

    /** A comma-separated list of reasons ({@code handler_error,unmapped_error}), lower-cased. */
    Set<String> reasons(String key, Set<String> dflt) {
        return string(key).map(v -> {
            Set<String> out = new LinkedHashSet<>();
            for (String part : v.split(",", -1)) {
                String r = part.trim().toLowerCase(Locale.ROOT);
                if (r.isEmpty()) {
                    throw new IllegalArgumentException(key + ": '" + v + "' has an empty entry; expected e.g. handler_error,unmapped_error");
                }
                if (!r.matches("[a-z0-9_.-]+")) {
                    throw new IllegalArgumentException(key + ": '" + part.trim() + "' is not a reason name");
                }
                out.add(r);
            }
            return Set.copyOf(out);
        }).orElse(dflt);
    }

    /** An absolute http or https URL. */
    Optional<java.net.URI> httpUrl(String key) {
        return string(key).map(v -> {
            try {
                java.net.URI u = new java.net.URI(v);
                String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
                if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
                    throw new IllegalArgumentException(key + ": '" + v + "' is not an http(s) URL with a host");
                }
                return u;
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException(key + ": '" + v + "' is not a URL: " + e.getMessage(), e);
            }
        });
    }

    /** A duration as people read it: {@code 5m}, {@code 1h30m}, {@code 72h}, {@code 500ms}. */
    static String text(Duration d) {
        if (d.isZero() || d.toMillis() < 1000) {
            return d.toMillis() + "ms";
        }
        return d.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString().substring(2).toLowerCase(Locale.ROOT);
    }

    static Duration parseDuration(String text) {
        return dev.mailroom.platform.settings.DurationText.parse(text);
    }
}
