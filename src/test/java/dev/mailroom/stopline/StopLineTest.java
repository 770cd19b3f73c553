package dev.mailroom.stopline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.deadletter.DeadLetterArrived;
import dev.mailroom.deadletter.DeadLetterEnvelope;
import dev.mailroom.platform.ConsumerControl;
import dev.mailroom.platform.DatabaseWrites;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.ops.testing.MovableClock;
import dev.mailroom.provider.BreakerStateChanged;
import dev.mailroom.recoverability.FailureClass;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.NotificationOptions;
import jakarta.enterprise.util.TypeLiteral;
import java.lang.annotation.Annotation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StopLine} carrying out the policy, with the real dead-letter window fed the real {@link DeadLetterArrived}
 * events the recorder fires, the breakers' {@link BreakerStateChanged}, and in-memory consumers and records.
 */
class StopLineTest {

    private static final String SEND = "mail.send";
    private static final String BULK = "mail.send.bulk";
    private static final Instant T0 = Instant.parse("2030-01-01T12:00:00Z");

    private final MovableClock clock = new MovableClock(Clock.fixed(T0, ZoneOffset.UTC));
    private final Map<String, Boolean> consumersPaused = new HashMap<>(Map.of(SEND, false, BULK, false));
    private final Map<String, LineState> records = new HashMap<>();
    private final List<LineStopped> stopped = new ArrayList<>();
    private final List<LineStarted> started = new ArrayList<>();
    private HeldStopLine line;
    private final DeliveriesUnderWay underWay = new DeliveriesUnderWay(clock);

    @BeforeEach
    void wire() {
        line = new HeldStopLine();
        line.config = new MailroomConfig() {
            @Override
            public List<String> queues() {
                return List.of(SEND, BULK);
            }

            @Override
            public String provider() {
                return "relay-a";
            }
        };
        line.settings = new StopLineSettings() {
            @Override
            public List<String> chain(String queue) {
                return SEND.equals(queue) ? List.of("relay-a", "relay-b") : List.of("relay-a");
            }

            @Override
            public Optional<DeadLetterRateWindow.Settings> deadLetterRate(String queue) {
                return Optional.of(new DeadLetterRateWindow.Settings(20, 0.10, Duration.ofMinutes(1),
                        Duration.ofSeconds(60), DeadLetterRateWindow.Settings.DEFAULT_REASONS));
            }

            @Override
            public Duration putBack() {
                return Duration.ofSeconds(1);
            }

            @Override
            public Duration sameOutage() {
                return Duration.ofMinutes(10);
            }

            @Override
            public Duration drainTimeout() {
                return Duration.ofSeconds(60);
            }
        };
        line.consumers = new ConsumerControl() {
            @Override
            public boolean paused(String queue) {
                return consumersPaused.get(queue);
            }

            @Override
            public QueueConsumers state(String queue) {
                return new QueueConsumers(queue, consumersPaused.get(queue), List.of());
            }

            @Override
            public QueueConsumers pause(String queue, String actor) {
                consumersPaused.put(queue, true);
                return state(queue);
            }

            @Override
            public QueueConsumers resume(String queue, String actor) {
                consumersPaused.put(queue, false);
                return state(queue);
            }
        };
        line.records = new QueuePauses() {
            @Override
            public void save(String queue, LineState state) {
                records.put(queue, state);
            }

            @Override
            public void delete(String queue) {
                records.remove(queue);
            }

            @Override
            public Map<String, LineState> all() {
                return Map.copyOf(records);
            }
        };
        line.clock = clock;
        line.drain = new DrainingSwitch();
        line.drain.consumers = line.consumers;
        line.drain.underWay = underWay;
        line.drain.settings = line.settings;
        line.stoppedEvents = new Recording<>(stopped);
        line.startedEvents = new Recording<>(started);
    }

