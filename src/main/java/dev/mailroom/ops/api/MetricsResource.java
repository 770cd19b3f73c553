package dev.mailroom.ops.api;

import dev.mailroom.platform.MeterRegistries;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;

/**
 * {@code GET /api/v1/metrics}: Mailroom's meters in Prometheus' text format, on a server that does not scrape them
 * itself (Open Liberty). On WildFly the Micrometer subsystem serves them at the management port's
 * {@code /prometheus}, and this answers 404 saying so.
 */
@Path("/v1/metrics")
public class MetricsResource {

    @Inject
    MeterRegistries registries;

    @GET
    @Produces({"text/plain; version=0.0.4; charset=utf-8", "application/json"})
    public Response scrape() {
        return registries.ownScrape()
                .map(text -> Response.ok(text, "text/plain; version=0.0.4; charset=utf-8").build())
                .orElseGet(() -> ApiError.response(Response.Status.NOT_FOUND, "served_by_server",
                        "this server serves Mailroom's meters itself, at its management port's /prometheus"));
    }
}
