package dev.mailroom.reconcile;

import dev.mailroom.platform.lease.LeasedWork;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Local;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The reconciliation job. Two ways in, never at once on one node (and, with several nodes, only on the
 * holder of the {@value #LEASE} lease):
 * <ul>
 *   <li><b>at once</b>: every call the inbox stores is announced ({@link WebhookInbox.Stored}, after its commit);
 *       the announced ids are reconciled right away on a managed thread, in batches of what has arrived meanwhile
 *       (so a burst is worked off in a few large batches, not one small one per timer tick);</li>
 *   <li><b>the sweep</b>, every {@code mailroom.reconcile.interval} (default 1 s): every call still {@code received}
 *       in batches of {@value #MAX_PER_BATCH} ({@link ReconcileBatch}, each its own transaction) until the inbox is
 *       drained or the run has taken one interval — calls waiting for their job, calls another node stored, calls
 *       announced while this node did not hold the lease; then the {@link DeliveryWatch} when its interval is due.
 *       The tick and the lease are {@link dev.mailroom.platform.lease.LeasedTimers}'; the tick only asks for the
 *       sweep, which runs on the managed thread.</li>
 * </ul>
 * Measured before the first way existed: the sweep alone (batches of 200, a few queries per event) applied ~200
 * calls/s against a 470 calls/s burst, a reconciliation lag p99 of 47 s.
 */
@Singleton
@LocalBean
@Local(LeasedWork.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Reconciler implements LeasedWork {

    static final int MAX_PER_BATCH = 500;
    /** With several nodes, one reconciles at a time: the one holding this lease. */
    public static final String LEASE = "reconciler";
    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;
    @Inject
    @ConfigProperty(name = "mailroom.reconcile.interval", defaultValue = "PT1S")
    String interval;
    @Inject
    ReconcileBatch batch;
    @Inject
    DeliveryWatch watch;
    @Inject
    Clock clock;
    @Inject
    dev.mailroom.platform.lease.Leases leases;

    /** Inbox ids announced since the last batch. */
    private final ConcurrentLinkedQueue<Long> fresh = new ConcurrentLinkedQueue<>();
    /** A tick asked for a sweep. */
    private final AtomicBoolean sweepDue = new AtomicBoolean();
    /** Whether a run (either way in) is going on on this node: at most one, on a managed thread. */
    private final AtomicBoolean running = new AtomicBoolean();

    @Override
    public Schedule schedule() {
        return Schedule.of(LEASE, interval);
    }

    /** The inbox stored a call: reconcile it now, unless this node does not reconcile (the holder's sweep will). */
    public void stored(@Observes(during = TransactionPhase.AFTER_SUCCESS) WebhookInbox.Stored call) {
        if (leases.heldHere(LEASE)) {
            fresh.add(call.id());
            start();
        }
    }

    /**
     * A tick: a sweep is due. It runs on the managed thread too, between two batches of fresh calls if those are
     * being worked off, so a steady stream of webhooks never starves the calls that wait for their job.
     */
    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void work() {
        sweepDue.set(true);
        start();
    }

    private void start() {
        if (running.compareAndSet(false, true)) {
            executor.execute(this::drain);
        }
    }

    /** Not one transaction: each batch commits on its own, so a long run holds no locks for long. */
    private void drain() {
        try {
            while (leases.heldHere(LEASE)) {
                if (sweepDue.getAndSet(false)) {
                    run();
                } else if (!fresh.isEmpty()) {
                    List<Long> ids = new ArrayList<>();
                    for (Long id; ids.size() < MAX_PER_BATCH && (id = fresh.poll()) != null; ) {
                        ids.add(id);
                    }
                    batch.these(ids);
                } else {
                    break;
                }
            }
        } catch (RuntimeException e) {
            // the calls stay received: the next sweep takes them (and says again what fails, if it still fails)
            LOG.log(Level.WARNING, "reconciling webhook calls failed; the next sweep retries them", e);
        } finally {
            running.set(false);
        }
        // an announcement or a tick that came while this run was ending starts the next one: none is left waiting
        if ((!fresh.isEmpty() || sweepDue.get()) && leases.heldHere(LEASE)) {
            start();
        }
    }

    /** One sweep: batches of received events, in order, until the inbox is drained or the interval is used up. */
    public void run() {
        long budgetEnds = System.nanoTime() + Duration.parse(interval).toNanos();
        long after = 0;
        ReconcileBatch.Progress p;
        do {
            p = batch.next(after, MAX_PER_BATCH);
            after = p.lastId();
        } while (p.read() == MAX_PER_BATCH && System.nanoTime() < budgetEnds);
        Instant now = clock.instant();
        if (watch.due(now)) {
            watch.check(now);
        }
    }
}