    /** Several nodes share queue_pause: what another node records (or clears) is followed here, without a second page. */
    @Test
    void aPauseRecordedByAnotherNodeStopsThisLineAndItsResumeStartsIt() {
        LineState elsewhere = LineState.stopped(PauseReason.OPERATOR, "paused by alice on node-b", T0);
        records.put(BULK, elsewhere); // node-b's row

        assertThat(line.follow(line.settled(), line.records.all())).isEqualTo(1);
        assertThat(line.admits(BULK)).isFalse();
        assertThat(line.state(BULK)).isEqualTo(elsewhere);
        assertThat(line.admits(SEND)).isTrue();
        assertThat(line.needsReconcile(BULK)).isTrue();
        line.reconcile(BULK, false);
        assertThat(consumersPaused.get(BULK)).isTrue();
        assertThat(stopped).as("node-b paged; this node only follows").isEmpty();

        assertThat(line.follow(line.settled(), line.records.all())).as("nothing new").isZero();

        records.remove(BULK); // resumed on node-b
        assertThat(line.follow(line.settled(), line.records.all())).isEqualTo(1);
        line.reconcile(BULK, false);
        assertThat(line.admits(BULK)).isTrue();
        assertThat(consumersPaused.get(BULK)).isFalse();
        assertThat(records).doesNotContainKey(BULK);
        assertThat(started).isEmpty();
    }

    /** Stopped here by the providers, by an operator on another node: the operator's record wins, and holds. */
    @Test
    void anOperatorPauseRecordedElsewhereOutlivesThisNodesOwnProviderPause() {
        line.breakerChanged(new BreakerStateChanged("relay-a", "open", T0, "connection refused"));
        line.reconcile(BULK, false);
        assertThat(line.state(BULK).reason()).isEqualTo(PauseReason.PROVIDERS_OPEN);
        records.put(BULK, LineState.stopped(PauseReason.OPERATOR, "paused by alice on node-b", T0.plusSeconds(5)));

        assertThat(line.follow(line.settled(), line.records.all())).isEqualTo(1);
        assertThat(line.state(BULK).reason()).isEqualTo(PauseReason.OPERATOR);

        line.breakerChanged(new BreakerStateChanged("relay-a", "closed", T0.plusSeconds(40), null));
        assertThat(line.admits(BULK)).as("the breaker closing does not end an operator's pause").isFalse();
        assertThat(records.get(BULK).reason()).isEqualTo(PauseReason.OPERATOR);
    }

    /** Paused here and recorded; resumed on another node (row gone): this node's ticks do not write it back. */
    @Test
    void aPauseOfThisNodeClearedElsewhereIsNotWrittenBackByTheNextTick() {
        line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535");
        assertThat(records).containsKey(SEND);
        records.remove(SEND); // node-b's operator resumed it

        line.reconcile(SEND, false); // the probe's tick, before it reads the rows
        assertThat(records).as("not written back").doesNotContainKey(SEND);
        assertThat(line.follow(line.settled(), line.records.all())).isEqualTo(1);
        line.reconcile(SEND, false);
        assertThat(line.admits(SEND)).isTrue();
        assertThat(consumersPaused.get(SEND)).isFalse();
    }

    /** A line that changed here while the rows were read is not overwritten by that older read. */
    @Test
    void aLocalStopBetweenTakingStockAndReadingTheRowsIsNotUndone() {
        StopLine.Settled before = line.settled();
        Map<String, LineState> rowsReadBeforeTheStop = line.records.all();
        line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535 5.7.8 Authentication credentials invalid");

        assertThat(line.follow(before, rowsReadBeforeTheStop)).isZero();
        assertThat(line.admits(SEND)).isFalse();
        assertThat(records.get(SEND).reason()).isEqualTo(PauseReason.SYSTEMIC);
    }

    /** A line stopped here but not recorded yet is left out of the stock taken, so its missing row is no resume. */
    @Test
    void aStopNotYetRecordedIsNotTakenForAResumeElsewhere() {
        line.runLaterHeld = true;
        line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535");
        assertThat(records).doesNotContainKey(SEND);

        StopLine.Settled before = line.settled();
        assertThat(before.lines()).doesNotContainKey(SEND);
        assertThat(line.follow(before, line.records.all())).isZero();
        assertThat(line.admits(SEND)).isFalse();
    }

