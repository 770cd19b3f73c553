package dev.mailroom.ops.jmx;

import dev.mailroom.platform.Refused;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a JMX client gets when an operation fails: JDK exceptions only (the client has none of Mailroom's or the
 * server's classes), with a message that says why, and never a cause it could not deserialize.
 * A refusal ({@link Refused} anywhere in the cause chain) becomes an {@link IllegalArgumentException};
 * a capability this build lacks an {@link UnsupportedOperationException}; anything else is logged with an
 * incident id and becomes an {@link IllegalStateException} naming it.
 */
final class JmxErrors {

    private static final Logger LOG = Logger.getLogger(JmxErrors.class.getName());

    private JmxErrors() {
    }

    /**
     * Runs {@code body} inside the deployment through {@code door}; a failure, the container's or the body's, becomes
     * what a JMX client can read ({@link #forClient}). {@code subject}: what the operation was on, for the message.
     */
    static <T> T inDeployment(QueueMBeans door, String operation, String subject, Supplier<T> body) {
        QueueMBeans.Outcome<T> outcome;
        try {
            outcome = door.inDeployment(body);
        } catch (RuntimeException e) { // the container refused the call (e.g. the deployment is stopping)
            throw forClient(operation, subject, e);
        }
        if (outcome.failure() != null) {
            throw forClient(operation, subject, outcome.failure());
        }
        return outcome.value();
    }

    static RuntimeException forClient(String operation, String queue, RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof Refused r) {
                return new IllegalArgumentException("refused (" + kind(r) + " " + r.reason() + "): " + r.getMessage());
            }
            if (t.getCause() == t) {
                break;
            }
        }
        if (e instanceof UnsupportedOperationException) {
            return new UnsupportedOperationException(e.getMessage());
        }
        String incident = UUID.randomUUID().toString();
        LOG.log(Level.SEVERE, e, () -> String.format("JMX %s on %s failed, incident %s", operation, queue, incident));
        return new IllegalStateException(operation + " on " + queue + " failed: " + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()) + " (incident " + incident
                + " is in the server log)");
    }

    /** The kind of refusal as one word a JMX client can match on. */
    static String kind(Refused r) {
        if (r instanceof Refused.NotFound) {
            return "not_found";
        }
        return r instanceof Refused.Invalid ? "invalid" : "conflict";
    }
}
