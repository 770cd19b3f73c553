package dev.mailroom.alert;

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
import java.util.UUID;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Delivers the alert outbox, on the one node holding the {@value #LEASE} lease (its timer and lease are
 * {@link dev.mailroom.platform.lease.LeasedTimers}'s): every {@code mailroom.alerts.outbox-interval} (default 1 s) it feeds the undelivered rows, oldest first, to a
 * dispatcher of its own (routing, grouping, every sink with its retries, as {@link AlertDispatcher} does),
 * stamped with the dispatcher's feed id, ticks it, and marks delivered the rows it has below its
 * {@link AlertDispatcher#deliveredBelow low mark}: those every sink took, in the alert they were counted in (or
 * gave up on after the retry bounds, which the log shows in full). A node that gets the lease starts with a
 * fresh dispatcher, fed every undelivered row; one that loses it drops its dispatcher undelivered, for the new
 * holder has the rows. So a restart, a
 * graceful stop with a receiver down or a {@code kill -9} loses nothing, and each alert is delivered once —
 * except one delivered in the instant between a sink taking it and its row being marked, which the next
 * holder delivers again (at least once, never lost). A node stopped past its lease (a long pause) and woken in the
 * middle of a tick checks the lease row before it delivers ({@link Leases#stillHeld}) and before it feeds or marks
 * rows ({@link AlertOutbox}): it drops its dispatcher, the new holder delivers.
 */
@Singleton
@LocalBean
@Local(LeasedWork.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class AlertOutboxDelivery implements LeasedWork {

    /** The lease of alert delivery: one node delivers at a time. */
    public static final String LEASE = "alert-delivery";
    /** Rows fed to the dispatcher per tick at most: a backlog is taken in steps. */
    static final int BATCH = 1000;
    private static final Logger LOG = Logger.getLogger(AlertOutboxDelivery.class.getName());

    @Inject
    @ConfigProperty(name = "mailroom.alerts.outbox-interval", defaultValue = "PT1S")
    Duration interval;
    @Inject
    AlertOutbox outbox;
    @Inject
    AlertService alerts;
    @Inject
    Leases leases;

    /** The holder's dispatcher; null while this node does not hold the lease. Touched by the timer only. */
    private AlertDispatcher dispatcher;
    /** The stamp of the rows {@link #dispatcher} has ({@code alert_outbox.fed_in}), new with every dispatcher. */
    private String feed;

    @Override
    public Schedule schedule() {
        return Schedule.of(LEASE, interval);
    }

    /** Not (or no longer) the holder: the new holder has the rows, this node's dispatcher is dropped. */
    @Override
    public void idle() {
        if (dispatcher != null) {
            LOG.info(() -> "alert-delivery lease lost: " + leases.node() + " leaves the undelivered alerts to the new holder");
            dispatcher = null;
        }
    }

    /**
     * One tick on the holder. A database that does not answer fails the tick (the rows stay, the next tick
     * tries again); the dispatcher keeps what it was fed, so nothing is raised twice.
     */
    @Override
    public void work() {
        if (dispatcher == null) {
            dispatcher = alerts.newDispatcher();
            feed = UUID.randomUUID().toString();
        }
        for (AlertOutbox.Row row : outbox.feed(feed, BATCH)) {
            if (!dispatcher.raise(row.event(), row.id())) {
                // its queue is full (it holds queue-capacity occurrences): start afresh with a new dispatcher,
                // which is fed every undelivered row again
                LOG.warning("alert outbox: the dispatcher's queue is full; starting again from the undelivered rows");
                dispatcher = null;
                return;
            }
        }
        if (!leases.stillHeld(LEASE)) {
            // this node was stopped past its lease (a long pause) and another one delivers now: what this
            // dispatcher holds is the new holder's to deliver, not this node's
            idle();
            return;
        }
        dispatcher.tick();
        int marked = outbox.markDelivered(feed, dispatcher.deliveredBelow(AlertDispatcher.UNTRACKED));
        if (marked > 0) {
            LOG.fine(() -> marked + " alert occurrence(s) delivered by " + leases.node());
        }
    }
}
