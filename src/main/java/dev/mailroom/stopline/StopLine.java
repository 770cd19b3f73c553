package dev.mailroom.stopline;

import dev.mailroom.deadletter.DeadLetterArrived;
import dev.mailroom.platform.ConsumerControl;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.provider.BreakerStateChanged;
import dev.mailroom.recoverability.FailureClass;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Carries out {@link StopLinePolicy}'s decisions for every send queue on this node. The line's state is held
 * here (the gate the consumers check is a map read); a stop or start is then made true in the world off the
 * caller's thread: the consumers are paused or resumed through {@link ConsumerControl} (never from inside a
 * delivery, whose own bean is being stopped), the {@code queue_pause} row is written or deleted, and
 * {@link LineStopped} / {@link LineStarted} are fired for the alert side.
 */
@ApplicationScoped
public class StopLine {

    private static final Logger LOG = Logger.getLogger(StopLine.class.getName());
    /** The actor the consumers are switched by when the line, not a person, decided it. */
    static final String ACTOR = "stop-the-line";

    @Inject
    MailroomConfig config;
    @Inject
    StopLineSettings settings;
    @Inject
    ConsumerControl consumers;
    @Inject
    QueuePauses records;
    @Inject
    DrainingSwitch drain;
    @Inject
    Clock clock;
    @Inject
    Event<LineStopped> stoppedEvents;
    @Inject
    Event<LineStarted> startedEvents;
    @Resource
    ManagedExecutorService executor;

    private final Map<String, LineState> lines = new ConcurrentHashMap<>();
    private final Map<String, Optional<DeadLetterRateWindow>> windows = new ConcurrentHashMap<>();
    private final Map<String, String> breakers = new ConcurrentHashMap<>();
    private final Map<Guarded, Object> locks = new ConcurrentHashMap<>();
    /** Queues whose consumers or record may not match their line yet (a switch failed, or is on its way). */
    private final Set<String> unsettled = ConcurrentHashMap.newKeySet();
    /**
     * What this node last wrote to (or read from) each queue's row: a line is written only when it differs, never
     * again on every tick, so this node does not write back a pause another node has since cleared.
     */
    private final Map<String, LineState> lastRecorded = new ConcurrentHashMap<>();
    /** Counts every change of any line, so {@link #follow} can tell that one happened while it read the rows. */
    private final java.util.concurrent.atomic.AtomicLong changes = new java.util.concurrent.atomic.AtomicLong();
    private volatile Duration sameOutage;

    /** The line of {@code queue} as this node holds it. */
    public LineState state(String queue) {
        return lines.getOrDefault(queue, LineState.RUNNING);
    }

    /** Whether a delivery of {@code queue} may go on to the provider; false while its line is stopped. */
    public boolean admits(String queue) {
        return !state(queue).paused();
    }

    /** How long a job met by a stopped line waits on the broker before it is offered again. */
    public Duration putBack() {
        return settings.putBack();
    }

    // ------------------------------------------------------------------ hooks of the send path

    /** A provider answered a call of {@code queue}; {@code failureClass} null: it accepted. */
    public void answered(String queue, String provider, FailureClass failureClass, String detail) {
        signal(queue, new LineSignal.ProviderAnswered(provider, failureClass, detail));
    }

    /** A delivery of {@code queue} was admitted (counts for the dead-letter-rate window). */
    public void delivered(String queue) {
        window(queue).ifPresent(w -> {
            synchronized (w) {
                w.delivery(clock.instant());
            }
        });
    }

    /** A delivery (or the health check) could not reach the database: every send queue stops, it is shared. */
    public void databaseUnreachable(String detail) {
        for (String queue : config.queues()) {
            signal(queue, new LineSignal.DatabaseUnreachable(detail));
        }
    }

    // ------------------------------------------------------------------ observed facts

