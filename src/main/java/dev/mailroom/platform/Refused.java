package dev.mailroom.platform;

/**
 * An operator's request that cannot be carried out as asked (bad input, unknown id, wrong state): the
 * adapter (REST, JMX) turns it into a 4xx with {@link #error()} and the message as the reason.
 */
public class Refused extends RuntimeException {

    private final int status;
    private final String error;

    public Refused(int status, String error, String message) {
        super(message);
        this.status = status;
        this.error = error;
    }

    public int status() {
        return status;
    }

    public String error() {
        return error;
    }
}