    /**
     * Stopping the consumers tears their sessions down, and the resource adapter interrupts a delivery still running
     * after its call timeout: a delivery under way at the stop (hung on the database) is waited for, one begun after
     * it (it meets the closed gate and puts its job back) is not, and the drain timeout ends the wait.
     */
    @Test
    void theConsumersStopOnceTheDeliveriesUnderWayAtTheStopHaveEnded() {
        long hung = underWay.begin(SEND);
        underWay.begin(BULK); // never ends
        clock.offset(Duration.ofSeconds(1));
        line.runLaterHeld = true; // the switch off the delivery's thread is the probe's reconcile below
        line.databaseUnreachable("delivery on mail.send: socket read timed out");
        assertThat(line.admits(SEND)).as("the gate closes at once").isFalse();
        clock.offset(Duration.ofSeconds(3));
        long putBack = underWay.begin(SEND);

        line.reconcile(SEND, false);
        line.reconcile(BULK, false);
        assertThat(consumersPaused).as("a delivery from before the stop is under way on each").containsOnlyKeys(SEND, BULK)
                .doesNotContainValue(true);
        assertThat(line.needsReconcile(SEND)).isTrue();

        underWay.end(hung);
        line.reconcile(SEND, false);
        assertThat(consumersPaused.get(SEND)).as("only a delivery begun after the stop is left").isTrue();
        underWay.end(putBack);

        clock.offset(Duration.ofSeconds(60)); // 59 s after the stop
        line.reconcile(BULK, false);
        assertThat(consumersPaused.get(BULK)).isFalse();
        clock.offset(Duration.ofSeconds(62));
        line.reconcile(BULK, false);
        assertThat(consumersPaused.get(BULK)).as("the drain timeout passed: stopped anyway").isTrue();
    }

    @Test
    void aSystemicAnswerStopsTheLineAtOnceAndAnAcceptedProbeStartsIt() {
        line.answered(SEND, "relay-a", null, null);
        assertThat(line.admits(SEND)).isTrue();

        line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535 5.7.8 Authentication credentials invalid");
        assertThat(line.admits(SEND)).as("the gate closes on the delivery's own thread").isFalse();
        assertThat(line.admits(BULK)).isTrue();
        assertThat(consumersPaused.get(SEND)).isTrue();
        assertThat(records.get(SEND).reason()).isEqualTo(PauseReason.SYSTEMIC);
        assertThat(records.get(SEND).since()).isEqualTo(T0);
        assertThat(stopped).singleElement().satisfies(s -> {
            assertThat(s.queue()).isEqualTo(SEND);
            assertThat(s.reason()).isEqualTo("systemic");
            assertThat(s.detail()).contains("535");
        });

        line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535 again");
        assertThat(stopped).as("no second page for the same stop").hasSize(1);

        clock.offset(Duration.ofSeconds(42));
        line.answered(SEND, "relay-a", null, null);
        assertThat(line.admits(SEND)).isTrue();
        assertThat(consumersPaused.get(SEND)).isFalse();
        assertThat(records).doesNotContainKey(SEND);
        assertThat(started).singleElement().satisfies(s -> {
            assertThat(s.reason()).isEqualTo("systemic");
            assertThat(s.stoppedFor()).isEqualTo(Duration.ofSeconds(42));
        });
    }

    /** Restarts by hand that stop again on the same 535 stay in one outage: its record keeps the start and cause. */
    @Test
    void aLineRestartedByHandThatStopsAgainKeepsItsOutageInItsRecord() {
        line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535 5.7.8 Authentication credentials invalid");
        for (int cycle = 1; cycle <= 3; cycle++) {
            clock.offset(Duration.ofSeconds(30L * cycle));
            line.resumeByOperator(SEND, "ann");
            assertThat(line.admits(SEND)).isTrue();
            assertThat(records).doesNotContainKey(SEND);
            line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535 still " + cycle);
            assertThat(consumersPaused.get(SEND)).isTrue();
            LineState recorded = records.get(SEND);
            assertThat(recorded.episode().start()).as("cycle " + cycle).isEqualTo(T0);
            assertThat(recorded.episode().firstDetail()).contains("Authentication credentials invalid");
            assertThat(recorded.detail()).endsWith("535 still " + cycle);
            assertThat(recorded.since()).isEqualTo(T0.plusSeconds(30L * cycle));
            assertThat(recorded.episode().failedProbes()).isEqualTo(cycle);
        }
        line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535 from the probe");
        assertThat(records.get(SEND).episode().failedProbes()).as("a failed probe is recorded too").isEqualTo(4);
        assertThat(stopped).as("each stop pages").hasSize(4);

        // the probe is accepted: the outage is over, and the next stop begins a new one
        line.answered(SEND, "relay-a", null, null);
        assertThat(records).doesNotContainKey(SEND);
        clock.offset(Duration.ofSeconds(200));
        line.answered(SEND, "relay-a", FailureClass.SYSTEMIC, "535 a new outage");
        assertThat(records.get(SEND).episode().start()).isEqualTo(T0.plusSeconds(200));
        assertThat(records.get(SEND).episode().failedProbes()).isZero();
    }

