package dev.mailroom.ops.api;

import dev.mailroom.deadletter.JobDeadLetters;
import dev.mailroom.job.JobQueries;
import dev.mailroom.job.JobSearch;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.DefaultValue;
import dev.mailroom.send.ScheduledSends;
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
 * {@code GET /api/v1/jobs?recipient=&message_id=&idempotency_key=&campaign_id=&tenant=&state=&from=&to=&cursor=&limit=}:
 * jobs found the way support asks ({@link JobSearch}), newest first, keyset-paged ({@code next} is the following
 * page's {@code cursor}).
 * {@code GET /api/v1/jobs/{message_id}[?queue=]}: a job's state, subject or template, queued and received times,
 * attempts, timeline, recipients with their delivery state, and its dead letters ({@code dead_letters}). Both redacted for a viewer as a payload is ({@link Disclosure}; {@code ?reveal=true}: operators).
 * {@code POST .../mark-sent} and {@code POST .../send-again} with {@code {"reason": ...}}: an operator's
 * answer to a job whose send is {@code unknown}, recorded with who and why.
 * {@code POST .../cancel} with {@code {"reason": ...}}: an operator cancels a {@code scheduled} job (its
 * {@code send_at} still ahead); it ends {@code cancelled}, never sent, recorded with who and why.
 */
@Path("/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
public class JobResource {

    @Inject
    JobQueries jobs;
    @Inject
    JobSearch search;
    @Inject
    UnknownSends unknownSends;
    @Inject
    ScheduledSends scheduledSends;
    @Inject
    JobDeadLetters deadLetters;
    @Inject
    Disclosure disclosure;
    @Context
    SecurityContext security;

    @GET
    public Response find(@QueryParam("recipient")
                         @Size(max = 320, message = "invalid_recipient: recipient is at most 320 characters") String recipient,
                         @QueryParam("message_id")
                         @Size(max = 200, message = "invalid_message_id: message_id is at most 200 characters") String messageId,
                         @QueryParam("idempotency_key")
                         @Size(max = 200, message = "invalid_idempotency_key: idempotency_key is at most 200 characters")
                         String idempotencyKey,
                         @QueryParam("campaign_id")
                         @Size(max = 200, message = "invalid_campaign_id: campaign_id is at most 200 characters") String campaignId,
                         @QueryParam("tenant")
                         @Size(max = 200, message = "invalid_tenant: tenant is at most 200 characters") String tenant,
                         @QueryParam("state")
                         @Pattern(regexp = "[a-z_]{0,40}", message = "invalid_state: state is a job state such as "
                                 + "sent_to_provider or bounced_permanent") String state,
                         @QueryParam("from") String from, @QueryParam("to") String to,
                         @QueryParam("cursor")
                         @Pattern(regexp = "[0-9]{0,18}", message = "invalid_cursor: cursor is the next value of a "
                                 + "previous page") String cursor,
                         @QueryParam("limit") @DefaultValue("50") @Limit(max = JobSearch.MAX_LIMIT) String limit,
                         @QueryParam("reveal") boolean reveal) {
        JobSearch.Criteria criteria = JobSearch.Criteria.parse(recipient, messageId, idempotencyKey, campaignId, tenant,
                state, from, to, cursor);
        return disclosure.ok(search.search(criteria, Integer.parseInt(limit), reveal), reveal, security, null);
    }

    @GET
    @Path("/{messageId}")
    public Response job(@PathParam("messageId")
                        @jakarta.validation.constraints.Size(max = 200,
                                message = "invalid_message_id: message_id is at most 200 characters") String messageId,
                        @QueryParam("queue") String queue, @QueryParam("reveal") boolean reveal) {
        List<JobQueries.JobView> found = jobs.byMessageId(messageId, queue, reveal);
        if (found.isEmpty()) {
            return ApiError.response(Response.Status.NOT_FOUND, "job_not_found",
                    "no job with message_id '" + messageId + "'" + (queue == null ? "" : " on queue " + queue));
        }
        if (found.size() > 1) {
            return ApiError.response(Response.Status.CONFLICT, "ambiguous_message_id",
                    "message_id '" + messageId + "' is on several queues "
                            + found.stream().map(JobQueries.JobView::queue).toList() + "; add ?queue=");
        }
        JobQueries.JobView job = found.get(0);
        return disclosure.ok(new JobPage(job, deadLetters.of(job.id(), job.messageId(), job.queue())), reveal,
                security, null);
    }

    /** A job as its page shows it: the job, and its dead letters (newest first) to link straight to. */
    public record JobPage(@com.fasterxml.jackson.annotation.JsonUnwrapped JobQueries.JobView job,
                          List<JobDeadLetters.Link> deadLetters) { }

    @POST
    @Path("/{messageId}/mark-sent")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response markSent(@PathParam("messageId") String messageId, @QueryParam("queue") String queue,
                             DeadLetterResource.ActionRequest request) {
        unknownSends.markSent(messageId, queue, Actors.of(security), request == null ? null : request.reason());
        return job(messageId, queue, false);
    }

    @POST
    @Path("/{messageId}/cancel")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response cancel(@PathParam("messageId") String messageId, @QueryParam("queue") String queue,
                           DeadLetterResource.ActionRequest request) {
        scheduledSends.cancel(messageId, queue, Actors.of(security), request == null ? null : request.reason());
        return job(messageId, queue, false);
    }

    @POST
    @Path("/{messageId}/send-again")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response sendAgain(@PathParam("messageId") String messageId, @QueryParam("queue") String queue,
                              DeadLetterResource.ActionRequest request) {
        unknownSends.sendAgain(messageId, queue, Actors.of(security), request == null ? null : request.reason());
        return Response.status(Response.Status.ACCEPTED).entity(disclosure.view(jobs.byMessageId(messageId, queue, false).get(0), false, security, null)).build();
    }
}