    void deadLetterArrived(@Observes(during = TransactionPhase.AFTER_SUCCESS) DeadLetterArrived arrived) {
        String queue = arrived.envelope().sourceQueue();
        if (queue == null || !arrived.firstTime()) {
            return;
        }
        window(queue).ifPresent(w -> {
            Optional<DeadLetterRateWindow.Trip> trip;
            synchronized (w) {
                trip = w.deadLetter(arrived.envelope().reason(), clock.instant());
            }
            trip.ifPresent(t -> signal(queue, new LineSignal.DeadLetterRateTripped(t.describe(w.settings()))));
        });
    }

    void breakerChanged(@Observes BreakerStateChanged changed) {
        breakers.put(changed.provider(), changed.state());
        for (String queue : config.queues()) {
            List<String> chain = settings.chain(queue);
            if (!chain.contains(changed.provider())) {
                continue;
            }
            boolean allOpen = chain.stream().allMatch(p -> "open".equals(breakers.get(p)));
            signal(queue, new LineSignal.ChainBreakers(allOpen, changed.provider() + " " + changed.state()
                    + (changed.lastFailure() == null ? "" : " (last failure: " + changed.lastFailure() + ")")));
        }
    }

    // ------------------------------------------------------------------ operators

    /** An operator stops the queue's consumers: recorded (reason {@code operator}) and carried out at once. */
    public ConsumerControl.QueueConsumers pauseByOperator(String queue, String actor) {
        return pauseByOperator(queue, actor, null);
    }

    /** As {@link #pauseByOperator(String, String)}, with the operator's reason kept in the record ({@code why} may be null). */
    public ConsumerControl.QueueConsumers pauseByOperator(String queue, String actor, String why) {
        consumers.state(queue); // a queue that is not a send queue is refused before anything is recorded
        synchronized (lock(Guard.SWITCH, queue)) { // never interleaved with the probe's reconciliation
            signal(queue, new LineSignal.OperatorPaused(actor == null || actor.isBlank() ? "(unknown)" : actor, why));
            return consumers.pause(queue, actor);
        }
    }

    /** An operator starts the queue's consumers again, whatever stopped them, and the record is cleared. */
    public ConsumerControl.QueueConsumers resumeByOperator(String queue, String actor) {
        consumers.state(queue);
        synchronized (lock(Guard.SWITCH, queue)) {
            signal(queue, new LineSignal.OperatorResumed(actor == null || actor.isBlank() ? "(unknown)" : actor));
            return consumers.resume(queue, actor);
        }
    }

    // ------------------------------------------------------------------ deciding and carrying out

    /** Decides on one signal for {@code queue} and carries the decision out; returns it. */
    public LineDecision signal(String queue, LineSignal signal) {
        LineDecision decision;
        LineState before;
        LineState after;
        synchronized (lock(Guard.SIGNAL, queue)) {
            before = state(queue);
            decision = StopLinePolicy.decide(before, signal);
            if (decision instanceof LineDecision.Keep && before.episode() == null) {
                return decision; // the hot path: a running line and an answer that changes nothing
            }
            after = StopLinePolicy.next(before, signal, decision, clock.instant(), sameOutage());
            if (after.equals(before)) {
                return decision;
            }
            lines.put(queue, after);
            changes.incrementAndGet();
            // unsettled until recorded: follow() must not take the missing row for another node's resume
            unsettled.add(queue);
        }
        if (decision instanceof LineDecision.Keep) {
            runLater(() -> reconcile(queue, true)); // a failed probe counted, or an outage over: nothing to switch
            return decision;
        }
        if (decision instanceof LineDecision.Pause p) {
            Episode outage = after.episode();
            LOG.severe(() -> String.format("line of %s stopped (%s): %s; its jobs wait on the broker%s", queue,
                    p.reason().wireName(), p.detail(), outage.start().equals(after.since()) ? ""
                            : String.format(" (the same outage as since %s, %s: %d failed probes)", outage.start(),
                            outage.firstReason().wireName(), outage.failedProbes())));
            stoppedEvents.fire(new LineStopped(queue, p.reason().wireName(), p.detail(), after.since()));
        } else {
            String why = ((LineDecision.Resume) decision).why();
            LOG.warning(() -> String.format("line of %s started again (was %s since %s): %s", queue,
                    before.reason().wireName(), before.since(), why));
            startedEvents.fire(new LineStarted(queue, before.reason().wireName(), why,
                    Duration.between(before.since(), clock.instant()), clock.instant()));
        }
        if (!(signal instanceof LineSignal.OperatorPaused) && !(signal instanceof LineSignal.OperatorResumed)) {
            runLater(() -> reconcile(queue, true));
        } else {
            record(queue);
        }
        return decision;
    }

