package dev.mailroom.reconcile;

import dev.mailroom.platform.lease.LeasedWork;
import jakarta.ejb.Local;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The reconciliation job: every {@code mailroom.reconcile.interval} (default 2 s) it reconciles the inbox's
 * {@code received} calls in batches of {@value #MAX_PER_BATCH}, each batch its own transaction
 * ({@link ReconcileBatch}), until the inbox is drained or the run has taken one interval (a burst of
 * webhooks is worked off in one run instead of 500 calls every 2 s); then the {@link DeliveryWatch} looks
 * for silent jobs and bounce/complaint rates when its interval is due. Its timer and lease are
 * {@link dev.mailroom.platform.lease.LeasedTimers}'.
 */
@Singleton
@LocalBean
@Local(LeasedWork.class)
public class Reconciler implements LeasedWork {

    static final int MAX_PER_BATCH = 200;
    /** With several nodes, one reconciles at a time: the one holding this lease. */
    public static final String LEASE = "reconciler";

    @Inject
    @ConfigProperty(name = "mailroom.reconcile.interval", defaultValue = "PT2S")
    String interval;
    @Inject
    ReconcileBatch batch;
    @Inject
    DeliveryWatch watch;
    @Inject
    Clock clock;

    @Override
    public Schedule schedule() {
        return Schedule.of(LEASE, interval);
    }

    /** Not one transaction: each batch commits on its own, so a long run holds no locks for long. */
    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void work() {
        run();
    }

    /** One run: batches of received events, in order, until the inbox is drained or the interval is used up. */
    public void run() {
        long budgetEnds = System.nanoTime() + Duration.parse(interval).toNanos();
        long after = 0;
        ReconcileBatch.Progress p;
        do {
            p = batch.next(after, MAX_PER_BATCH, clock.instant());
            after = p.lastId();
        } while (p.read() == MAX_PER_BATCH && System.nanoTime() < budgetEnds);
        Instant now = clock.instant();
        if (watch.due(now)) {
            watch.check(now);
        }
    }
}
