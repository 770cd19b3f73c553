package dev.mailroom.platform.lease;

import dev.mailroom.platform.SchemaMigration;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Renews this node's leases every {@code mailroom.lease.heartbeat}, and releases them at a clean shutdown. */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class LeaseKeeper {

    @Resource
    TimerService timers;
    @Inject
    @ConfigProperty(name = "mailroom.lease.heartbeat", defaultValue = "PT10S")
    Duration heartbeat;
    @Inject
    Leases leases;
    @EJB
    SchemaMigration schema;

    private final AtomicBoolean running = new AtomicBoolean();

    @PostConstruct
    void schedule() {
        long ms = heartbeat.toMillis();
        if (ms * 2 >= leases.ttl().toMillis()) {
            throw new IllegalStateException("mailroom.lease.heartbeat " + heartbeat + " must be well below mailroom.lease.ttl "
                    + leases.ttl() + " (a third of it, say)");
        }
        timers.createIntervalTimer(0, ms, new TimerConfig("lease-keeper", false));
    }

    @Timeout
    void onTimer(Timer timer) {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            schema.awaitMigrated();
            leases.heartbeat();
        } finally {
            running.set(false);
        }
    }

    @PreDestroy
    void release() {
        leases.releaseAll();
    }
}
