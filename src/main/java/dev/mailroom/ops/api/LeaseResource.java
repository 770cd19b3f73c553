package dev.mailroom.ops.api;

import dev.mailroom.platform.lease.Leases;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/**
 * {@code GET /api/v1/leases}: which node holds each lease (the work that runs once when several nodes share
 * the database), until when, and, on the node answering, whether it holds it and how many turns of that work
 * it took since it started. {@code node} is the answering node's id.
 */
@Path("/v1/leases")
@Produces(MediaType.APPLICATION_JSON)
public class LeaseResource {

    @Inject
    Leases leases;

    @GET
    public Map<String, Object> leases() {
        return Map.of("node", leases.node(), "leases", leases.view());
    }
}