    @Test
    void everyProviderOfTheChainOpenStopsTheLineAndOneLeavingOpenStartsIt() {
        line.breakerChanged(new BreakerStateChanged("relay-a", "open", T0, "connection refused"));
        assertThat(line.admits(SEND)).as("relay-b still closed").isTrue();
        assertThat(line.state(BULK).reason()).as("bulk's chain is relay-a alone").isEqualTo(PauseReason.PROVIDERS_OPEN);

        line.breakerChanged(new BreakerStateChanged("relay-b", "open", T0, "connection refused"));
        assertThat(line.state(SEND).reason()).isEqualTo(PauseReason.PROVIDERS_OPEN);
        assertThat(consumersPaused.get(SEND)).isTrue();

        line.breakerChanged(new BreakerStateChanged("relay-b", "half_open", T0.plusSeconds(30), null));
        assertThat(line.admits(SEND)).isTrue();
        assertThat(line.admits(BULK)).as("relay-a is still open").isFalse();

        line.breakerChanged(new BreakerStateChanged("relay-a", "closed", T0.plusSeconds(40), null));
        assertThat(line.admits(BULK)).isTrue();
        assertThat(consumersPaused).containsEntry(SEND, false).containsEntry(BULK, false);
    }

    @Test
    void theDeadLetterRateTripsOnABurstOfHandlerErrorsNotOnABurstOfPoison() {
        for (int i = 0; i < 40; i++) {
            line.delivered(BULK);
            line.deadLetterArrived(arrival(BULK, "poison", i));
        }
        assertThat(line.admits(BULK)).as("40 poison of 40 deliveries").isTrue();

        for (int i = 0; i < 40; i++) {
            line.delivered(BULK);
        }
        int n = 0;
        while (line.admits(BULK) && n < 40) {
            line.deadLetterArrived(arrival(BULK, "handler_error", 100 + n++));
        }
        assertThat(line.state(BULK).reason()).isEqualTo(PauseReason.DEAD_LETTER_RATE);
        assertThat(n).as("handler_errors until more than 10 % of 80 deliveries").isEqualTo(9);
        assertThat(line.state(BULK).detail()).contains("9 of 80 deliveries");
        assertThat(stopped).singleElement().satisfies(s -> assertThat(s.reason()).isEqualTo("dead_letter_rate"));

        clock.offset(Duration.ofSeconds(59));
        line.signal(BULK, new LineSignal.RestartCheck(clock.instant(), Duration.ofSeconds(60)));
        assertThat(line.admits(BULK)).isFalse();
        clock.offset(Duration.ofSeconds(60));
        line.signal(BULK, new LineSignal.RestartCheck(clock.instant(), Duration.ofSeconds(60)));
        assertThat(line.admits(BULK)).isTrue();
    }

    /**
     * A database whose disk is full answers the probe's connection test (reads work) while it refuses every write
     * that needs new space: the lines it stopped start again only once the probe's write goes through.
     */
    @Test
    void aLineStoppedByADatabaseRefusingWritesStartsAgainOnlyOnceAWriteGoesThrough() {
        String[] fullDisk = {"the disk of its data directory (table files) is full (SQLSTATE 53100)"};
        DatabaseWrites writes = new DatabaseWrites() {
            @Override
            protected Optional<String> writeTest() {
                return Optional.ofNullable(fullDisk[0]);
            }
        };
        LineProbe probe = probe(writes);
        writes.refused(new java.sql.SQLException("ERROR: could not extend file \"base/16384/16500\": No space left"
                + " on device", "53100"));
        line.databaseUnreachable("delivery on mail.send: the database refuses writes: " + fullDisk[0]);

        probe.tick();
        assertThat(line.state(SEND).reason()).as("reads answer, writes do not").isEqualTo(PauseReason.DATABASE);
        assertThat(line.state(BULK).reason()).isEqualTo(PauseReason.DATABASE);
        assertThat(consumersPaused).containsEntry(SEND, true).containsEntry(BULK, true);

        fullDisk[0] = null;
        probe.tick();
        assertThat(line.state(SEND).paused()).isFalse();
        assertThat(line.state(BULK).paused()).isFalse();
        assertThat(writes.refusal()).isEmpty();
    }

