package dev.mailroom.ops.jmx;

import dev.mailroom.ops.MailroomConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Registers {@code mailroom:type=DeadLetters,queue=<queue>} for every send queue ({@code mailroom.queues}) in
 * the platform MBeanServer when the deployment starts, and unregisters them when it stops.
 */
@Singleton
@Startup
public class QueueMBeans {

    private static final Logger LOG = Logger.getLogger(QueueMBeans.class.getName());

    @Inject
    MailroomConfig config;
    @Inject
    QueueOperations operations;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> registered = new ArrayList<>();

    @PostConstruct
    void register() {
        for (String queue : config.queues()) {
            try {
                ObjectName name = QueueDeadLetters.objectName(queue);
                if (server.isRegistered(name)) {
                    // left over from an earlier deployment that did not stop cleanly
                    server.unregisterMBean(name);
                }
                server.registerMBean(new QueueDeadLetters(queue, operations), name);
                registered.add(name);
            } catch (JMException e) {
                LOG.log(Level.SEVERE, e, () -> "could not register the JMX MBean of send queue " + queue);
            }
        }
        LOG.info(() -> "JMX MBeans registered: " + registered);
    }

    @PreDestroy
    void unregister() {
        for (ObjectName name : registered) {
            try {
                if (server.isRegistered(name)) {
                    server.unregisterMBean(name);
                }
            } catch (JMException e) {
                LOG.log(Level.WARNING, e, () -> "could not unregister " + name);
            }
        }
        registered.clear();
    }
}
