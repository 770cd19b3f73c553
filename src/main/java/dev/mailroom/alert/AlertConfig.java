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
    private final dev.mailroom.platform.settings.SettingsReader settings;

    AlertConfig(Function<String, Optional<String>> lookup) {
        this.lookup = java.util.Objects.requireNonNull(lookup, "config");
        this.settings = new dev.mailroom.platform.settings.SettingsReader(lookup);
    }

    /** The trimmed value, empty when unset or blank (a blank default in a properties file means unset). */
    Optional<String> string(String key) {
        Optional<String> v = lookup.apply(key);
        return v == null ? Optional.empty() : v.map(String::trim).filter(s -> !s.isEmpty());
    }

    /** A positive duration. */
    Duration duration(String key, Duration dflt) {
        return settings.positiveDuration(dflt, key);
    }

    /** An int in {@code [min, max]}. */
    int integer(String key, int dflt, int min, int max) {
        return settings.integer(dflt, min, max, key);
    }

    /** A comma-separated list of reasons ({@code handler_error,unmapped_error}), lower-cased. */
    Set<String> reasons(String key, Set<String> dflt) {
        return settings.find(key).map(v -> v.as(AlertConfig::reasonList,
                "a comma-separated list of reason names such as handler_error,unmapped_error")).orElse(dflt);
    }

    private static Set<String> reasonList(String text) {
        Set<String> out = new LinkedHashSet<>();
        for (String part : text.split(",", -1)) {
            String r = part.trim().toLowerCase(Locale.ROOT);
            if (!r.matches("[a-z0-9_.-]+")) {
                throw new IllegalArgumentException("not a reason name: '" + part + "'");
            }
            out.add(r);
        }
        return Set.copyOf(out);
    }

    /** An absolute http or https URL. */
    Optional<java.net.URI> httpUrl(String key) {
        return settings.find(key).map(v -> v.as(AlertConfig::parseHttpUrl, "an http(s) URL with a host"));
    }

    private static java.net.URI parseHttpUrl(String text) {
        java.net.URI u = java.net.URI.create(text);
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
            throw new IllegalArgumentException("not an http(s) URL with a host");
        }
        return u;
    }

    /** A duration as people read it: {@code 5m}, {@code 1h30m}, {@code 72h}, {@code 500ms}. */
    static String text(Duration d) {
        if (d.isZero() || d.toMillis() < 1000) {
            return d.toMillis() + "ms";
        }
        return d.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString().substring(2).toLowerCase(Locale.ROOT);
    }

}
