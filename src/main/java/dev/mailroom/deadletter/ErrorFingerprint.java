package dev.mailroom.deadletter;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The normalised form of a dead letter's error, which groups dead letters by cause and names the group: addresses,
 * quoted text, UUID-like ids and numbers are replaced by placeholders, so "mailbox a@x full (552)" and
 * "mailbox b@y full (553)" are one group. SMTP reply codes stay as they are ({@code 550 5.7.1}): they are the cause
 * an operator reads and searches for, and a 550 5.1.1 is another fix than a 550 5.7.1. Poison (a payload that is not
 * a job) is grouped by its error type alone ({@code not_json}, {@code schema_violation}): its error text describes
 * the bytes (where the parser stopped), which differ per letter while the fix (the producer) is one.
 * Computed once, when the dead letter is written ({@code dead_letter.error_fingerprint}), so the groups query is a
 * GROUP BY in the database; the V7 migration backfilled rows written before.
 *
 * <p>Changing the rules changes which rows group together: rows written before keep their old
 * fingerprint until a migration recomputes them.
 */
public final class ErrorFingerprint {

    /** Only this many characters of the error are looked at (the rest is usually a repeated detail). */
    public static final int CONSIDERED_CHARS = 300;
    /** Longest fingerprint: each considered character may grow into a placeholder of at most 9. */
    public static final int MAX_LENGTH = 1000;
    /** The failure class whose dead letters group by error type. */
    static final String POISON = "poison";

    private static final Pattern ADDRESS = Pattern.compile("[\\w.+-]+@[\\w.-]+");
    private static final Pattern QUOTED = Pattern.compile("\"[^\"]*\"|'[^']*'");
    private static final Pattern UUID_LIKE = Pattern.compile("\\b[0-9a-fA-F]{8}-[0-9a-fA-F-]{27,}\\b");
    private static final Pattern ISO_TIMESTAMP = Pattern.compile(
            "\\b\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?");
    private static final Pattern HEX_ID = Pattern.compile("\\b(?=[0-9a-fA-F]*\\d)[0-9a-fA-F]{16,}\\b");
    private static final Pattern NUMBER = Pattern.compile("\\b\\d+\\b");
    /**
     * An SMTP enhanced status code (RFC 3463: class 2, 4 or 5, then subject and detail), standing alone: not a
     * part of a dotted number such as an IP address or a version.
     */
    private static final String ENHANCED = "(?<![\\w.])[245]\\.\\d{1,3}\\.\\d{1,3}(?![\\w]|\\.\\d)";
    /** A reply code (RFC 5321: 2xx to 5xx) at the start of the text or just before an enhanced code, and an enhanced code. */
    private static final Pattern SMTP_CODE = Pattern.compile(
            "^\\s*[2-5]\\d\\d(?=[\\s-]|$)|(?<![\\w.])[2-5]\\d\\d(?=[\\s-]" + ENHANCED + ")|" + ENHANCED);

    private ErrorFingerprint() {
    }

    /** The fingerprint of a dead letter: its error type for poison, else {@link #of(String)} its error. */
    public static String of(String failureClass, String errorType, String error) {
        if (POISON.equals(failureClass) && errorType != null && !errorType.isBlank()) {
            String type = errorType.trim();
            return type.length() > MAX_LENGTH ? type.substring(0, MAX_LENGTH) : type;
        }
        return of(error);
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
        s = numbersOutsideCodes(s).trim();
        return s.length() > MAX_LENGTH ? s.substring(0, MAX_LENGTH) : s;
    }

    /** {@link #NUMBER}s replaced by {@code <n>}, except inside the SMTP codes of {@code s}. */
    private static String numbersOutsideCodes(String s) {
        List<int[]> codes = new ArrayList<>();
        Matcher c = SMTP_CODE.matcher(s);
        while (c.find()) {
            codes.add(new int[] {c.start(), c.end()});
        }
        Matcher n = NUMBER.matcher(s);
        StringBuilder out = new StringBuilder();
        while (n.find()) {
            int at = n.start();
            boolean inCode = codes.stream().anyMatch(span -> at >= span[0] && at < span[1]);
            n.appendReplacement(out, inCode ? Matcher.quoteReplacement(n.group()) : "<n>");
        }
        n.appendTail(out);
        return out.toString();
    }
}
