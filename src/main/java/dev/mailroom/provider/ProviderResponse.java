package dev.mailroom.provider;

import java.time.Duration;

/**
 * What one provider call came to, verbatim and bounded: the raw material of classification.
 *
 * @param status          what kind of outcome this is
 * @param provider        the provider's name
 * @param code            the provider's own code: SMTP reply code ("550"), HTTP status ("429"); null
 *                        when nothing was answered
 * @param enhancedCode    RFC 3463 enhanced status code for SMTP ("5.1.1"), or the API's error code
 *                        taken from the body by the profile's mapping; null when absent
 * @param text            the response text or body, bounded to {@link #MAX_TEXT} characters
 * @param providerMessageId the provider's id for an accepted mail, when it gives one
 * @param retryAfter      the delay the provider asked for (HTTP Retry-After), null when none
 * @param errorType       the Java exception type behind a network fault, null otherwise
 */
public record ProviderResponse(
        Status status,
        String provider,
        String code,
        String enhancedCode,
        String text,
        String providerMessageId,
        Duration retryAfter,
        String errorType) {

    /** Verbatim provider text is kept up to this many characters. */
    public static final int MAX_TEXT = 2000;

    public enum Status {
        /** The provider took the mail (2xx, SMTP 250 after DATA). */
        ACCEPTED,
        /** The provider answered and refused (4xx/5xx, SMTP 4yz/5yz). */
        REJECTED,
        /** Nothing that could take effect was written (connect refused, DNS, TLS handshake). */
        NOT_CONNECTED,
        /** The call failed after the request was written: the provider may or may not have it. */
        AMBIGUOUS
    }

    public ProviderResponse {
        text = bound(text);
    }

    public boolean accepted() {
        return status == Status.ACCEPTED;
    }

    /**
     * The answer in one line for people (a breaker's last failure): the code once, then the provider's words.
     * An SMTP reply's text begins with its own code ("535 5.7.8 ..."), so the code is not put in front again.
     */
    public String summary() {
        String words = text == null ? String.valueOf(errorType) : text;
        if (code == null || words.equals(code) || words.startsWith(code + " ") || words.startsWith(code + "-")) {
            return words;
        }
        return code + " " + words;
    }

    public static String bound(String s) {
        if (s == null || s.length() <= MAX_TEXT) {
            return s;
        }
        return s.substring(0, MAX_TEXT);
    }

    public static ProviderResponse accepted(String provider, String code, String text, String providerMessageId) {
        return new ProviderResponse(Status.ACCEPTED, provider, code, null, text, providerMessageId, null, null);
    }
}
