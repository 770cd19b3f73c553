package dev.mailroom.platform.wildfly;

import dev.mailroom.platform.BrokerQueues;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Queue figures read from the broker embedded in WildFly, through the server's management model as
 * exposed over JMX ({@code jboss.as:subsystem=messaging-activemq,server=default,runtime-queue=<name>}).
 */
final class EmbeddedBrokerQueues implements BrokerQueues {

    private static final String PREFIX = "jboss.as:subsystem=messaging-activemq,server=default,";

    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();

    @Override
    public QueueFigures figures(String queue) {
        try {
            ObjectName name = registered(queue);
            return new QueueFigures(queue, number(name, "messageCount"), number(name, "deliveringCount"),
                    number(name, "scheduledCount"), number(name, "consumerCount"));
        } catch (JMException e) {
            throw new BrokerUnavailableException("broker figures for " + queue + " unavailable: " + e.getMessage()
                    + " (a server configured for a remote broker needs MAILROOM_BROKER_CONSOLE_URLS)", e);
        }
    }

    /**
     * The queue's management resource: {@code runtime-queue=<name>} for a queue the broker created (the send
     * queues and their DLQs since they stopped being WildFly {@code queue} resources, see
     * server-config/wildfly/send-queue-mail.send.cli), {@code queue=<name>} for one the server configuration
     * declares (an installation configured before that).
     */
    private ObjectName registered(String queue) throws JMException {
        List<ObjectName> candidates = new ArrayList<>();
        for (String type : List.of("runtime-queue", "queue")) {
            candidates.add(new ObjectName(PREFIX + type + "=" + ObjectName.quote(queue)));
            candidates.add(new ObjectName(PREFIX + type + "=" + queue));
        }
        for (ObjectName name : candidates) {
            if (mbeans.isRegistered(name)) {
                return name;
            }
        }
        throw new InstanceNotFoundException("no management resource for queue " + queue + " (tried " + candidates + ")");
    }

    private long number(ObjectName name, String attribute) throws JMException {
        Object v = mbeans.getAttribute(name, attribute);
        return v instanceof Number n ? n.longValue() : -1;
    }
}
