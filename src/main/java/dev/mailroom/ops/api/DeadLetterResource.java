package dev.mailroom.ops.api;

import dev.mailroom.deadletter.DeadLetterQueries;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code GET /api/v1/dead-letters?queue=&reason=&message_id=&limit=} (newest first) and
 * {@code GET /api/v1/dead-letters/{id}} (the whole envelope, payload in base64).
 */
@Path("/v1/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
public class DeadLetterResource {

    @Inject
    DeadLetterQueries deadLetters;

    @GET
    public Response list(@QueryParam("queue") String queue, @QueryParam("reason") String reason,
                         @QueryParam("message_id") String messageId,
                         @QueryParam("limit") @DefaultValue("100") String limit) {
        int n = Limits.parse(limit, 1, 1000);
        if (n < 0) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_limit", "limit is a whole number from 1 to 1000");
        }
        return Response.ok(deadLetters.find(new DeadLetterQueries.Filter(queue, reason, messageId), n)).build();
    }

    @GET
    @Path("/{id}")
    public Response one(@PathParam("id") String id) {
        long n;
        try {
            n = Long.parseLong(id);
        } catch (NumberFormatException e) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_id", "a dead letter's id is a number");
        }
        return deadLetters.envelope(n)
                .map(e -> Response.ok(e).build())
                .orElseGet(() -> ApiError.response(Response.Status.NOT_FOUND, "dead_letter_not_found",
                        "no dead letter with id " + id));
    }
}
