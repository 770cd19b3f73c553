package dev.mailroom.redrive;

import java.time.Duration;
import dev.mailroom.platform.lease.LeasedWork;
import dev.mailroom.platform.lease.Leases;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Local;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Several nodes: a redrive run is carried out by the node it was started on. If that node dies and does not
 * come back (its liveness lease expired), the node holding the {@value #LEASE} lease marks the run
 * interrupted and resumes it here: published entries are never published again ({@link RedriveSteps}), the
 * rest go out at the run's rate. An operator had approved the run; a dead node must not leave it half done.
 * (A node that restarts marks its own runs interrupted instead, {@link RedriveRecovery}, before its liveness
 * lease could lapse.) It looks every {@code mailroom.lease.heartbeat}, on the timer
 * {@link dev.mailroom.platform.lease.LeasedTimers} gives it.
 */
@Singleton
@LocalBean
@Local(LeasedWork.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RedriveTakeover implements LeasedWork {

    public static final String LEASE = "redrive-takeover";
    static final String ACTOR = "redrive-takeover";
    private static final Logger LOG = Logger.getLogger(RedriveTakeover.class.getName());

    @Inject
    @ConfigProperty(name = "mailroom.lease.heartbeat", defaultValue = "PT10S")
    Duration interval;
    @Inject
    Leases leases;
    @Inject
    RedriveSteps steps;
    @Inject
    Redrives redrives;

    @Override
    public Schedule schedule() {
        return Schedule.of(LEASE, interval);
    }

    @Override
    public void work() {
        for (String node : steps.nodesRunningOtherThan(leases.node())) {
            if (leases.alive(node)) {
                continue;
            }
            List<String> runs = steps.runningOn(node);
            if (steps.interruptRunsOfStopped(node, () -> leases.fenced(LEASE)) < 0) {
                return; // this node was stopped past the takeover's lease: the node holding it now takes them over
            }
            for (String id : runs) {
                try {
                    redrives.resume(id, ACTOR);
                    LOG.warning(() -> "redrive " + id + " was running on " + node + ", which stopped: resumed on "
                            + leases.node());
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, e, () -> "redrive " + id + " of the stopped node " + node
                            + " could not be resumed here; it stays interrupted for an operator");
                }
            }
        }
    }
}
