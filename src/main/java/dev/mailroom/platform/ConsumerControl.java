package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Pauses and resumes the message-driven beans that consume a send queue on this node, through the server's delivery
 * switch ({@link ServerPlatform#consumers()}: WildFly's management model, Open Liberty's endpoint control). A paused
 * queue keeps its messages on the broker; messages already being handled finish. A pause lasts until resumed or
 * until the server restarts, and applies to this node only.
 */
@ApplicationScoped
public class ConsumerControl {

    private static final Logger LOG = Logger.getLogger(ConsumerControl.class.getName());

    /** One MDB consuming the queue, and whether it delivers messages now. */
    public record Consumer(String mdb, boolean deliveryActive) { }

    /** A send queue's consumers on this node; {@code paused}: it has consumers and none of them delivers. */
    public record QueueConsumers(String queue, boolean paused, List<Consumer> consumers) { }

    @Inject
    MailroomConfig config;

    @Inject
    ServerPlatform platform;

    /**
     * The MDBs per queue once every send queue had its consumers: this deployment's MDBs do not change while it
     * is deployed, and reading them walks the server's management model (GET /api/v1/queues, which dashboards and
     * the bench poll, spent most of its CPU there: bench/README.md).
     */
    private volatile Map<String, List<String>> settled;

    /** Whether the queue's consumers are paused (false for a queue without consumers here). */
    public boolean paused(String queue) {
        return state(queue).paused();
    }

    public QueueConsumers state(String queue) {
        requireSendQueue(queue);
        return read(queue, mdbs().getOrDefault(queue, List.of()));
    }

    /** Stops delivery to every MDB consuming the queue; idempotent. */
    public QueueConsumers pause(String queue, String actor) {
        return switchDelivery(queue, actor, false);
    }

    /** Starts delivery to every MDB consuming the queue again; idempotent. */
    public QueueConsumers resume(String queue, String actor) {
        return switchDelivery(queue, actor, true);
    }

    private QueueConsumers switchDelivery(String queue, String actor, boolean active) {
        requireSendQueue(queue);
        List<String> mdbs = mdbs().getOrDefault(queue, List.of());
        if (mdbs.isEmpty()) {
            throw new Refused.Conflict("no_consumers", "no message-driven bean of this deployment consumes " + queue
                    + " on this node");
        }
        ConsumerSwitch sw = platform.consumers();
        for (String mdb : mdbs) {
            if (active != sw.deliveryActive(mdb)) {
                sw.deliveryActive(mdb, active);
            }
        }
        QueueConsumers state = read(queue, mdbs);
        LOG.info(() -> String.format("consumers of %s %s by %s: %s", queue, active ? "resumed" : "paused",
                actor == null || actor.isBlank() ? "(unknown)" : actor, state.consumers()));
        return state;
    }

    private void requireSendQueue(String queue) {
        if (queue == null || !config.queues().contains(queue)) {
            throw new Refused.NotFound("queue_not_found", "no send queue named " + queue + " (send queues: "
                    + String.join(", ", config.queues()) + ")");
        }
    }

    private QueueConsumers read(String queue, List<String> mdbs) {
        ConsumerSwitch sw = platform.consumers();
        List<Consumer> consumers = mdbs.stream().map(mdb -> new Consumer(mdb, sw.deliveryActive(mdb))).toList();
        boolean paused = !consumers.isEmpty() && consumers.stream().noneMatch(Consumer::deliveryActive);
        return new QueueConsumers(queue, paused, consumers);
    }

    /**
     * The MDBs of this deployment per queue, read each time until every send queue has its MDBs (so it is right as
     * soon as the server has them), then kept.
     */
    Map<String, List<String>> mdbs() {
        Map<String, List<String>> known = settled;
        if (known != null) {
            return known;
        }
        Map<String, List<String>> out = platform.consumers().mdbsByQueue();
        if (config.queues().stream().allMatch(q -> !out.getOrDefault(q, List.of()).isEmpty())) {
            settled = Map.copyOf(out);
        }
        return out;
    }
}
