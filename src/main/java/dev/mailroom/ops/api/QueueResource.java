package dev.mailroom.ops.api;

import dev.mailroom.platform.BrokerQueues;
import dev.mailroom.platform.ConsumerControl;
import dev.mailroom.platform.MailroomConfig;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import dev.mailroom.stopline.LineState;
import dev.mailroom.stopline.StopLine;
import java.time.Instant;
import java.util.List;

/**
 * {@code GET /api/v1/queues}: per send queue its depth, messages in flight, its DLQ's depth, and whether its
 * consumers are paused on this node. {@code POST /api/v1/queues/{queue}/pause} and {@code /resume}: stop and
 * start the queue's consumers on this node ({@link ConsumerControl}); an unknown queue is a 404.
 */
@Path("/v1/queues")
@Produces(MediaType.APPLICATION_JSON)
public class QueueResource {

    /**
     * @param pausedReason why the queue's line is stopped ({@code systemic}, {@code providers_open},
     *                     {@code dead_letter_rate}, {@code database}, {@code operator}), null while it runs
     * @param pausedDetail what stopped it (the provider's answer, the dead-letter share, ...), null while it runs
     * @param pausedSince  since when, null while it runs
     */
    public record QueueView(String queue, long depth, long inFlight, long scheduled, long consumers,
                            String deadLetterQueue, long deadLetterDepth, boolean paused, String pausedReason,
                            String pausedDetail, Instant pausedSince) { }

    @Inject
    MailroomConfig config;
    @Inject
    BrokerQueues broker;
    @Inject
    ConsumerControl consumers;
    @Inject
    StopLine stopLine;
    @Context
    SecurityContext security;

    @GET
    public Response queues() {
        try {
            List<QueueView> views = config.queues().stream().map(q -> {
                BrokerQueues.QueueFigures send = broker.figures(q);
                BrokerQueues.QueueFigures dlq = broker.figures("DLQ." + q);
                LineState line = stopLine.state(q);
                return new QueueView(q, send.depth(), send.inFlight(), send.scheduled(), send.consumers(),
                        dlq.name(), dlq.depth(), consumers.paused(q),
                        line.paused() ? line.reason().wireName() : null, line.detail(), line.since());
            }).toList();
            return Response.ok(views).build();
        } catch (BrokerQueues.BrokerUnavailableException e) {
            return ApiError.response(Response.Status.SERVICE_UNAVAILABLE, "broker_unavailable", e.getMessage());
        }
    }

    /** Stops the queue's consumers on this node: its messages stay on the broker until resumed. */
    @POST
    @Path("/{queue}/pause")
    public ConsumerControl.QueueConsumers pause(@PathParam("queue") String queue) {
        return stopLine.pauseByOperator(queue, actor());
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