    /** The probe of this node's lines, over a database that answers its connection test. */
    private LineProbe probe(DatabaseWrites writes) {
        LineProbe probe = new LineProbe();
        probe.line = line;
        probe.config = line.config;
        probe.settings = line.settings;
        probe.records = line.records;
        probe.clock = clock;
        probe.writes = writes;
        probe.dataSource = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {javax.sql.DataSource.class}, (ds, m, a) -> java.lang.reflect.Proxy.newProxyInstance(
                        getClass().getClassLoader(), new Class<?>[] {java.sql.Connection.class},
                        (c, cm, ca) -> "isValid".equals(cm.getName()) ? (Object) true : null));
        return probe;
    }

    @Test
    void anUnreachableDatabaseStopsEveryLineWithoutARecordAndItsAnswerStartsThem() {
        line.databaseUnreachable("Connection to 127.0.0.1:5432 refused");
        assertThat(line.state(SEND).reason()).isEqualTo(PauseReason.DATABASE);
        assertThat(line.state(BULK).reason()).isEqualTo(PauseReason.DATABASE);
        assertThat(consumersPaused).containsEntry(SEND, true).containsEntry(BULK, true);
        assertThat(records).as("nothing can be written while the database is away").isEmpty();

        line.signal(SEND, new LineSignal.DatabaseAnswered());
        line.signal(BULK, new LineSignal.DatabaseAnswered());
        assertThat(consumersPaused).containsEntry(SEND, false).containsEntry(BULK, false);
    }

    @Test
    void anOperatorsPauseIsRecordedAndOnlyAnOperatorLiftsItAndARecordedPauseIsRestored() {
        line.pauseByOperator(SEND, "ann");
        assertThat(records.get(SEND).reason()).isEqualTo(PauseReason.OPERATOR);
        line.answered(SEND, "relay-a", null, null);
        line.signal(SEND, new LineSignal.DatabaseAnswered());
        assertThat(line.admits(SEND)).isFalse();

        // a restart: a fresh node reads the record and pauses the consumers again
        LineState recorded = records.get(SEND);
        consumersPaused.put(SEND, false);
        wire();
        line.restore(SEND, recorded);
        assertThat(line.state(SEND)).isEqualTo(recorded);
        assertThat(line.admits(SEND)).as("the gate closes before the consumers are switched").isFalse();
        line.reconcile(SEND, false);
        assertThat(consumersPaused.get(SEND)).isTrue();

        line.resumeByOperator(SEND, "bob");
        assertThat(line.admits(SEND)).isTrue();
        assertThat(consumersPaused.get(SEND)).isFalse();
        assertThat(records).doesNotContainKey(SEND);
    }

    private DeadLetterArrived arrival(String queue, String reason, int n) {
        DeadLetterEnvelope e = new DeadLetterEnvelope(reason, "internal", "m-" + n, "k-" + n, queue, "mailroom-sender",
                "test", List.of(), T0, clock.instant(), null, "boom", null, null, null, null, "relay-a", null,
                DeadLetterEnvelope.ROUTED_BY_POLICY, "ID:" + n, "sha");
        return new DeadLetterArrived(n, e, true);
    }

    /** An {@link Event} that records what was fired. */
    private static final class Recording<T> implements Event<T> {
        private final List<T> fired;

        Recording(List<T> fired) {
            this.fired = fired;
        }

        @Override
        public void fire(T event) {
            fired.add(event);
        }

        @Override
        public <U extends T> CompletionStage<U> fireAsync(U event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends T> CompletionStage<U> fireAsync(U event, NotificationOptions options) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Event<T> select(Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends T> Event<U> select(Class<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends T> Event<U> select(TypeLiteral<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }
    }

    /** Runs the later work at once, unless told to hold it (a switch on its way). */
    static class HeldStopLine extends StopLine {
        boolean runLaterHeld;

        @Override
        void runLater(Runnable work) {
            if (!runLaterHeld) {
                work.run();
            }
        }
    }
}
