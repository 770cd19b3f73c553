package dev.mailroom.ops.api;

import dev.mailroom.job.SendActivity;
import dev.mailroom.job.WaitingJobs;
import dev.mailroom.platform.BrokerQueues;
import dev.mailroom.platform.ConsumerControl;
import dev.mailroom.platform.MailroomConfig;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import dev.mailroom.stopline.Episode;
import dev.mailroom.stopline.LineState;
import dev.mailroom.stopline.StopLine;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/queues}: per send queue its depth, messages in flight, scheduled (the retry backlog), its DLQ's
 * depth, whether its consumers are paused on this node, and its send rate and accepted / failed (by class)
 * provider calls over the last hour. {@code GET /api/v1/queues/{queue}/waiting?limit=}: the jobs waiting on it
 * (browsed, never taken). {@code POST /api/v1/queues/{queue}/pause} and {@code /resume}: stop and
 * start the queue's consumers on this node ({@link ConsumerControl}); an unknown queue is a 404.
 */
@Path("/v1/queues")
@Produces(MediaType.APPLICATION_JSON)
public class QueueResource {

    /**
     * @param pausedReason what began the outage the queue's line is stopped in ({@code systemic},
     *                     {@code providers_open}, {@code dead_letter_rate}, {@code database}, {@code operator}):
     *                     kept while the line restarts and stops again in the same outage; null while it runs
     * @param pausedDetail what was seen then (the provider's answer, the dead-letter share, ...), null while it runs
     * @param pausedSince  when that outage began, null while it runs
     * @param pausedLatestReason what holds the line stopped now (the latest cause: what lifts it), null while it runs
     * @param pausedLatestDetail what was seen at the latest stop
     * @param pausedLatestSince  when the line stopped the latest time
     * @param failedProbes       probes of the outage that failed (a head-job probe, or a restart that stopped again)
     * @param scheduled    messages waiting on the broker for a later delivery: the retry backlog (and jobs
     *                     waiting out a throttle or an open breaker)
     * @param sentPerMinute         provider calls accepted per minute over the last five minutes ({@link SendActivity},
     *                              every node's attempts, as the following three)
     * @param acceptedLastHour      provider calls accepted in the last hour
     * @param failedLastHour        provider calls that failed in the last hour
     * @param failedLastHourByClass those failures by failure class; these four are null (not 0) while the
     *                              database does not answer: nobody can tell then, and a 0 would say nothing was sent
     */
    public record QueueView(String queue, long depth, long inFlight, long scheduled, long consumers,
                            String deadLetterQueue, long deadLetterDepth, boolean paused, String pausedReason,
                            String pausedDetail, Instant pausedSince, String pausedLatestReason,
                            String pausedLatestDetail, Instant pausedLatestSince, Integer failedProbes,
                            Double sentPerMinute, Long acceptedLastHour,
                            Long failedLastHour, Map<String, Long> failedLastHourByClass) { }

    static final int MAX_REASON = 500;

    @Inject
    MailroomConfig config;
    @Inject
    BrokerQueues broker;
    @Inject
    ConsumerControl consumers;
    @Inject
    StopLine stopLine;
    @Inject
    SendActivity activity;
    @Inject
    Clock clock;
    @Inject
    WaitingJobs waiting;
    @Inject
    Disclosure disclosure;
    @Context
    SecurityContext security;

    @GET
    public Response queues() {
        try {
            Map<String, SendActivity.QueueActivity> lately = activity.lastHourIfReachable(clock.instant()).orElse(null);
            List<QueueView> views = config.queues().stream().map(q -> {
                BrokerQueues.QueueFigures send = broker.figures(q);
                BrokerQueues.QueueFigures dlq = broker.figures("DLQ." + q);
                LineState line = stopLine.state(q);
                Episode outage = line.paused() ? line.episode() : null;
                SendActivity.QueueActivity a = lately == null ? null : lately.getOrDefault(q, SendActivity.QueueActivity.NONE);
                return new QueueView(q, send.depth(), send.inFlight(), send.scheduled(), send.consumers(),
                        dlq.name(), dlq.depth(), consumers.paused(q),
                        outage == null ? null : outage.firstReason().wireName(), outage == null ? null : outage.firstDetail(),
                        outage == null ? null : outage.start(),
                        line.paused() ? line.reason().wireName() : null, line.detail(), line.since(),
                        outage == null ? null : outage.failedProbes(),
                        a == null ? null : a.sentPerMinute(), a == null ? null : a.acceptedLastHour(),
                        a == null ? null : a.failedLastHour(), a == null ? null : a.failedByClass());
            }).toList();
            return Response.ok(views).build();
        } catch (BrokerQueues.BrokerUnavailableException e) {
            return ApiError.response(Response.Status.SERVICE_UNAVAILABLE, "broker_unavailable", e.getMessage());
        }
    }

    /**
     * The jobs waiting on the broker for {@code queue}, head first, at most {@code limit} (1-100): browsed, never
     * taken ({@link WaitingJobs}), with the queue's figures for what is not shown (the rest of the depth, the
     * scheduled copies). Recipients and subject redacted for a viewer as a payload is ({@code ?reveal=true}).
     */
    @GET
    @Path("/{queue}/waiting")
    public Response waiting(@PathParam("queue") String queue,
                            @QueryParam("limit") @DefaultValue("100") @Limit(max = WaitingJobs.MAX_LIMIT) String limit,
                            @QueryParam("reveal") boolean reveal) {
        if (!config.queues().contains(queue)) {
            return ApiError.response(Response.Status.NOT_FOUND, "queue_not_found",
                    "no send queue " + queue + "; the send queues are " + config.queues());
        }
        try {
            BrokerQueues.QueueFigures figures = broker.figures(queue);
            List<WaitingJobs.Waiting> items = waiting.first(queue, Integer.parseInt(limit), reveal);
            return disclosure.ok(new WaitingView(queue, figures.depth(), figures.inFlight(), figures.scheduled(),
                    consumers.paused(queue), items), reveal, security, null);
        } catch (BrokerQueues.BrokerUnavailableException e) {
            return ApiError.response(Response.Status.SERVICE_UNAVAILABLE, "broker_unavailable", e.getMessage());
        }
    }

    /**
     * @param depth     messages on the queue now (the items are its first ones)
     * @param scheduled copies due later (retries, put-backs): not browsable until due
     */
    public record WaitingView(String queue, long depth, long inFlight, long scheduled, boolean paused,
                              List<WaitingJobs.Waiting> items) { }

    /**
     * Stops the queue's consumers: its messages stay on the broker until resumed. {@code reason} (optional, at
     * most 500 characters) is kept with the pause: "paused by ann: provider maintenance".
     */
    @POST
    @Path("/{queue}/pause")
    public Response pause(@PathParam("queue") String queue, @QueryParam("reason") String reason) {
        if (reason != null && reason.length() > MAX_REASON) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_request",
                    "reason is at most " + MAX_REASON + " characters");
        }
        return Response.ok(stopLine.pauseByOperator(queue, actor(), reason)).build();
    }

    @POST
    @Path("/{queue}/resume")
    public ConsumerControl.QueueConsumers resume(@PathParam("queue") String queue) {
        return stopLine.resumeByOperator(queue, actor());
    }

    private String actor() {
        return Actors.of(security);
    }
}
