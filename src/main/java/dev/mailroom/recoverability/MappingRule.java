package dev.mailroom.recoverability;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One row of a provider's mapping table: a set of conditions on a {@link ProviderResponse} and the
 * {@link FailureClass} it means. Every condition that is present must hold; an absent one (null or an
 * empty list) matches anything. Rows are tried in file order and the first that matches decides.
 *
 * @param id           the row's name, unique within its table; shows which row classified an attempt
 * @param status       the response status the row applies to (REJECTED unless the file says otherwise)
 * @param codes        reply code / HTTP status patterns, three characters of digits or {@code x} for any
 *                     digit ("550", "4xx"); any one must match
 * @param enhanced     SMTP: RFC 3463 patterns with {@code *} for a whole component ("5.1.1", "5.7.*"), or
 *                     {@value #NONE} for "the reply carried no enhanced code"; any one must match
 * @param apiErrors    HTTP: the API's error codes from the body (exact, case-insensitive); any one must match
 * @param text         a regular expression found (case-insensitively) anywhere in the response text
 * @param errorType    the exception class name of a NOT_CONNECTED/AMBIGUOUS fault, exactly
 * @param failureClass what a response matching the row is
 * @param note         why the row says what it says, for the reader of the table
 */
public record MappingRule(
        String id,
        Status status,
        List<String> codes,
        List<String> enhanced,
        List<String> apiErrors,
        Pattern text,
        String errorType,
        FailureClass failureClass,
        String note) {

    /** The enhanced-code pattern that matches a reply without an enhanced code. */
    public static final String NONE = "none";

    static final Pattern CODE_PATTERN = Pattern.compile("[0-9x]{3}");
    static final Pattern ENHANCED_PATTERN = Pattern.compile("[245*]\\.(\\d{1,3}|\\*)\\.(\\d{1,3}|\\*)");

    public MappingRule {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(failureClass, "failureClass");
        codes = codes == null ? List.of() : List.copyOf(codes);
        enhanced = enhanced == null ? List.of() : List.copyOf(enhanced);
        apiErrors = apiErrors == null ? List.of() : List.copyOf(apiErrors);
        for (String c : codes) {
            if (!CODE_PATTERN.matcher(c).matches()) {
                throw new IllegalArgumentException("code pattern '" + c + "' is not three digits or x (\"550\", \"4xx\")");
            }
        }
        for (String e : enhanced) {
            if (!NONE.equals(e) && !ENHANCED_PATTERN.matcher(e).matches()) {
                throw new IllegalArgumentException("enhanced pattern '" + e
                        + "' is not class.subject.detail with * wildcards (\"5.1.1\", \"5.7.*\") or \"none\"");
            }
        }
    }

    /** Whether every condition of the row holds for {@code r}. */
    public boolean matches(ProviderResponse r) {
        return r.status() == status
                && (codes.isEmpty() || codes.stream().anyMatch(p -> codeMatches(p, r.code())))
                && (enhanced.isEmpty() || enhanced.stream().anyMatch(p -> enhancedMatches(p, r.enhancedCode())))
                && (apiErrors.isEmpty() || (r.enhancedCode() != null
                        && apiErrors.stream().anyMatch(a -> a.equalsIgnoreCase(r.enhancedCode().trim()))))
                && (text == null || (r.text() != null && text.matcher(r.text()).find()))
                && (errorType == null || errorType.equals(r.errorType()));
    }

    static boolean codeMatches(String pattern, String code) {
        if (code == null) {
            return false;
        }
        String c = code.trim();
        if (c.length() != pattern.length()) {
            return false;
        }
        for (int i = 0; i < c.length(); i++) {
            char p = pattern.charAt(i);
            char ch = c.charAt(i);
            if (!Character.isDigit(ch) || (p != 'x' && p != ch)) {
                return false;
            }
        }
        return true;
    }

    static boolean enhancedMatches(String pattern, String code) {
        if (NONE.equals(pattern)) {
            return code == null || code.isBlank();
        }
        if (code == null) {
            return false;
        }
        String[] want = pattern.split("\\.");
        String[] got = code.trim().toLowerCase(Locale.ROOT).split("\\.");
        if (got.length != 3) {
            return false;
        }
        for (int i = 0; i < 3; i++) {
            if (!want[i].equals("*") && !stripLeadingZeros(want[i]).equals(stripLeadingZeros(got[i]))) {
                return false;
            }
        }
        return true;
    }

    /** "5.1.01" and "5.1.1" are the same code: RFC 3463 components are numbers. */
    private static String stripLeadingZeros(String s) {
        return s.replaceFirst("^0+(?=\\d)", "");
    }
}
