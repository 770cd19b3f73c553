package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * Pauses and resumes the message-driven beans that consume a send queue on this node, through WildFly's
 * management model as exposed over JMX
 * ({@code jboss.as:deployment=mailroom.war,subsystem=ejb3,message-driven-bean=<name>}: operations
 * {@code stopDelivery} / {@code startDelivery}, attribute {@code deliveryActive}). A paused queue keeps its
 * messages on the broker; messages already being handled finish. Which MDBs consume a queue is read from their
 * activation config ({@link ConsumerMap}). A pause lasts until resumed or until the server restarts, and
 * applies to this node only.
 */
@ApplicationScoped
public class ConsumerControl {

    private static final Logger LOG = Logger.getLogger(ConsumerControl.class.getName());
    private static final String MDB_PATTERN = "jboss.as:subsystem=ejb3,message-driven-bean=*,*";

    /** One MDB consuming the queue, and whether it delivers messages now. */
    public record Consumer(String mdb, boolean deliveryActive) { }

    /** A send queue's consumers on this node; {@code paused}: it has consumers and none of them delivers. */
    public record QueueConsumers(String queue, boolean paused, List<Consumer> consumers) { }

    @Inject
    MailroomConfig config;

    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    /**
     * The MDBs per queue once every send queue had its consumers: this deployment's MDBs do not change while it
     * is deployed, and the JMX pattern query walks the server's whole management model (GET /api/v1/queues,
     * which dashboards and the bench poll, spent most of its CPU there: bench/README.md).
     */
    private volatile Map<String, List<ObjectName>> settled;

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
        List<ObjectName> names = mdbs().getOrDefault(queue, List.of());
        if (names.isEmpty()) {
            throw new Refused.Conflict("no_consumers", "no message-driven bean of this deployment consumes " + queue
                    + " on this node");
        }
        try {
            for (ObjectName name : names) {
                if (active != Boolean.TRUE.equals(mbeans.getAttribute(name, "deliveryActive"))) {
                    mbeans.invoke(name, active ? "startDelivery" : "stopDelivery", new Object[0], new String[0]);
                }
            }
        } catch (JMException e) {
            throw new IllegalStateException("could not " + (active ? "resume" : "pause") + " the consumers of "
                    + queue + ": " + e, e);
        }
        QueueConsumers state = read(queue, names);
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

    private QueueConsumers read(String queue, List<ObjectName> names) {
        List<Consumer> consumers = new ArrayList<>();
        try {
            for (ObjectName name : names) {
                consumers.add(new Consumer(name.getKeyProperty("message-driven-bean"),
                        Boolean.TRUE.equals(mbeans.getAttribute(name, "deliveryActive"))));
            }
        } catch (JMException e) {
            throw new IllegalStateException("could not read the consumers of " + queue + ": " + e, e);
        }
        boolean paused = !consumers.isEmpty() && consumers.stream().noneMatch(Consumer::deliveryActive);
        return new QueueConsumers(queue, paused, List.copyOf(consumers));
    }

    /**
     * The MDBs of this deployment per queue: every MDB the server reports whose class this deployment's class
     * loader defines, grouped by the queue its activation config names. Read each time until every send queue
     * has its MDBs (so it is right as soon as the deployment's management resources exist), then kept.
     */
    Map<String, List<ObjectName>> mdbs() {
        Map<String, List<ObjectName>> known = settled;
        if (known != null) {
            return known;
        }
        Map<String, Map<String, String>> configs = new HashMap<>();
        Map<String, ObjectName> names = new LinkedHashMap<>();
        try {
            for (ObjectName name : mbeans.queryNames(new ObjectName(MDB_PATTERN), null)) {
                if (!ours(String.valueOf(mbeans.getAttribute(name, "componentClassName")))) {
                    continue;
                }
                String mdb = name.getKeyProperty("message-driven-bean");
                configs.put(mdb, activationConfig(mbeans.getAttribute(name, "activationConfig")));
                names.put(mdb, name);
            }
        } catch (JMException e) {
            throw new IllegalStateException("could not read the message-driven beans from the server: " + e, e);
        }
        Map<String, List<ObjectName>> out = new HashMap<>();
        ConsumerMap.byQueue(configs).forEach((queue, mdbs) -> out.put(queue, mdbs.stream().map(names::get).toList()));
        if (config.queues().stream().allMatch(q -> !out.getOrDefault(q, List.of()).isEmpty())) {
            settled = Map.copyOf(out);
        }
        return out;
    }

    private boolean ours(String className) {
        ClassLoader loader = ConsumerControl.class.getClassLoader();
        try {
            return Class.forName(className, false, loader).getClassLoader() == loader;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static Map<String, String> activationConfig(Object value) {
        Map<String, String> out = new HashMap<>();
        if (value instanceof TabularData table) {
            for (Object row : table.values()) {
                if (row instanceof CompositeData entry && entry.containsKey("key") && entry.containsKey("value")) {
                    out.put(String.valueOf(entry.get("key")), String.valueOf(entry.get("value")));
                }
            }
        }
        return out;
    }
}
