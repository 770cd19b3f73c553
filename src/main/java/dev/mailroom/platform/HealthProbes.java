package dev.mailroom.platform;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * What Mailroom needs to work: the database and the broker. {@link #probe()} says per part {@code UP} or what is
 * down in a fixed phrase; the exception goes to the server log, never into an answer (it can name hosts, users
 * and driver internals). {@code GET /api/v1/health} shows it, and so do the standard MicroProfile Health
 * endpoints on the management port ({@code /health/ready}: {@link Database} and {@link Broker};
 * {@code /health/live}: {@link Alive}).
 */
@ApplicationScoped
public class HealthProbes {

    private static final Logger LOG = Logger.getLogger(HealthProbes.class.getName());
    public static final String UP = "UP";

    @Resource(lookup = "java:comp/DefaultDataSource")
    DataSource dataSource;
    @Inject
    BrokerQueues broker;
    @Inject
    MailroomConfig config;
    @Inject
    DatabaseWrites writes;

    /** Every part, in a fixed order: {@code database}, {@code broker}. */
    public Map<String, String> probe() {
        Map<String, String> checks = new LinkedHashMap<>();
        checks.put("database", database());
        checks.put("broker", broker());
        return checks;
    }

    /** Down when it does not answer, or when it refused this node's last write for a full disk (naming the disk). */
    public String database() {
        try (Connection c = dataSource.getConnection()) {
            if (!c.isValid(2)) {
                return "DOWN: the database connection is not valid";
            }
        } catch (Exception e) {
            LOG.log(Level.WARNING, "health: the database does not answer", e);
            return "DOWN: the database does not answer (see the server log)";
        }
        return writes.refusal().map(disk -> "DOWN: the database answers but refuses writes: " + disk).orElse(UP);
    }

    public String broker() {
        for (String q : config.queues()) {
            try {
                if (broker.figures(q).consumers() < 0) {
                    return "DOWN: the broker has no figures for queue " + q;
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "health: the broker does not answer for " + q, e);
                return "DOWN: the broker does not answer for queue " + q + " (see the server log)";
            }
        }
        return broker.disk().map(BrokerDiskRule::verdict).orElse(UP);
    }

    private static HealthCheckResponse response(String name, String status) {
        return HealthCheckResponse.named(name).status(UP.equals(status)).withData("status", status).build();
    }

    /** Readiness: the database answers. */
    @Readiness
    @ApplicationScoped
    public static class Database implements HealthCheck {
        @Inject
        HealthProbes probes;

        @Override
        public HealthCheckResponse call() {
            return response("mailroom-database", probes.database());
        }
    }

    /** Readiness: the broker answers for every send queue. */
    @Readiness
    @ApplicationScoped
    public static class Broker implements HealthCheck {
        @Inject
        HealthProbes probes;

        @Override
        public HealthCheckResponse call() {
            return response("mailroom-broker", probes.broker());
        }
    }

    /** Liveness: the deployment runs (a restart cures nothing the readiness checks report). */
    @Liveness
    @ApplicationScoped
    public static class Alive implements HealthCheck {
        @Inject
        BuildInfo build;

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("mailroom").up().withData("version", build.consumerVersion()).build();
        }
    }
}
