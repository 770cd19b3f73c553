package dev.mailroom.platform;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Queue figures read from the broker embedded in WildFly, through the server's management model as
 * exposed over JMX ({@code jboss.as:subsystem=messaging-activemq,server=default,queue=<name>}).
 */
final class EmbeddedBrokerQueues implements BrokerQueues {

    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();

    @Override
    public QueueFigures figures(String queue) {
        try {
            ObjectName name = new ObjectName(
                    "jboss.as:subsystem=messaging-activemq,server=default,queue=" + ObjectName.quote(queue));
            if (!mbeans.isRegistered(name)) {
                name = new ObjectName("jboss.as:subsystem=messaging-activemq,server=default,queue=" + queue);
            }
            return new QueueFigures(queue, number(name, "messageCount"), number(name, "deliveringCount"),
                    number(name, "scheduledCount"), number(name, "consumerCount"));
        } catch (JMException e) {
            throw new BrokerUnavailableException("broker figures for " + queue + " unavailable: " + e.getMessage()
                    + " (a server configured for a remote broker needs MAILROOM_BROKER_CONSOLE_URLS)", e);
        }
    }

    private long number(ObjectName name, String attribute) throws JMException {
        Object v = mbeans.getAttribute(name, attribute);
        return v instanceof Number n ? n.longValue() : -1;
    }
}
