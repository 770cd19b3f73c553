package dev.mailroom.stopline;

import dev.mailroom.platform.DatabaseWrites;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.SchemaMigration;
import jakarta.annotation.PostConstruct;
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
import java.sql.Connection;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Every {@code mailroom.stop-the-line.probe-interval}: checks that the database answers (the health check's
 * test; a stopped database stops every line, an answering one starts the lines it stopped), restores pauses
 * recorded before a restart (first tick), follows the pauses other nodes record or clear (later ticks), keeps the consumers in step with their lines, restarts a
 * dead-letter-rate pause after its restart time, and probes a line stopped by a provider with one real send of
 * its head job ({@link HeadJobProbe}).
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class LineProbe {

    private static final Logger LOG = Logger.getLogger(LineProbe.class.getName());

    @Resource
    TimerService timers;
    @Resource(lookup = "java:comp/DefaultDataSource")
    DataSource dataSource;
    @Inject
    MailroomConfig config;
    @Inject
    StopLineSettings settings;
    @Inject
    StopLine line;
    @Inject
    QueuePauses records;
    @Inject
    HeadJobProbe headJob;
    @Inject
    Clock clock;
    @EJB
    SchemaMigration schema;
    @Inject
    DatabaseWrites writes;

    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean restored;

    @PostConstruct
    void schedule() {
        // pauses recorded before a restart close their gates before the first tick, as early as the schema allows
        try {
            schema.awaitMigrated();
            records.all().forEach(line::restore);
            restored = true;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, e, () -> "could not read the recorded pauses at start; the first tick tries again");
        }
        long ms = settings.probeInterval().toMillis();
        timers.createIntervalTimer(ms, ms, new TimerConfig("stop-the-line-probe", false));
    }

    @Timeout
    void onTimer(Timer timer) {
        if (!running.compareAndSet(false, true)) {
            return; // the last tick is still probing
        }
        try {
            schema.awaitMigrated();
            tick();
        } finally {
            running.set(false);
        }
    }

    void tick() {
        String down = databaseDown();
        if (down != null) {
            line.databaseUnreachable("health check: " + down);
            return;
        }
        if (!restored) {
            records.all().forEach(line::restore);
            restored = true;
        } else {
            // several nodes: a pause recorded (or cleared) by another node applies here too
            StopLine.Settled before = line.settled();
            line.follow(before, records.all());
        }
        for (String queue : config.queues()) {
            line.signal(queue, new LineSignal.DatabaseAnswered());
            if (line.needsReconcile(queue)) {
                line.reconcile(queue, false);
            }
            LineState state = line.state(queue);
            if (state.reason() == PauseReason.DEAD_LETTER_RATE) {
                line.deadLetterRate(queue).ifPresent(s ->
                        line.signal(queue, new LineSignal.RestartCheck(clock.instant(), s.restartAfter())));
            } else if (state.reason() == PauseReason.SYSTEMIC || state.reason() == PauseReason.PROVIDERS_OPEN) {
                try {
                    headJob.probe(queue);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, e, () -> "probe of " + queue + " failed; the next tick tries again");
                }
            }
        }
    }

    /**
     * Null when the database answers, else why not. A database whose disk is full answers reads: while it is known to
     * refuse writes, or a line it stopped waits, it answers only when a write that needs new space goes through.
     */
    String databaseDown() {
        try (Connection c = dataSource.getConnection()) {
            if (!c.isValid(2)) {
                return "connection not valid";
            }
        } catch (Exception e) {
            return String.valueOf(e.getMessage());
        }
        boolean stoppedByTheDatabase = config.queues().stream()
                .anyMatch(q -> line.state(q).reason() == PauseReason.DATABASE);
        if (writes.refusal().isEmpty() && !stoppedByTheDatabase) {
            return null;
        }
        try {
            return writes.probe().map(disk -> "the database refuses writes: " + disk).orElse(null);
        } catch (Exception e) {
            return String.valueOf(e.getMessage());
        }
    }
}
