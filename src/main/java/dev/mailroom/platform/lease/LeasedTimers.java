package dev.mailroom.platform.lease;

import dev.mailroom.platform.SchemaMigration;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.EJBException;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * The one timer-and-lease set-up of every {@link LeasedWork}: an interval timer per work (named by its
 * lease, first tick one interval after deployment); at each tick, once the schema is migrated, this node
 * takes its turn at the lease and calls {@link LeasedWork#work} when it holds it, {@link LeasedWork#idle}
 * when not. A tick that finds the previous one of the same work still running is skipped. No transaction
 * here: each work is called through its own bean and runs in the transaction that bean declares.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class LeasedTimers {

    private static final Logger LOG = Logger.getLogger(LeasedTimers.class.getName());

    @Resource
    TimerService timers;
    @Inject
    @Any
    Instance<LeasedWork> works;
    @Inject
    Leases leases;
    @EJB
    SchemaMigration schema;

    private final Map<String, LeasedWork> byLease = new ConcurrentHashMap<>();
    private final Map<String, AtomicBoolean> running = new ConcurrentHashMap<>();

    @PostConstruct
    void schedule() {
        for (LeasedWork work : works) {
            LeasedWork.Schedule schedule = work.schedule();
            if (byLease.putIfAbsent(schedule.lease(), work) != null) {
                throw new IllegalStateException("two leased works share the lease " + schedule.lease());
            }
            running.put(schedule.lease(), new AtomicBoolean());
            long ms = schedule.interval().toMillis();
            timers.createIntervalTimer(ms, ms, new TimerConfig(schedule.lease(), false));
            LOG.info(() -> "leased work " + schedule.lease() + " every " + schedule.interval());
        }
    }

    @Timeout
    void onTimer(Timer timer) {
        String lease = (String) timer.getInfo();
        AtomicBoolean busy = running.get(lease);
        if (!busy.compareAndSet(false, true)) {
            return;
        }
        try {
            schema.awaitMigrated();
            LeasedWork work = byLease.get(lease);
            if (leases.takeTurn(lease)) {
                work.work();
            } else {
                work.idle();
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new EJBException(lease + ": " + e.getMessage(), e);
        } finally {
            busy.set(false);
        }
    }
}
