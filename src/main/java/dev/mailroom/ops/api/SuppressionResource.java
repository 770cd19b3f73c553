package dev.mailroom.ops.api;

import dev.mailroom.platform.Refused;
import dev.mailroom.suppression.SuppressionList;
import dev.mailroom.suppression.SuppressionReason;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.util.Arrays;

/**
 * The suppression list: {@code GET /api/v1/suppressions?address=&tenant=&reason=&status=&offset=&limit=} (newest
 * first, paged; {@code tenant} absent: every tenant, empty: the default tenant; {@code status} {@code active},
 * {@code lifted} or {@code all}, default active), {@code GET /api/v1/suppressions/{id}},
 * {@code POST /api/v1/suppressions} {@code {"address", "tenant", "why"}} (an operator's entry) and
 * {@code POST /api/v1/suppressions/{id}/lift} {@code {"why"}}. Who is recorded from the login.
 */
@Path("/v1/suppressions")
@Produces(MediaType.APPLICATION_JSON)
public class SuppressionResource {

    private static final String ID = "[0-9]{1,18}";

    @Inject
    SuppressionList suppressions;
    @Context
    SecurityContext security;

    public record AddRequest(String address, String tenant, String why) { }

    public record LiftRequest(String why) { }

    @GET
    public Response list(@QueryParam("address") String address, @QueryParam("tenant") String tenant,
                         @QueryParam("reason") String reason,
                         @QueryParam("status") @DefaultValue("active") String status,
                         @QueryParam("offset") @DefaultValue("0")
                         @Limit(min = 0, max = Integer.MAX_VALUE, name = "offset") String offset,
                         @QueryParam("limit") @DefaultValue("100") @Limit(max = 1000) String limit) {
        if (!status.equals("active") && !status.equals("lifted") && !status.equals("all")) {
            throw new Refused.Invalid("invalid_status", "status is active, lifted or all, not " + cut(status));
        }
        SuppressionList.Filter filter = new SuppressionList.Filter(address, tenant == null,
                tenant == null || tenant.isBlank() ? null : tenant, reason(reason), status.equals("all") ? null : status);
        return Response.ok(suppressions.find(filter, Integer.parseInt(offset), Integer.parseInt(limit))).build();
    }

    @GET
    @Path("/{id}")
    public Response one(@PathParam("id") @Pattern(regexp = ID, message = "invalid_id: a suppression's id is a number") String id) {
        return Response.ok(suppressions.get(Long.parseLong(id))).build();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response add(AddRequest request) {
        if (request == null) {
            throw new Refused.Invalid("invalid_request", "send {\"address\": ..., \"tenant\": ..., \"why\": ...}");
        }
        return Response.status(Response.Status.CREATED)
                .entity(suppressions.add(request.tenant(), request.address(), Actors.of(security), request.why())).build();
    }

    @POST
    @Path("/{id}/lift")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response lift(@PathParam("id") @Pattern(regexp = ID, message = "invalid_id: a suppression's id is a number") String id,
                         LiftRequest request) {
        return Response.ok(suppressions.lift(Long.parseLong(id), Actors.of(security), request == null ? null : request.why()))
                .build();
    }

    private static SuppressionReason reason(String reason) {
        if (reason == null || reason.isBlank()) {
            return null;
        }
        try {
            return SuppressionReason.valueOf(reason);
        } catch (IllegalArgumentException e) {
            throw new Refused.Invalid("invalid_reason", "reason is one of "
                    + Arrays.toString(SuppressionReason.values()) + ", not " + cut(reason));
        }
    }

    private static String cut(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "…";
    }
}
