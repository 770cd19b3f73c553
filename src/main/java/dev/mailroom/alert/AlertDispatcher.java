package dev.mailroom.alert;

import dev.mailroom.alert.AlertEvent.Kind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The alerting engine: takes occurrences from any thread and, one {@link #tick} at a time, routes,
 * groups and delivers them to every sink. No container in here, so all of it is tested with time
 * passed in.
 *
 * <p><b>The send path is never held up.</b> {@link #raise} puts the event on a lock-free queue bounded
 * at {@code queue-capacity} and returns; it never waits, never throws. When the queue is full the
 * event is dropped and counted, and the next tick sends an {@code AlertEventsDropped} page with that
 * count (the dead letters themselves are in the database; only their alert is lost, and not silently).
 *
 * <p><b>Each sink has its own outbox.</b> A sink that fails keeps its alerts for a later tick, retried
 * after {@code retry.initial-backoff} doubling to {@code retry.max-backoff}; the other sinks are not
 * affected (the log still logs while the webhook is down). Alerts waiting for a sink are merged by
 * label set ({@link Alert#mergedWith}), so an outage of hours is a few alerts with whole counts, in the
 * order they first appeared. Retrying is bounded <b>by age</b>: an alert still undelivered
 * {@code retry.max-age} after it first waited is dropped; and <b>by count</b>: more than
 * {@code retry.max-pending} distinct alerts waiting drops the oldest. Either way the dropped alert is
 * written to the log at SEVERE in full and counted ({@link #undeliverable()}) — never lost silently.
 *
 * <pre>
 * mailroom.alerts.queue-capacity        = 100000
 * mailroom.alerts.group-wait            = 10s   (see AlertGrouper)
 * mailroom.alerts.group-interval        = 1m
 * mailroom.alerts.retry.initial-backoff = 1s
 * mailroom.alerts.retry.max-backoff     = 60s
 * mailroom.alerts.retry.max-age         = 24h
 * mailroom.alerts.retry.max-pending     = 10000 (per sink)
 * </pre>
 * plus the routing keys of {@link AlertRouting}.
 *
 * <p>Thread-safety: {@link #raise} from any number of threads; {@code tick}, {@code close} and the
 * outbox views are serialised (one tick at a time; a view waits for a running tick).
 */
public final class AlertDispatcher {

    /** The outbox sequence of an occurrence that is not in the outbox (raised in memory only). */
    static final long UNTRACKED = Long.MAX_VALUE;

    /** The alert about alerts lost to a full queue. */
    public static final String EVENTS_DROPPED = "AlertEventsDropped";

    private static final Logger LOG = Logger.getLogger(AlertDispatcher.class.getName());

    private final AlertDispatchSettings settings;
    private final AlertRouting routing;
    private final Clock clock;
    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    /** Slots taken in {@link #queue}: reserved before adding, so the bound holds under any interleaving. */
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong droppedEvents = new AtomicLong();
    private final AtomicLong droppedNotYetReported = new AtomicLong();
    private final AtomicLong undeliverable = new AtomicLong();
    // below: touched only by the ticking thread, under this object's lock
    private final BurstDetector bursts;
    private final AlertGrouper grouper;
    private final List<Outbox> outboxes = new ArrayList<>();

    public AlertDispatcher(AlertDispatchSettings settings, AlertRouting routing, Clock clock, List<AlertSink> sinks) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.routing = Objects.requireNonNull(routing, "routing");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.bursts = routing.newBurstDetector();
        this.grouper = new AlertGrouper(settings.groupWait(), settings.groupInterval());
        for (AlertSink s : sinks) {
            outboxes.add(new Outbox(Objects.requireNonNull(s, "sink")));
        }
    }

    /**
     * A dispatcher with the {@code mailroom.alerts.*} settings and routing.
     *
     * @param config a lookup such as MicroProfile Config's {@code k -> config.getOptionalValue(k, String.class)}
     * @throws IllegalArgumentException naming the key of a value that cannot be used
     */
    public static AlertDispatcher fromConfig(Function<String, Optional<String>> config, Clock clock, List<AlertSink> sinks) {
        return new AlertDispatcher(AlertDispatchSettings.fromConfig(config), AlertRouting.fromConfig(config), clock, sinks);
    }

    /**
     * Takes an occurrence for the next tick. Never blocks, never throws: safe on the send path, in an
     * after-commit callback, without a transaction.
     *
     * @return false when it was dropped (queue full, or null), which the next alert reports
     */
    public boolean raise(AlertEvent event) {
        return raise(event, UNTRACKED);
    }

    /**
     * As {@link #raise(AlertEvent)}, for an occurrence kept in the outbox as row {@code seq}: see
     * {@link #deliveredBelow}.
     */
    public boolean raise(AlertEvent event, long seq) {
        if (event == null) {
            return false;
        }
        if (queued.incrementAndGet() > settings.queueCapacity()) {
            queued.decrementAndGet();
            droppedEvents.incrementAndGet();
            droppedNotYetReported.incrementAndGet();
            return false;
        }
        queue.add(new Queued(event, seq));
        return true;
    }

    /**
     * Every occurrence raised with an outbox sequence below the answer has been delivered to every sink (in
     * the alert it was counted in) or given up on and logged; {@code next} when nothing raised waits any more
     * (the next sequence the caller would raise). What the outbox marks delivered.
     */
    public synchronized long deliveredBelow(long next) {
        long min = next;
        for (Queued q : queue) {
            min = Math.min(min, q.seq());
        }
        min = Math.min(min, grouper.minOpenSeq());
        for (Outbox o : outboxes) {
            for (Waiting w : o.pending.values()) {
                min = Math.min(min, w.minSeq());
            }
        }
        return min;
    }

    /** One round at the clock's time. */
    public void tick() {
        tick(clock.instant());
    }

    /**
     * One round at {@code now}: route and group what was raised, drain the groups whose window closed,
     * offer every sink what waits for it (if its backoff allows), and drop what waited too long (logged).
     * Runtime failures of one event or one sink are logged and do not stop the round.
     */
    public synchronized void tick(Instant now) {
        take(now);
        bursts.forgetIdle(now);
        List<AlertGrouper.Drained> due = grouper.drainDueTracked(now);
        for (Outbox o : outboxes) {
            o.enqueue(due, now);
            o.expire(now);
            o.attempt(now, false);
        }
    }

    /**
     * The last round, for a shutdown: everything raised and every open group is offered to every sink
     * once more, backoff or not; what a sink still does not take is logged as dropped.
     */
    public synchronized void close(Instant now) {
        take(now);
        List<AlertGrouper.Drained> all = grouper.drainAllTracked();
        for (Outbox o : outboxes) {
            o.enqueue(all, now);
            o.attempt(now, true);
            o.dropAll("not delivered before shutdown");
        }
    }

    /** Events dropped because the queue was full, since start. */
    public long droppedEvents() {
        return droppedEvents.get();
    }

    /** Alerts given up on (too old, too many waiting, shutdown) and logged instead, over all sinks, since start. */
    public long undeliverable() {
        return undeliverable.get();
    }

    /** Events raised and not yet taken by a tick. */
    public int queuedEvents() {
        return queued.get();
    }

    /** Alerts waiting for {@code sink}. */
    public synchronized List<Alert> pending(AlertSink sink) {
        return List.copyOf(outbox(sink).pending.values().stream().map(Waiting::alert).toList());
    }

    /** When {@code sink} is offered its waiting alerts next, if it is backing off. */
    public synchronized Optional<Instant> nextAttempt(AlertSink sink) {
        return Optional.ofNullable(outbox(sink).nextAttemptAt);
    }

    /** Open groups, not yet due. */
    public synchronized int openGroups() {
        return grouper.openGroups();
    }

    /** Its sinks, in delivery order. */
    public List<AlertSink> sinks() {
        return outboxes.stream().map(o -> o.sink).toList();
    }

    public AlertDispatchSettings settings() {
        return settings;
    }

    public AlertRouting routing() {
        return routing;
    }

    private Outbox outbox(AlertSink sink) {
        for (Outbox o : outboxes) {
            if (o.sink == sink) {
                return o;
            }
        }
        throw new IllegalArgumentException("not a sink of this dispatcher: " + sink.name());
    }

    /** Routes and groups what was raised, at most a queue's worth, so a flood cannot starve delivery. */
    private void take(Instant now) {
        for (int i = 0; i < settings.queueCapacity(); i++) {
            Queued taken = queue.poll();
            if (taken == null) {
                break;
            }
            queued.decrementAndGet();
            AlertEvent e = taken.event();
            try {
                grouper.add(routing.route(e), now, taken.seq());
                if (e.kind() == Kind.DEAD_LETTER_ARRIVAL) {
                    String q = e.label(AlertEvent.QUEUE);
                    String r = e.label(AlertEvent.REASON);
                    if (bursts.arrival(q, r, now)) {
                        grouper.add(routing.burst(q, r, e.at()), now, taken.seq());
                    }
                }
            } catch (RuntimeException ex) {
                LOG.log(Level.WARNING, "Alert event could not be routed, skipped: " + e, ex);
            }
        }
        long dropped = droppedNotYetReported.getAndSet(0);
        if (dropped > 0) {
            String text = "Alert events dropped: the alert queue (capacity " + settings.queueCapacity() + ") was full";
            grouper.add(new RoutedAlert(EVENTS_DROPPED, Severity.PAGE, Map.of(), Map.of(), null, text,
                    dropped + " alert events were dropped before " + now + "; counts in other alerts are low by as many."
                            + " The dead letters themselves are recorded: see GET /api/v1/dead-letters",
                    now, dropped), now);
        }
    }

    private record Waiting(Alert alert, Instant since, long minSeq) {
    }

    private record Queued(AlertEvent event, long seq) {
    }

    /** What one sink has yet to take, and when to offer it again. */
    private final class Outbox {
        final AlertSink sink;
        /** By label set, in the order first seen. */
        final Map<Map<String, String>, Waiting> pending = new LinkedHashMap<>();
        int failures;
        Instant nextAttemptAt;

        Outbox(AlertSink sink) {
            this.sink = sink;
        }

        void enqueue(List<AlertGrouper.Drained> alerts, Instant now) {
            for (AlertGrouper.Drained d : alerts) {
                Alert a = d.alert();
                pending.merge(a.labels(), new Waiting(a, now, d.minSeq()), (old, add) -> new Waiting(
                        old.alert().mergedWith(add.alert()), old.since(), Math.min(old.minSeq(), add.minSeq())));
            }
            Iterator<Waiting> it = pending.values().iterator();
            while (pending.size() > settings.maxPendingPerSink() && it.hasNext()) {
                Waiting w = it.next();
                it.remove();
                dropped(w.alert(), "more than " + settings.maxPendingPerSink() + " alerts waiting");
            }
        }

        void expire(Instant now) {
            Instant limit = now.minus(settings.maxRetryAge());
            for (Iterator<Waiting> it = pending.values().iterator(); it.hasNext(); ) {
                Waiting w = it.next();
                if (!w.since().isAfter(limit)) {
                    it.remove();
                    dropped(w.alert(), "undelivered for " + AlertConfig.text(settings.maxRetryAge()));
                }
            }
        }

        void attempt(Instant now, boolean force) {
            if (pending.isEmpty() || (!force && nextAttemptAt != null && now.isBefore(nextAttemptAt))) {
                return;
            }
            List<Alert> batch = pending.values().stream().map(Waiting::alert).toList();
            try {
                sink.deliver(batch);
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                failures++;
                Duration wait = backoff(failures);
                nextAttemptAt = now.plus(wait);
                LOG.log(Level.WARNING, "Alert sink " + sink.name() + " failed (" + failures + " in a row): " + e
                        + "; " + batch.size() + " alert(s) kept, next attempt in " + AlertConfig.text(wait));
                return;
            }
            // single-threaded under the dispatcher's lock: nothing was added while delivering
            pending.clear();
            if (failures > 0) {
                LOG.info("Alert sink " + sink.name() + " delivered again after " + failures + " failure(s)");
            }
            failures = 0;
            nextAttemptAt = null;
        }

        void dropAll(String why) {
            pending.values().forEach(w -> dropped(w.alert(), why));
            pending.clear();
        }

        /** 1 s, 2 s, 4 s, ... up to the maximum: a receiver that is down is not hammered. */
        private Duration backoff(int failures) {
            Duration d = settings.initialBackoff();
            for (int i = 1; i < failures && d.compareTo(settings.maxBackoff()) < 0; i++) {
                d = d.multipliedBy(2);
            }
            return d.compareTo(settings.maxBackoff()) > 0 ? settings.maxBackoff() : d;
        }

        private void dropped(Alert a, String why) {
            undeliverable.incrementAndGet();
            LOG.severe("Alert dropped, " + sink.name() + " did not take it (" + why + "): " + LogSink.line(a));
        }
    }
}
