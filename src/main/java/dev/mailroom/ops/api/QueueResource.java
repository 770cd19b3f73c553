package dev.mailroom.ops.api;

import dev.mailroom.ops.BrokerQueues;
import dev.mailroom.ops.MailroomConfig;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** {@code GET /api/v1/queues}: per send queue its depth, messages in flight, and its DLQ's depth. */
@Path("/v1/queues")
@Produces(MediaType.APPLICATION_JSON)
public class QueueResource {

    public record QueueView(String queue, long depth, long inFlight, long scheduled, long consumers,
                            String deadLetterQueue, long deadLetterDepth) { }

    @Inject
    MailroomConfig config;
    @Inject
    BrokerQueues broker;

    @GET
    public Response queues() {
        try {
            List<QueueView> views = config.queues().stream().map(q -> {
                BrokerQueues.QueueFigures send = broker.figures(q);
                BrokerQueues.QueueFigures dlq = broker.figures("DLQ." + q);
                return new QueueView(q, send.depth(), send.inFlight(), send.scheduled(), send.consumers(),
                        dlq.name(), dlq.depth());
            }).toList();
            return Response.ok(views).build();
        } catch (BrokerQueues.BrokerUnavailableException e) {
            return ApiError.response(Response.Status.SERVICE_UNAVAILABLE, "broker_unavailable", e.getMessage());
        }
    }
}
