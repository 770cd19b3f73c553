package dev.mailroom.recoverability;

import dev.mailroom.provider.ProviderResponse;
import java.time.Duration;
import java.util.Objects;

/**
 * One classified failure: its class and what was said, verbatim and bounded, so the attempt record,
 * the timeline and a dead letter show the provider's own words and not our paraphrase.
 *
 * @param failureClass what kind of failure it is
 * @param provider     the provider's name; null when no provider was involved (poison, internal)
 * @param code         the provider's code ("550", "429"); for {@link #poison} the poison reason
 * @param enhancedCode RFC 3463 code ("5.1.1") or the API's error code ("validation_error"), or null
 * @param text         the response text, exception message or poison detail, bounded to
 *                     {@link ProviderResponse#MAX_TEXT} characters
 * @param retryAfter   the delay the provider asked for, already a Duration (an HTTP date was converted by
 *                     the provider); null when none
 * @param errorType    the exception class behind a network fault or an internal failure, else null
 */
public record Failure(
        FailureClass failureClass,
        String provider,
        String code,
        String enhancedCode,
        String text,
        Duration retryAfter,
        String errorType) {

    public Failure {
        Objects.requireNonNull(failureClass, "failureClass");
        text = ProviderResponse.bound(text);
    }

    /** A provider's refusal or fault, with everything it said kept. */
    public static Failure of(FailureClass failureClass, ProviderResponse response) {
        Objects.requireNonNull(response, "response");
        return new Failure(failureClass, response.provider(), response.code(), response.enhancedCode(),
                response.text(), response.retryAfter(), response.errorType());
    }

    /** An exception in our own code: class {@link FailureClass#INTERNAL}, the exception type and message kept. */
    public static Failure internal(Throwable thrown) {
        Objects.requireNonNull(thrown, "thrown");
        String message = thrown.getMessage() != null ? thrown.getMessage() : thrown.toString();
        return new Failure(FailureClass.INTERNAL, null, null, null, message, null, thrown.getClass().getName());
    }

    /**
     * A job that can never be sent as it is (bytes that do not parse, a schema violation, a missing
     * template variable).
     *
     * @param reason short machine-readable cause, kept in {@link #code()} ("not_json", "schema_violation")
     * @param detail what exactly was wrong, kept (bounded) in {@link #text()}
     */
    public static Failure poison(String reason, String detail) {
        Objects.requireNonNull(reason, "reason");
        return new Failure(FailureClass.POISON, null, reason, null, detail, null, null);
    }
}
