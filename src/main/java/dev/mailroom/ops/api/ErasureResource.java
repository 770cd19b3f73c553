package dev.mailroom.ops.api;

import dev.mailroom.erasure.Erasure;
import dev.mailroom.erasure.ErasureRecord;
import dev.mailroom.platform.Refused;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

/**
 * Erasure of one address (docs/erasure.md): {@code POST /api/v1/erasures} {@code {"address", "reason"}} (201 with the
 * record and its counts; 200 when it was a no-op: erased before, nothing left) and {@code GET /api/v1/erasures?limit=}
 * (the audit, newest first). Who is recorded from the login.
 */
@Path("/v1/erasures")
@Produces(MediaType.APPLICATION_JSON)
public class ErasureResource {

    @Inject
    Erasure erasure;
    @Context
    SecurityContext security;

    public record EraseRequest(String address, String reason) { }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response erase(EraseRequest request) {
        if (request == null) {
            throw new Refused.Invalid("invalid_request", "send {\"address\": ..., \"reason\": ...}");
        }
        ErasureRecord r = erasure.erase(request.address(), Actors.of(security), request.reason());
        return Response.status(r.noOp() ? Response.Status.OK : Response.Status.CREATED).entity(r).build();
    }

    @GET
    public Response list(@QueryParam("limit") @DefaultValue("100") @Limit(max = 1000) String limit) {
        return Response.ok(erasure.list(Integer.parseInt(limit))).build();
    }
}
