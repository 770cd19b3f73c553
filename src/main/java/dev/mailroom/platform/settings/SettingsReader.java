package dev.mailroom.platform.settings;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Typed reads of Mailroom's settings over a plain lookup (MicroProfile Config's {@code getOptionalValue} in the
 * server, a map in tests). A blank value counts as absent; a value that cannot be used is an {@link InvalidSetting}
 * naming the key it came from, the value and the accepted syntax. Concerns build their settings records with it once,
 * at deployment ({@link CheckedAtBoot}).
 */
public final class SettingsReader {

    private final Function<String, Optional<String>> source;

    public SettingsReader(Function<String, Optional<String>> source) {
        this.source = source;
    }

    public static SettingsReader of(Map<String, String> values) {
        return new SettingsReader(key -> Optional.ofNullable(values.get(key)));
    }

    /** The raw lookup, for code that still takes one. */
    public Function<String, Optional<String>> lookup() {
        return key -> find(key).map(Value::text);
    }

    /** The value of the first of {@code keys} that has one (a queue's own key before {@code default}'s). */
    public Optional<Value> find(String... keys) {
        for (String key : keys) {
            Optional<String> v = source.apply(key);
            if (v != null && v.isPresent() && !v.get().isBlank()) {
                return Optional.of(new Value(key, v.get().trim()));
            }
        }
        return Optional.empty();
    }

    public Optional<String> text(String... keys) {
        return find(keys).map(Value::text);
    }

    public Duration duration(Duration fallback, String... keys) {
        return find(keys).map(Value::duration).orElse(fallback);
    }

    public Duration positiveDuration(Duration fallback, String... keys) {
        return find(keys).map(Value::positiveDuration).orElse(fallback);
    }

    public int integer(int fallback, int min, int max, String... keys) {
        return find(keys).map(v -> v.integer(min, max)).orElse(fallback);
    }

    public long longInteger(long fallback, long min, long max, String... keys) {
        return find(keys).map(v -> v.longInteger(min, max)).orElse(fallback);
    }

    public double decimal(double fallback, double min, double max, String... keys) {
        return find(keys).map(v -> v.decimal(min, max)).orElse(fallback);
    }

    public boolean bool(boolean fallback, String... keys) {
        return find(keys).map(Value::bool).orElse(fallback);
    }

    /** One configured value: where it came from and its text, with the typed readings of it. */
    public record Value(String key, String text) {

        /** {@code parser}'s reading of the text; any exception it throws becomes an {@link InvalidSetting}. */
        public <T> T as(Function<String, T> parser, String accepted) {
            try {
                return parser.apply(text);
            } catch (InvalidSetting e) {
                throw e;
            } catch (RuntimeException e) {
                throw new InvalidSetting(key, text, accepted);
            }
        }

        public Duration duration() {
            return as(DurationText::parse, DurationText.SYNTAX);
        }

        public Duration positiveDuration() {
            return as(t -> {
                Duration d = DurationText.parse(t);
                if (d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("not positive");
                }
                return d;
            }, "a positive " + DurationText.SYNTAX.substring(2));
        }

        public List<Duration> durations() {
            return as(DurationText::parseList, DurationText.LIST_SYNTAX);
        }

        public int integer(int min, int max) {
            return (int) longInteger(min, max);
        }

        public long longInteger(long min, long max) {
            return as(t -> {
                long n = Long.parseLong(t);
                if (n < min || n > max) {
                    throw new IllegalArgumentException("out of range");
                }
                return n;
            }, "a whole number " + range(min, max));
        }

        public double decimal(double min, double max) {
            return as(t -> {
                double d = Double.parseDouble(t);
                if (!(d >= min && d <= max)) {
                    throw new IllegalArgumentException("out of range");
                }
                return d;
            }, "a number from " + min + " to " + max);
        }

        /** A share above 0 and at most 1 (a ratio of failures, of dead letters). */
        public double share() {
            return as(t -> {
                double d = Double.parseDouble(t);
                if (!(d > 0 && d <= 1)) {
                    throw new IllegalArgumentException("not a share");
                }
                return d;
            }, "a share above 0 and at most 1, such as 0.5");
        }

        public boolean bool() {
            return as(t -> switch (t.toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new IllegalArgumentException("not a boolean");
            }, "true or false");
        }

        /** The text in lower case, if it is one of {@code allowed}. */
        public String oneOf(Set<String> allowed) {
            return as(t -> {
                String v = t.toLowerCase(Locale.ROOT);
                if (!allowed.contains(v)) {
                    throw new IllegalArgumentException("not allowed");
                }
                return v;
            }, "one of " + String.join(", ", allowed.stream().sorted().toList()));
        }

        /** The comma-separated entries, trimmed, none empty. */
        public List<String> list() {
            return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        }

        private static String range(long min, long max) {
            if (max == Long.MAX_VALUE || max == Integer.MAX_VALUE) {
                return "of at least " + min;
            }
            return "from " + min + " to " + max;
        }
    }
}
