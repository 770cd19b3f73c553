package dev.mailroom.ops.jmx;

import dev.mailroom.platform.MailroomConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.JMException;
import dev.mailroom.send.ProviderBreakers;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * Registers {@code mailroom:type=DeadLetters,queue=<queue>} for every send queue ({@code mailroom.queues}) in
 * the platform MBeanServer when the deployment starts, and unregisters them when it stops.
 *
 * <p>It is also the door the MBeans' calls come in by: a JMX thread has none of the deployment's context, so
 * every call runs as a business method of this bean ({@link #inDeployment}), where the container provides the
 * component's naming context ({@code java:comp}, which beans created on first use need for their resources),
 * class loader and CDI request context. No transaction: the core's beans bring their own.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class QueueMBeans {

    /** What a call produced: its value, or the exception it threw (returned, not thrown: no EJB wrapping or logging). */
    public record Outcome<T>(T value, RuntimeException failure) { }

    private static final Logger LOG = Logger.getLogger(QueueMBeans.class.getName());

    @Inject
    MailroomConfig config;
    @Inject
    QueueOperations operations;
    @Inject
    ProviderBreakers breakers;
    @Resource
    SessionContext session;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> registered = new ArrayList<>();

    /** Runs {@code work} inside the deployment (see the class comment). */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public <T> Outcome<T> inDeployment(Supplier<T> work) {
        try {
            return new Outcome<>(work.get(), null);
        } catch (RuntimeException e) {
            return new Outcome<>(null, e);
        }
    }

    @PostConstruct
    void register() {
        QueueMBeans door = session.getBusinessObject(QueueMBeans.class);
        for (String queue : config.queues()) {
            try {
                ObjectName name = QueueDeadLetters.objectName(queue);
                if (server.isRegistered(name)) {
                    // left over from an earlier deployment that did not stop cleanly
                    server.unregisterMBean(name);
                }
                server.registerMBean(new QueueDeadLetters(queue, operations, door), name);
                registered.add(name);
            } catch (JMException e) {
                LOG.log(Level.SEVERE, e, () -> "could not register the JMX MBean of send queue " + queue);
            }
        }
        for (ProviderBreakers.View provider : breakers.views()) {
            try {
                ObjectName name = ProviderBreakerBean.objectName(provider.name());
                if (server.isRegistered(name)) {
                    server.unregisterMBean(name);
                }
                // StandardMBean names the interface: the class's name does not follow the <Class>MBean convention
                server.registerMBean(new StandardMBean(new ProviderBreakerBean(provider.name(), breakers, door),
                        ProviderBreakerMBean.class), name);
                registered.add(name);
            } catch (JMException e) {
                LOG.log(Level.SEVERE, e, () -> "could not register the JMX MBean of provider " + provider.name());
            }
        }
        try {
            ObjectName name = ErasuresBean.objectName();
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
            server.registerMBean(new StandardMBean(new ErasuresBean(operations, door), ErasuresMBean.class), name);
            registered.add(name);
        } catch (JMException e) {
            LOG.log(Level.SEVERE, e, () -> "could not register the JMX MBean of erasures");
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
