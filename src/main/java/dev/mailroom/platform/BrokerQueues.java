package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Queue figures read from the broker embedded in WildFly, through the server's management model as
 * exposed over JMX ({@code jboss.as:subsystem=messaging-activemq,server=default,queue=<name>}).
 */
@ApplicationScoped
public class BrokerQueues {

    /** Figures of one queue; -1 where the broker did not answer. */
    public record QueueFigures(String name, long depth, long inFlight, long scheduled, long consumers) { }

    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();

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
            throw new BrokerUnavailableException("broker figures for " + queue + " unavailable: " + e.getMessage(), e);
        }
    }

    private long number(ObjectName name, String attribute) throws JMException {
        Object v = mbeans.getAttribute(name, attribute);
        return v instanceof Number n ? n.longValue() : -1;
    }

    public static class BrokerUnavailableException extends RuntimeException {
        public BrokerUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