    /** How long after a trial restart a stop still belongs to the same outage (read once: it is on the send path). */
    private Duration sameOutage() {
        Duration d = sameOutage;
        if (d == null) {
            d = settings.sameOutage();
            sameOutage = d;
        }
        return d;
    }

    /** Off the caller's thread: a delivery must not wait for its own consumers to stop. */
    void runLater(Runnable work) {
        executor.execute(work);
    }

    /**
     * Restores a pause recorded before a restart: the gate closes at once; the consumers follow at the next
     * {@link #reconcile} (the probe's tick), once the server has them.
     */
    void restore(String queue, LineState recorded) {
        synchronized (lock(Guard.SIGNAL, queue)) {
            if (!state(queue).paused()) {
                lines.put(queue, recorded);
                lastRecorded.put(queue, recorded);
                changes.incrementAndGet();
                unsettled.add(queue);
                LOG.warning(() -> "line of " + queue + " restored as stopped (" + recorded.reason().wireName()
                        + " since " + recorded.since() + "): " + recorded.detail());
            }
        }
    }

    /** Makes the consumers and record of {@code queue} match its line; idempotent. {@code mayWait}: {@link DrainingSwitch}. */
    void reconcile(String queue, boolean mayWait) {
        // not the signal lock: stopping the consumers waits for their deliveries, which may be signalling
        synchronized (lock(Guard.SWITCH, queue)) {
            LineState line = state(queue);
            boolean switched = true;
            try {
                if (line.paused() && !consumers.paused(queue)) {
                    switched = drain.stop(queue, line.since(), mayWait);
                } else if (!line.paused() && consumers.paused(queue)) {
                    consumers.resume(queue, ACTOR);
                }
            } catch (RuntimeException e) {
                switched = false;
                LOG.log(Level.WARNING, e, () -> "could not " + (line.paused() ? "pause" : "resume")
                        + " the consumers of " + queue + " yet; the probe tries again");
            }
            // recorded first, settled after: a queue counts as settled only once its row says what its line says
            boolean recorded = record(queue);
            synchronized (lock(Guard.SIGNAL, queue)) {
                if (switched && recorded && state(queue).equals(line)) {
                    unsettled.remove(queue);
                } else {
                    unsettled.add(queue);
                }
            }
        }
    }

    // ------------------------------------------------------------------ several nodes

    /**
     * This node's settled lines, taken before the {@code queue_pause} rows are read (see {@link #follow}):
     * a line whose own change is not recorded yet is left out, so its missing or present row is not mistaken
     * for another node's decision.
     */
    public record Settled(long changes, Map<String, LineState> lines) {
    }

    Settled settled() {
        long seen = changes.get();
        Map<String, LineState> out = new java.util.HashMap<>();
        for (String queue : config.queues()) {
            synchronized (lock(Guard.SIGNAL, queue)) {
                if (!unsettled.contains(queue)) {
                    out.put(queue, state(queue));
                }
            }
        }
        return new Settled(seen, out);
    }

