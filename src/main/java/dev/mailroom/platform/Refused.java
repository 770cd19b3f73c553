package dev.mailroom.platform;

/**
 * An operator's request that cannot be carried out as asked, as a domain fact: the thing is not there
 * ({@link NotFound}), the request is malformed or breaks a rule ({@link Invalid}), or it does not fit
 * the current state ({@link Conflict}). {@link #reason()} is a machine-readable word (for example
 * {@code dead_letter_not_found}); the message is a sentence for people. Each adapter maps the kinds to
 * its own protocol (REST: 404/400/409 in {@code ops.api}; JMX: {@code IllegalArgumentException}).
 */
public abstract sealed class Refused extends RuntimeException permits Refused.NotFound, Refused.Invalid, Refused.Conflict {

    private final String reason;

    private Refused(String reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** The machine-readable reason, e.g. {@code not_open}. */
    public String reason() {
        return reason;
    }

    /** What the request names does not exist. */
    public static final class NotFound extends Refused {
        public NotFound(String reason, String message) {
            super(reason, message);
        }
    }

    /** The request itself is wrong: a missing or malformed field, a rule it breaks. */
    public static final class Invalid extends Refused {
        public Invalid(String reason, String message) {
            super(reason, message);
        }
    }

    /** The request is well-formed but does not fit the current state of what it names. */
    public static final class Conflict extends Refused {
        public Conflict(String reason, String message) {
            super(reason, message);
        }
    }
}
