package dev.mailroom.ops.api;

import dev.mailroom.redrive.RedriveRecord;
import dev.mailroom.redrive.RedriveRequest;
import dev.mailroom.redrive.Redrives;
import jakarta.inject.Inject;
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

/**
 * Redrive: {@code POST /api/v1/redrives} plans (a dry run), {@code POST /redrives/{id}/run} runs what was
 * planned, {@code GET /redrives/{id}} is the recovery record; {@code /resume} and {@code /abandon} deal
 * with a run the server's stop interrupted.
 */
@Path("/v1/redrives")
@Produces(MediaType.APPLICATION_JSON)
public class RedriveResource {

    @Inject
    Redrives redrives;
    @Context
    SecurityContext security;
    @Inject
    Disclosure disclosure;

    /** The body of abandon: why. */
    public record Why(String reason) { }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response plan(RedriveRequest request) {
        RedriveRecord plan = redrives.plan(request, Actors.of(security));
        return Response.status(Response.Status.CREATED).header("Location", "/mailroom/api/v1/redrives/" + plan.id())
                .entity(redacted(plan)).build();
    }

    @GET
    public Response recent(@QueryParam("limit") @DefaultValue("20") @Limit(max = 200) String limit) {
        return Response.ok(redacted(redrives.recent(Integer.parseInt(limit)))).build();
    }

    @GET
    @Path("/{id}")
    public Response record(@PathParam("id") String id, @QueryParam("reveal") boolean reveal) {
        return disclosure.ok(redrives.record(id), reveal, security, "GET /redrives/" + id);
    }

    @POST
    @Path("/{id}/run")
    public Response run(@PathParam("id") String id) {
        RedriveRecord r = redrives.run(id, Actors.of(security));
        return Response.status("running".equals(r.status()) ? Response.Status.ACCEPTED : Response.Status.OK)
                .entity(redacted(r)).build();
    }

    @POST
    @Path("/{id}/resume")
    public Response resume(@PathParam("id") String id) {
        return Response.status(Response.Status.ACCEPTED).entity(redacted(redrives.resume(id, Actors.of(security))))
                .build();
    }

    @POST
    @Path("/{id}/abandon")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response abandon(@PathParam("id") String id, Why why) {
        return Response.ok(redacted(redrives.abandon(id, Actors.of(security), why == null ? null : why.reason())))
                .build();
    }

    /** A record as it goes out without a reveal: its entries' diffs redacted. */
    private Object redacted(Object records) {
        return disclosure.view(records, false, security, null);
    }
}