    /**
     * Applies the pauses other nodes recorded (or cleared) to this node's lines: a queue paused on any node is
     * paused on every node (with the recorded reason), and a resume anywhere resumes it everywhere. {@code before} was taken before
     * {@code recorded} was read; if any line changed here since, nothing is applied (the next tick looks
     * again). A line stopped because this node cannot reach the database is its own and is not touched.
     * The consumers follow at the probe's {@link #reconcile}. Returns how many lines changed.
     */
    int follow(Settled before, Map<String, LineState> recorded) {
        long expected = before.changes();
        int changed = 0;
        for (Map.Entry<String, LineState> e : before.lines().entrySet()) {
            String queue = e.getKey();
            LineState row = recorded.get(queue);
            synchronized (lock(Guard.SIGNAL, queue)) {
                if (changes.get() != expected || !state(queue).equals(e.getValue())) {
                    return changed;
                }
                LineState line = e.getValue();
                LineState next;
                if (row != null && (!line.paused() || row.reason() != line.reason())) {
                    // stopped elsewhere, or stopped here for one reason and recorded by another node for another
                    // (an operator's): the record wins, so this node's own reason ending cannot clear it
                    next = row;
                } else if (row == null && line.paused() && line.reason() != PauseReason.DATABASE) {
                    next = LineState.RUNNING;
                } else {
                    continue;
                }
                lines.put(queue, next);
                lastRecorded.put(queue, next); // it is what the row says: nothing to write back
                expected = changes.incrementAndGet();
                unsettled.add(queue);
                changed++;
                LOG.warning(() -> next.paused()
                        ? "line of " + queue + " stopped on another node (" + next.reason().wireName() + " since "
                                + next.since() + "): stopped here too"
                        : "line of " + queue + " started again on another node (was " + line.reason().wireName()
                                + "): started here too");
            }
        }
        return changed;
    }

    /** Whether the probe's tick should {@link #reconcile} {@code queue}: its line is stopped, or a switch is pending. */
    boolean needsReconcile(String queue) {
        return state(queue).paused() || unsettled.contains(queue);
    }

    /** Writes the line of {@code queue} to its row; false if that failed (the probe tries again). */
    private boolean record(String queue) {
        synchronized (lock(Guard.RECORD, queue)) {
            LineState line = state(queue);
            if (line.reason() == PauseReason.DATABASE) {
                return true; // cannot be written, and ends when the database answers
            }
            if (line.equals(lastRecorded.get(queue))) {
                return true;
            }
            try {
                if (line.paused()) {
                    records.save(queue, line);
                } else {
                    records.delete(queue);
                }
                lastRecorded.put(queue, line);
                return true;
            } catch (Exception e) { // the transaction's commit may throw a checked RollbackException through the proxy
                unsettled.add(queue);
                LOG.log(Level.WARNING, e, () -> "could not record the line of " + queue + " (" + line + ")");
                return false;
            }
        }
    }

    /**
     * What a queue's line serialises, each with a monitor of its own, so that a slow one never holds up another:
     * a delivery's signal must not wait for a switch that itself waits for that delivery to end.
     */
    private enum Guard {
        /** Deciding on a signal and changing the line in memory: short, no I/O. */
        SIGNAL,
        /** Making the consumers match the line: waits for in-flight deliveries, which may be signalling. */
        SWITCH,
        /** Writing the line's row: a database transaction. */
        RECORD
    }

    private record Guarded(Guard guard, String queue) { }

    private Object lock(Guard guard, String queue) {
        return locks.computeIfAbsent(new Guarded(guard, queue), k -> new Object());
    }

    private Optional<DeadLetterRateWindow> window(String queue) {
        return windows.computeIfAbsent(queue, q -> settings.deadLetterRate(q).map(DeadLetterRateWindow::new));
    }

    /** The dead-letter-rate settings of {@code queue}, if its breaker is enabled. */
    Optional<DeadLetterRateWindow.Settings> deadLetterRate(String queue) {
        return window(queue).map(DeadLetterRateWindow::settings);
    }
}
