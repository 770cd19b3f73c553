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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The reconciliation job. Two ways in (and, with several nodes, only on the holder of the {@value #LEASE} lease):
 * <ul>
 *   <li><b>at once</b>: every call the inbox stores is announced ({@link WebhookInbox.Stored}, after its commit);
 *       the announced ids are reconciled right away on a managed thread, in batches of what has arrived meanwhile
 *       (so a burst is worked off in a few large batches, not one small one per timer tick). When a backlog builds
 *       up while a batch runs, a second thread takes batches too (up to {@code mailroom.reconcile.threads}): on a
 *       busy machine the request threads that store calls outnumber one reconciling thread, and the CPU is shared
 *       per thread;</li>
 *   <li><b>the sweep</b>, every {@code mailroom.reconcile.interval} (default 1 s), on a managed thread of its own so it
 *       never waits behind a burst of fresh calls (nor they behind it): every call still {@code received} in batches of
 *       {@value #MAX_PER_BATCH} ({@link ReconcileBatch}, each its own transaction) until the inbox is drained or the
 *       run has taken one interval — calls waiting for their job, calls another node stored, calls announced while
 *       this node did not hold the lease; then the {@link DeliveryWatch} when its interval is due. The tick and the
 *       lease are {@link dev.mailroom.platform.lease.LeasedTimers}'; the tick only asks for the sweep.</li>
 * </ul>
 * A call is reconciled by one batch at a time: each batch first claims its calls' ids on this node (a call another
 * batch holds is left to it; if that one leaves it waiting, the next sweep takes it), so the two ways in never apply
 * a call twice. Batches that meet on a job wait for each other on its row lock, taken in id order.
 * Measured before the first way existed: the sweep alone (batches of 200, a few queries per event) applied ~200
 * calls/s against a 470 calls/s burst, a reconciliation lag p99 of 47 s.
 */
@Singleton
@LocalBean
@Local(LeasedWork.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Reconciler implements LeasedWork {

    static final int MAX_PER_BATCH = 500;
    /** Announced calls waiting beyond which a further thread takes batches of them. */
    static final int BACKLOG_PER_THREAD = 100;
    /** With several nodes, one reconciles at a time: the one holding this lease. */
    public static final String LEASE = "reconciler";
    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;
    @Inject
    @ConfigProperty(name = "mailroom.reconcile.interval", defaultValue = "PT1S")
    Duration interval;
    /** Threads taking announced calls at most (the sweep has its own). */
    @Inject
    @ConfigProperty(name = "mailroom.reconcile.threads", defaultValue = "2")
    int threads;
    @Inject
    ReconcileBatch batch;
    @Inject
    DeliveryWatch watch;
    @Inject
    Clock clock;
    @Inject
    dev.mailroom.platform.lease.Leases leases;

    /** Inbox ids announced and not yet taken by a batch, and how many. */
    private final ConcurrentLinkedQueue<Long> fresh = new ConcurrentLinkedQueue<>();
    private final AtomicInteger freshCount = new AtomicInteger();
    /** Inbox ids a batch on this node is reconciling now. */
    private final Set<Long> claimed = ConcurrentHashMap.newKeySet();
    /** Threads taking announced calls now. */
    private final AtomicInteger takers = new AtomicInteger();
    /** A tick asked for a sweep. */
    private final AtomicBoolean sweepDue = new AtomicBoolean();
    /** Whether a sweep is going on on this node: at most one. */
    private final AtomicBoolean sweeping = new AtomicBoolean();

    @Override
    public Schedule schedule() {
        return Schedule.of(LEASE, interval);
    }

    /** The inbox stored a call: reconcile it now, unless this node does not reconcile (the holder's sweep will). */
    public void stored(@Observes(during = TransactionPhase.AFTER_SUCCESS) WebhookInbox.Stored call) {
        if (leases.heldHere(LEASE)) {
            fresh.add(call.id());
            freshCount.incrementAndGet();
            startTaker();
        }
    }

    /** A tick: a sweep is due (one that comes while a sweep runs makes it go round once more). */
    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void work() {
        sweepDue.set(true);
        startSweep();
    }

    /** A first thread for announced calls, or one more while a backlog waits (up to {@link #threads}). */
    private void startTaker() {
        while (true) {
            int running = takers.get();
            if (running >= Math.max(1, threads) || freshCount.get() <= running * BACKLOG_PER_THREAD) {
                return;
            }
            if (takers.compareAndSet(running, running + 1)) {
                executor.execute(this::takeFresh);
                return;
            }
        }
    }

    private void startSweep() {
        if (sweeping.compareAndSet(false, true)) {
            executor.execute(this::sweep);
        }
    }

    /** Batches of announced calls until none is left. Not one transaction: each batch commits on its own. */
    private void takeFresh() {
        try {
            while (leases.heldHere(LEASE)) {
                List<Long> ids = new ArrayList<>();
                for (Long id; ids.size() < MAX_PER_BATCH && (id = fresh.poll()) != null; ) {
                    ids.add(id);
                }
                freshCount.addAndGet(-ids.size());
                if (ids.isEmpty()) {
                    break;
                }
                reconcileClaimed(ids);
            }
        } catch (RuntimeException e) {
            // the calls stay received: the next sweep takes them (and says again what fails, if it still fails)
            LOG.log(Level.WARNING, "reconciling webhook calls failed; the next sweep retries them", e);
        } finally {
            takers.decrementAndGet();
        }
        // an announcement that came while this thread was ending starts the next one: none is left waiting
        if (leases.heldHere(LEASE)) {
            startTaker();
        }
    }

    private void sweep() {
        try {
            while (sweepDue.getAndSet(false) && leases.heldHere(LEASE)) {
                run();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the reconciliation sweep failed; the next one retries", e);
        } finally {
            sweeping.set(false);
        }
        if (sweepDue.get() && leases.heldHere(LEASE)) {
            startSweep();
        }
    }

    /** One batch of the calls with these ids that no other batch on this node holds; they are free again after it. */
    private void reconcileClaimed(List<Long> ids) {
        List<Long> mine = ids.stream().filter(claimed::add).toList();
        try {
            if (!mine.isEmpty()) {
                batch.these(mine);
            }
        } finally {
            mine.forEach(claimed::remove);
        }
    }

    /** One sweep: batches of received calls, in order, until the inbox is drained or the interval is used up. */
    public void run() {
        long budgetEnds = System.nanoTime() + interval.toNanos();
        long after = 0;
        List<Long> ids;
        do {
            ids = batch.received(after, MAX_PER_BATCH);
            if (!ids.isEmpty()) {
                after = ids.get(ids.size() - 1);
                reconcileClaimed(ids);
            }
        } while (ids.size() == MAX_PER_BATCH && System.nanoTime() < budgetEnds);
        Instant now = clock.instant();
        if (watch.due(now)) {
            watch.check(now);
        }
    }
}
