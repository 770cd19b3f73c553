package dev.mailroom.ops.api;

import dev.mailroom.deadletter.DeadLetterFilter;
import dev.mailroom.deadletter.DeadLetterMetrics;
import dev.mailroom.deadletter.DeadLetterArrivals;
import dev.mailroom.deadletter.DeadLetterDetail;
import dev.mailroom.deadletter.DeadLetterGroups;
import dev.mailroom.deadletter.DeadLetterQueries;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.format.DateTimeParseException;

/**
 * Dead letters: {@code GET /api/v1/dead-letters} (filtered, newest first, paged by the keyset cursor
 * {@code after} = a page's {@code next_cursor}, or by {@code offset}),
 * {@code /dead-letters/{id}} (the whole envelope), {@code /dead-letters/groups} (counts by cause) and
 * {@code /dead-letters/stats} (open counts, oldest age, retention, jobs by state: what the metrics say).
 */
@Path("/v1/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
public class DeadLetterResource {

    @Inject
    DeadLetterQueries deadLetters;
    @Inject
    DeadLetterGroups groups;
    @Inject
    DeadLetterArrivals arrivalCounts;
    @Inject
    DeadLetterDetail detail;
    @Inject
    DeadLetterMetrics metrics;
    @Inject
    dev.mailroom.deadletter.DeadLetterActions actions;
    @Inject
    java.time.Clock clock;
    @Inject
    dev.mailroom.redrive.DeadLetterRevisions revisions;
    @Inject
    dev.mailroom.redrive.Redrives redrives;
    @jakarta.ws.rs.core.Context
    jakarta.ws.rs.core.SecurityContext security;
    @Inject
    Disclosure disclosure;
    @Inject
    dev.mailroom.platform.BuildInfo build;

    /**
     * The list; its filter is every {@link dev.mailroom.deadletter.DeadLetterFilter} field by wire name
     * ({@link DeadLetterFilterParam}).
     */
    @GET
    public Response list(@BeanParam DeadLetterFilterParam filterParam, @QueryParam("after") String after,
                         @QueryParam("offset") @DefaultValue("0")
                         @Limit(min = 0, max = Integer.MAX_VALUE, name = "offset") String offset,
                         @QueryParam("limit") @DefaultValue("100") @Limit(max = 1000) String limit) {
        int n = Integer.parseInt(limit);
        int skip = Integer.parseInt(offset);
        DeadLetterFilter filter = filterParam.filter("after", "offset", "limit");
        DeadLetterQueries.Cursor cursor = null;
        if (after != null && !after.isBlank()) {
            if (skip != 0) {
                return ApiError.response(Response.Status.BAD_REQUEST, "invalid_request",
                        "after (a keyset cursor) and offset do not go together: take one");
            }
            try {
                cursor = DeadLetterQueries.Cursor.parse(after);
            } catch (IllegalArgumentException e) {
                return ApiError.response(Response.Status.BAD_REQUEST, "invalid_cursor", e.getMessage());
            }
        }
        return Response.ok(deadLetters.listPage(filter, cursor, skip, n)).build();
    }

    /**
     * Counts by group for the list's filter; {@code status} defaults to {@code open}, {@code all} is every status.
     */
    @GET
    @Path("/groups")
    public Response groups(@BeanParam DeadLetterFilterParam filterParam) {
        DeadLetterFilter filter = filterParam.filter((name, given) -> !"status".equals(name) ? given
                : given == null || given.isBlank() ? "open" : "all".equals(given.trim()) ? null : given);
        return Response.ok(groups.groups(filter, build.consumerVersion())).build();
    }

    /**
     * {@code GET /api/v1/dead-letters/arrivals?queue=&bucket=PT1M&hours=24}: how many dead letters arrived
     * (by {@code failed_at}) per bucket over the last hours, oldest first, empty buckets included; the
     * console's arrival-rate chart. {@code bucket} is an ISO-8601 duration from PT1M to P1D, {@code hours}
     * a whole number from 1 to 720, at most {@value DeadLetterArrivals#MAX_BUCKETS} buckets.
     */
    @GET
    @Path("/arrivals")
    public Response arrivals(@QueryParam("queue") String queue,
                             @QueryParam("bucket") @DefaultValue("PT1M") String bucket,
                             @QueryParam("hours") @DefaultValue("24") @Limit(max = 720, name = "hours") String hours) {
        java.time.Duration size;
        try {
            size = java.time.Duration.parse(bucket.trim());
        } catch (DateTimeParseException e) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_bucket",
                    "bucket is an ISO-8601 duration such as PT1M, PT15M or PT1H: " + bucket);
        }
        if (size.compareTo(java.time.Duration.ofMinutes(1)) < 0 || size.compareTo(java.time.Duration.ofDays(1)) > 0) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_bucket",
                    "bucket is from PT1M to P1D: " + bucket);
        }
        int h = Integer.parseInt(hours);
        if (java.time.Duration.ofHours(h).dividedBy(size) >= DeadLetterArrivals.MAX_BUCKETS) {
            return ApiError.response(Response.Status.BAD_REQUEST, "too_many_buckets", "hours / bucket gives more than "
                    + DeadLetterArrivals.MAX_BUCKETS + " buckets: take a larger bucket or fewer hours");
        }
        String q = queue == null || queue.isBlank() ? null : queue.trim();
        return Response.ok(arrivalCounts.arrivals(q, size, h, clock.instant())).build();
    }

    @GET
    @Path("/stats")
    public Response stats() {
        var snapshot = metrics.latest();
        if (snapshot == null) {
            return ApiError.response(Response.Status.SERVICE_UNAVAILABLE, "not_ready",
                    "the dead-letter monitor has not taken its first snapshot yet");
        }
        return Response.ok(snapshot).build();
    }

    /** The body of an operator action: why (who is the authenticated user; an {@code actor} sent is ignored). */
    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    public record ActionRequest(String reason) { }

    /** An edit: the job as a JSON object or a string, why, and whether it gets a new idempotency key. */
    public record RevisionRequest(com.fasterxml.jackson.databind.JsonNode payload, String reason,
                                  Boolean newIdempotencyKey) { }

    /**
     * {@code POST /api/v1/dead-letters/{id}/discard} with {@code {"reason": ...}}: resolved without
     * sending, recorded with who and why.
     */
    @POST
    @Path("/{id}/discard")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response discard(@PathParam("id") String id, ActionRequest request) {
        actions.discard(id(id), Actors.of(security), request == null ? null : request.reason());
        return one(id, false);
    }

    /** {@code POST /api/v1/dead-letters/{id}/revisions}: an edited payload, validated, beside the original. */
    @POST
    @Path("/{id}/revisions")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response revise(@PathParam("id") String id, RevisionRequest request) {
        if (request == null) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_request",
                    "the body is {\"payload\": <job>, \"reason\": \"...\"}");
        }
        String payload = request.payload() == null || request.payload().isNull() ? null
                : request.payload().isTextual() ? request.payload().asText() : request.payload().toString();
        return Response.status(Response.Status.CREATED).entity(disclosure.view(revisions.revise(id(id), payload,
                Boolean.TRUE.equals(request.newIdempotencyKey()), Actors.of(security), request.reason()), false,
                security, null)).build();
    }

    @GET
    @Path("/{id}/revisions")
    public Response revisions(@PathParam("id") String id, @QueryParam("reveal") boolean reveal) {
        return disclosure.ok(revisions.revisions(id(id)), reveal, security, "GET /dead-letters/" + id + "/revisions");
    }

    /** {@code POST /api/v1/dead-letters/{id}/replay}: a one-entry redrive of its latest revision, run now. */
    @POST
    @Path("/{id}/replay")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response replay(@PathParam("id") String id, ActionRequest request) {
        return Response.status(Response.Status.ACCEPTED).entity(disclosure.view(redrives.replayOne(id(id),
                Actors.of(security), request == null ? null : request.reason()), false, security, null)).build();
    }

    private static long id(String id) {
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            throw new dev.mailroom.platform.Refused.Invalid("invalid_id", "a dead letter's id is a number, not " + id);
        }
    }

    @GET
    @Path("/{id}")
    public Response one(@PathParam("id") @jakarta.validation.constraints.Pattern(regexp = "[0-9]{1,18}",
                                message = "invalid_id: a dead letter's id is a number") String id,
                        @QueryParam("reveal") boolean reveal) {
        long n = Long.parseLong(id);
        return detail.envelope(n)
                .map(e -> disclosure.ok(e, reveal, security, "GET /dead-letters/" + id))
                .orElseGet(() -> ApiError.response(Response.Status.NOT_FOUND, "dead_letter_not_found",
                        "no dead letter with id " + id));
    }

}
