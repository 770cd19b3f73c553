package dev.mailroom.ops.api;

import dev.mailroom.job.JobQueries;
import dev.mailroom.send.UnknownSends;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
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
import java.util.List;

/**
 * {@code GET /api/v1/jobs/{message_id}[?queue=]}: a job's state, attempts and timeline.
 * {@code POST .../mark-sent} and {@code POST .../send-again} with {@code {"reason": ...}}: an operator's
 * answer to a job whose send is {@code unknown}, recorded with who and why.
 */
@Path("/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
public class JobResource {

    @Inject
    JobQueries jobs;
    @Inject
    UnknownSends unknownSends;
    @Context
    SecurityContext security;

    @GET
    @Path("/{messageId}")
    public Response job(@PathParam("messageId") String messageId, @QueryParam("queue") String queue) {
        if (messageId.length() > 200) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_message_id",
                    "message_id is at most 200 characters");
        }
        List<JobQueries.JobView> found = jobs.byMessageId(messageId, queue);
        if (found.isEmpty()) {
            return ApiError.response(Response.Status.NOT_FOUND, "job_not_found",
                    "no job with message_id '" + messageId + "'" + (queue == null ? "" : " on queue " + queue));
        }
        if (found.size() > 1) {
            return ApiError.response(Response.Status.CONFLICT, "ambiguous_message_id",
                    "message_id '" + messageId + "' is on several queues "
                            + found.stream().map(JobQueries.JobView::queue).toList() + "; add ?queue=");
        }
        return Response.ok(found.get(0)).build();
    }

    @POST
    @Path("/{messageId}/mark-sent")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response markSent(@PathParam("messageId") String messageId, @QueryParam("queue") String queue,
                             DeadLetterResource.ActionRequest request) {
        unknownSends.markSent(messageId, queue, Actors.of(security), request == null ? null : request.reason());
        return job(messageId, queue);
    }

    @POST
    @Path("/{messageId}/send-again")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response sendAgain(@PathParam("messageId") String messageId, @QueryParam("queue") String queue,
                              DeadLetterResource.ActionRequest request) {
        unknownSends.sendAgain(messageId, queue, Actors.of(security), request == null ? null : request.reason());
        return Response.status(Response.Status.ACCEPTED).entity(jobs.byMessageId(messageId, queue).get(0)).build();
    }
}
