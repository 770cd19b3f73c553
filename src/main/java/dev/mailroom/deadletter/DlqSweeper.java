package dev.mailroom.deadletter;

import java.time.Duration;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.lease.LeasedWork;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Local;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Finds what the broker dead-lettered by itself — a message whose every delivery threw until
 * max-delivery-attempts moved it to {@code DLQ.<queue>} — gives it its {@code dead_letter} row, joined
 * with what the database knows of the job, and puts it back on the DLQ with its envelope. Such a
 * message carries no {@code mr_*} envelope (every message Mailroom puts on a DLQ does), so it is
 * selected by that, and once swept it is bare no more: a second sweep cannot record it again, and a
 * second bare copy of a dead letter already recorded is recognised by the dead letter's identity
 * ({@link DlqSweepRules}), not by a JMS id.
 *
 * <p>It runs every {@code mailroom.deadletter.sweep-interval} (default 30 s): a broker-routed dead
 * letter has its row at most one interval after it arrived. It works in pages of {@value #PAGE}
 * messages, each its own transaction, never browsing the whole DLQ in one. With several nodes it runs
 * on the one holding the {@value #LEASE} lease ({@link dev.mailroom.platform.lease.LeasedTimers}).
 */
@Singleton
@LocalBean
@Local(LeasedWork.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class DlqSweeper implements LeasedWork {

    /** The lease of the sweep: one node sweeps at a time (the broker is shared once it is remote). */
    public static final String LEASE = "dlq-sweeper";
    /** Messages per page (one transaction). */
    static final int PAGE = 50;
    /** At most this many bare messages are swept per queue and sweep; the next sweep takes the rest. */
    static final int MAX_PER_SWEEP = 500;
    private static final Logger LOG = Logger.getLogger(DlqSweeper.class.getName());

    @Inject
    @ConfigProperty(name = "mailroom.deadletter.sweep-interval", defaultValue = "PT30S")
    Duration interval;
    @Inject
    MailroomConfig config;
    @Inject
    DlqSweepStep step;
    @Inject
    DeadLetterMetrics metrics;

    @Override
    public Schedule schedule() {
        return Schedule.of(LEASE, interval);
    }

    /** One sweep of every send queue's DLQ, page by page; a page that fails is logged by the container. */
    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void work() throws JMSException {
        for (String queue : config.queues()) {
            int n = sweep(queue);
            if (n > 0) {
                LOG.warning(() -> "recorded " + n + " broker-routed dead letter(s) from DLQ." + queue);
            }
        }
        metrics.swept();
    }

    /** Sweeps one send queue's DLQ; returns how many new dead letters it recorded. */
    public int sweep(String queue) throws JMSException {
        int taken = 0;
        int recorded = 0;
        while (taken < MAX_PER_SWEEP) {
            int size = Math.min(PAGE, MAX_PER_SWEEP - taken);
            DlqSweepStep.Page page = step.sweepPage(queue, size);
            taken += page.taken();
            recorded += page.recorded();
            if (page.taken() < size) {
                break;
            }
        }
        return recorded;
    }
}
