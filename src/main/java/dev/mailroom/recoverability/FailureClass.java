package dev.mailroom.recoverability;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Why a send failed, as one of the failure classes the README lists ("When a send fails"). The class,
 * not the raw code, decides
 * what happens next ({@link RecoverabilityPolicy}); the raw code stays on the {@link Failure}.
 */
public enum FailureClass {
    /** Connect reset, DNS timeout, HTTP 5xx, SMTP 421/451: retry with backoff and full jitter. */
    TRANSIENT("transient"),
    /** HTTP 429, SMTP rate replies: come back after Retry-After; consumes no attempt. */
    THROTTLED("throttled"),
    /** The request was written and then the call failed: retry with the same idempotency key. */
    AMBIGUOUS("ambiguous"),
    /** Mailbox full, greylisting: a few slow retries. */
    SOFT_BOUNCE("soft_bounce"),
    /** The recipient does not exist or refuses for good: no retry, job {@code bounced_permanent}. */
    PERMANENT_RECIPIENT("permanent_recipient"),
    /** Refused for policy or content: a human decides ({@code manual_review}). */
    CONTENT_POLICY("content_policy"),
    /** The job itself can never be sent as it is: dead-letter at once. */
    POISON("poison"),
    /** A fault in our own code: one retry, then {@code handler_error}. */
    INTERNAL("internal"),
    /** A provider answer the mapping tables do not know: {@code unmapped_error} and an alert. */
    UNKNOWN("unknown"),
    /** Down for everyone (our credentials, the provider, a dependency): pause, never dead-letter. */
    SYSTEMIC("systemic");

    private final String wireName;

    FailureClass(String wireName) {
        this.wireName = wireName;
    }

    /** The class's wire name: used in the mapping file, config keys, metrics, JMS properties and the database. */
    public String wireName() {
        return wireName;
    }

    /**
     * The class of that wire name (surrounding blanks and case ignored).
     *
     * @throws IllegalArgumentException naming the known classes when there is none
     */
    public static FailureClass fromWireName(String name) {
        if (name != null) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            for (FailureClass c : values()) {
                if (c.wireName.equals(n)) {
                    return c;
                }
            }
        }
        throw new IllegalArgumentException("unknown failure class '" + name + "', known: " + wireNames());
    }

    /** All wire names, comma-separated, for error messages. */
    static String wireNames() {
        return Arrays.stream(values()).map(FailureClass::wireName).collect(Collectors.joining(", "));
    }
}
