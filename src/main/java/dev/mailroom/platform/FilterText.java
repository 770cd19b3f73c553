package dev.mailroom.platform;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The values of an operator's filter as typed (query parameters, forms): trimmed text where blank is no filter, and
 * instants whose refusal names the field first ({@code invalid_<name>}, the console shows it at that field).
 */
public final class FilterText {

    private FilterText() {
    }

    /** {@code value} trimmed; null when null or blank. */
    public static String text(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    /** The ISO-8601 instant {@code value} (null: blank); else {@link Refused.Invalid} {@code invalid_<name>}. */
    public static Instant instant(String name, String value) {
        if (text(value) == null) {
            return null;
        }
        try {
            return Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new Refused.Invalid("invalid_" + name, name
                    + " is not an ISO-8601 instant (e.g. 2026-11-29T10:00:00Z): " + value);
        }
    }
}
