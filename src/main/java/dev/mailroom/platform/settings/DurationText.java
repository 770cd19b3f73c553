package dev.mailroom.platform.settings;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax of Mailroom's settings: {@code 500ms}, {@code 5s}, {@code 15m}, {@code 1h}, {@code 2d}, or
 * ISO-8601 ({@code PT5S}, {@code P3D}). Every duration setting is read through this class, directly or through
 * {@link DurationConverter} for {@code @ConfigProperty Duration} fields.
 */
public final class DurationText {

    /** What {@link #parse} accepts, in the words an error message uses. */
    public static final String SYNTAX = "a duration such as 500ms, 5s, 15m, 1h, 2d or ISO-8601 PT5S, P3D";
    /** What {@link #parseList} accepts. */
    public static final String LIST_SYNTAX = "a comma-separated list of positive durations such as 5s,15s,30s"
            + " (500ms, 15m, 1h, 2d or ISO-8601 PT5S also accepted)";

    private static final Pattern SHORT = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    private DurationText() {
    }

    /** @throws IllegalArgumentException when {@code text} is none of the accepted forms */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(t.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not " + SYNTAX);
        }
    }

    /** A comma-separated list of positive durations ({@code 5s,15s,30s}). */
    public static List<Duration> parseList(String text) {
        List<Duration> out = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            if (part.isBlank()) {
                throw new IllegalArgumentException("'" + text + "' has an empty entry; expected e.g. 5s,15s,30s");
            }
            Duration d = parse(part);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("'" + part.trim() + "' in '" + text + "' is not positive");
            }
            out.add(d);
        }
        return out;
    }
}
