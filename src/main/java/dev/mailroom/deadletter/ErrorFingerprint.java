package dev.mailroom.deadletter;

import java.util.regex.Pattern;

/**
 * The normalised form of a dead letter's error, which groups dead letters by cause: addresses, quoted
 * text, UUID-like ids and numbers are replaced by placeholders, so "mailbox a@x full (552)" and
 * "mailbox b@y full (553)" are one group. Computed once, when the dead letter is written
 * ({@code dead_letter.error_fingerprint}), so the groups query is a GROUP BY in the database; the V7
 * migration backfilled rows written before.
 *
 * <p>Changing the rules changes which rows group together: rows written before keep their old
 * fingerprint until a migration recomputes them.
 */
public final class ErrorFingerprint {

    /** Only this many characters of the error are looked at (the rest is usually a repeated detail). */
    public static final int CONSIDERED_CHARS = 300;
    /** Longest fingerprint: each considered character may grow into a placeholder of at most 9. */
    public static final int MAX_LENGTH = 1000;

    private static final Pattern ADDRESS = Pattern.compile("[\\w.+-]+@[\\w.-]+");
    private static final Pattern QUOTED = Pattern.compile("\"[^\"]*\"|'[^']*'");
    private static final Pattern UUID_LIKE = Pattern.compile("\\b[0-9a-fA-F]{8}-[0-9a-fA-F-]{27,}\\b");
    private static final Pattern ISO_TIMESTAMP = Pattern.compile(
            "\\b\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?");
    private static final Pattern HEX_ID = Pattern.compile("\\b(?=[0-9a-fA-F]*\\d)[0-9a-fA-F]{16,}\\b");
    private static final Pattern NUMBER = Pattern.compile("\\b\\d+\\b");

    private ErrorFingerprint() {
    }

    /** The fingerprint of {@code error}; null for null. */
    public static String of(String error) {
        if (error == null) {
            return null;
        }
        String s = error.length() > CONSIDERED_CHARS ? error.substring(0, CONSIDERED_CHARS) : error;
        s = ADDRESS.matcher(s).replaceAll("<address>");
        s = QUOTED.matcher(s).replaceAll("<text>");
        s = UUID_LIKE.matcher(s).replaceAll("<id>");
        s = ISO_TIMESTAMP.matcher(s).replaceAll("<time>");
        s = HEX_ID.matcher(s).replaceAll("<id>");
        s = NUMBER.matcher(s).replaceAll("<n>").trim();
        return s.length() > MAX_LENGTH ? s.substring(0, MAX_LENGTH) : s;
    }
}
