package dev.mailroom.ops.api;

import dev.mailroom.platform.HealthProbes;
import dev.mailroom.platform.MailroomConfig;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/**
 * {@code GET /api/v1/health}: 200 when the database and the broker answer, 503 naming what does not, in a fixed
 * phrase without exception text ({@link HealthProbes}). Orchestrators use the standard {@code /health/ready} and
 * {@code /health/live} on the management port.
 */
@Path("/v1/health")
@Produces(MediaType.APPLICATION_JSON)
public class HealthResource {

    public record Health(String status, Map<String, String> checks, String provider) { }

    @Inject
    HealthProbes probes;
    @Inject
    MailroomConfig config;

    @GET
    public Response health() {
        Map<String, String> checks = probes.probe();
        boolean up = checks.values().stream().allMatch(HealthProbes.UP::equals);
        return Response.status(up ? 200 : 503)
                .entity(new Health(up ? "UP" : "DOWN", checks, config.provider()))
                .build();
    }
}
