package dev.mailroom.alert;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Alerts in the server log, one line each with its count: pages at SEVERE, tickets at WARNING, so the
 * log's own alerting (or a person grepping it) sees them even with no webhook configured, and while
 * the webhook is down.
 */
public final class LogSink implements AlertSink {

    /** The logger alerts are written to; WildFly's logging subsystem can route it to its own file. */
    public static final String LOGGER = "dev.mailroom.alert";

    private final Logger logger;

    public LogSink() {
        this(Logger.getLogger(LOGGER));
    }

    public LogSink(Logger logger) {
        this.logger = Objects.requireNonNull(logger, "logger");
    }

    @Override
    public String name() {
        return "log";
    }

    @Override
    public void deliver(List<Alert> alerts) {
        for (Alert a : alerts) {
            logger.log(a.severity() == Severity.PAGE ? Level.SEVERE : Level.WARNING, line(a));
        }
    }

    /**
     * {@code ALERT page DeadLetterArrived count=5000 queue=mail.send reason=handler_error first=... last=...
     * examples=[a, b]: Dead letter on mail.send with reason handler_error (5000 times). Latest: ...}
     */
    public static String line(Alert a) {
        StringBuilder s = new StringBuilder("ALERT ").append(a.severity().wire()).append(' ').append(a.name())
                .append(" count=").append(a.count());
        for (Map.Entry<String, String> l : a.labels().entrySet()) {
            if (!l.getKey().equals(Alert.ALERTNAME) && !l.getKey().equals(Alert.SEVERITY)) {
                s.append(' ').append(l.getKey()).append('=').append(l.getValue());
            }
        }
        s.append(" first=").append(Alert.rfc3339(a.firstAt())).append(" last=").append(Alert.rfc3339(a.lastAt()));
        if (!a.examples().isEmpty()) {
            s.append(" examples=").append(a.examples());
        }
        return s.append(": ").append(a.headline()).append(". ").append(a.description()).toString();
    }
}
