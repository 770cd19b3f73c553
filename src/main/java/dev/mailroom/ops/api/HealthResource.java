package dev.mailroom.ops.api;

import dev.mailroom.platform.BrokerQueues;
import dev.mailroom.platform.MailroomConfig;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/** {@code GET /api/v1/health}: 200 when the database and the broker answer, 503 naming what does not. */
@Path("/v1/health")
@Produces(MediaType.APPLICATION_JSON)
public class HealthResource {

    public record Health(String status, Map<String, String> checks, String provider) { }

    @Resource(lookup = "java:jboss/datasources/MailroomDS")
    DataSource dataSource;
    @Inject
    BrokerQueues broker;
    @Inject
    MailroomConfig config;

    @GET
    public Response health() {
        Map<String, String> checks = new LinkedHashMap<>();
        checks.put("database", database());
        checks.put("broker", broker());
        boolean up = checks.values().stream().allMatch("UP"::equals);
        return Response.status(up ? 200 : 503)
                .entity(new Health(up ? "UP" : "DOWN", checks, config.provider()))
                .build();
    }

    private String database() {
        try (Connection c = dataSource.getConnection()) {
            return c.isValid(2) ? "UP" : "DOWN: connection not valid";
        } catch (Exception e) {
            return "DOWN: " + e.getMessage();
        }
    }

    private String broker() {
        try {
            for (String q : config.queues()) {
                if (broker.figures(q).consumers() < 0) {
                    return "DOWN: no figures for " + q;
                }
            }
            return "UP";
        } catch (RuntimeException e) {
            return "DOWN: " + e.getMessage();
        }
    }
}
