package dev.mailroom.ops.api;

import dev.mailroom.job.JobQueries;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** {@code GET /api/v1/jobs/{message_id}[?queue=]}: a job's state, attempts and timeline. */
@Path("/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
public class JobResource {

    @Inject
    JobQueries jobs;

    @GET
    @Path("/{messageId}")
    public Response job(@PathParam("messageId")
                        @jakarta.validation.constraints.Size(max = 200,
                                message = "invalid_message_id: message_id is at most 200 characters") String messageId,
                        @QueryParam("queue") String queue) {
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
}
