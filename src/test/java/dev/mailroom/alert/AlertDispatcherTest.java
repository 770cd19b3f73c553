package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The engine with time passed to {@code tick}: backoff and windows are checked by moving time, not sleeping. */
class AlertDispatcherTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Clock CLOCK = Clock.fixed(T0, ZoneOffset.UTC);

    private final LogCapture log = new LogCapture(AlertDispatcher.class.getName());

    @AfterEach
    void closeLog() {
        log.close();
    }

    private static AlertDispatchSettings settings(int capacity, Duration maxAge, int maxPending) {
        return new AlertDispatchSettings(capacity, Duration.ofSeconds(10), Duration.ofMinutes(1),
                Duration.ofSeconds(1), Duration.ofSeconds(60), maxAge, maxPending);
    }

    private static AlertDispatcher dispatcher(AlertDispatchSettings s, AlertSink... sinks) {
        return new AlertDispatcher(s, AlertRouting.defaults(), CLOCK, List.of(sinks));
    }

    private static AlertDispatcher dispatcher(AlertSink... sinks) {
        return dispatcher(AlertDispatchSettings.defaults(), sinks);
    }

    private static AlertEvent dl(String reason, String messageId) {
        return AlertEvent.deadLetter("mail.send", reason, "internal", "E", messageId, T0);
    }

    private static Instant at(double seconds) {
        return T0.plusMillis((long) (seconds * 1000));
    }

    /**
     * The outbox's low mark: an occurrence counts as delivered only once every sink took the alert it was
     * counted in; one waiting in the queue, an open group or a failing sink's outbox holds the mark back.
     */
    @Test
    void theLowMarkPassesAnOutboxRowOnlyWhenEverySinkTookTheAlertItWasCountedIn() {
        RecordingSink webhook = new RecordingSink("webhook").failing(1);
        RecordingSink logSink = new RecordingSink("log");
        AlertDispatcher d = dispatcher(logSink, webhook);
        assertThat(d.deliveredBelow(1)).as("nothing raised").isEqualTo(1);

        d.raise(dl("handler_error", "a-1"), 1);
        d.raise(dl("manual_review", "b-1"), 2);
        d.raise(dl("handler_error", "a-2"), 3);
        assertThat(d.deliveredBelow(4)).as("queued").isEqualTo(1);
        d.tick(at(0));
        assertThat(d.deliveredBelow(4)).as("in open groups").isEqualTo(1);
        d.tick(at(10)); // the log took both alerts; the webhook failed once
        assertThat(logSink.alerts()).hasSize(2);
        assertThat(d.deliveredBelow(4)).as("the webhook has not taken them").isEqualTo(1);
        d.raise(dl("handler_error", "a-3"), 4);
        d.tick(at(11)); // the webhook takes both; row 4 opened a new group
        assertThat(webhook.alerts()).hasSize(2);
        assertThat(d.deliveredBelow(5)).as("rows 1 to 3 delivered, 4 in an open group").isEqualTo(4);
        d.tick(at(80)); // the group interval of handler_error has passed
        assertThat(d.deliveredBelow(5)).isEqualTo(5);
        // an occurrence raised in memory only (no outbox row) never holds the mark back
        d.raise(dl("handler_error", "mem-1"));
        assertThat(d.deliveredBelow(5)).isEqualTo(5);
    }

    @Test
    void aFailingSinkIsRetriedWithDoublingBackoffAndGetsEachAlertOnceInOrder() {
        RecordingSink webhook = new RecordingSink("webhook").failing(3);
        RecordingSink logSink = new RecordingSink("log");
        AlertDispatcher d = dispatcher(logSink, webhook);

        d.raise(dl("handler_error", "a-1"));
        d.raise(dl("manual_review", "b-1"));
        d.raise(dl("handler_error", "a-2"));
        d.tick(at(0));
        assertThat(webhook.offered).isEmpty(); // the group window is open

        d.tick(at(10)); // due: offered, fails (1)
        assertThat(webhook.offered).hasSize(1);
        assertThat(d.nextAttempt(webhook)).contains(at(11));
        // the other sink is not held back by the failing one
        assertThat(logSink.alerts()).extracting(a -> a.labels().get("reason"), Alert::count)
                .containsExactly(tuple("handler_error", 2L), tuple("manual_review", 1L));

        d.tick(at(10.5));
        assertThat(webhook.offered).hasSize(1); // backing off
        d.tick(at(11)); // fails (2): wait 2 s
        assertThat(webhook.offered).hasSize(2);
        assertThat(d.nextAttempt(webhook)).contains(at(13));
        d.tick(at(12.9));
        assertThat(webhook.offered).hasSize(2);
        d.tick(at(13)); // fails (3): wait 4 s
        assertThat(d.nextAttempt(webhook)).contains(at(17));
        d.tick(at(16.9));
        assertThat(webhook.offered).hasSize(3);
        d.tick(at(17)); // delivered

        assertThat(webhook.offered).hasSize(4);
        assertThat(webhook.delivered).hasSize(1);
        assertThat(webhook.alerts()).extracting(a -> a.labels().get("reason"), Alert::count, Alert::examples)
                .containsExactly(tuple("handler_error", 2L, List.of("a-1", "a-2")), tuple("manual_review", 1L, List.of("b-1")));
        assertThat(d.pending(webhook)).isEmpty();
        assertThat(d.nextAttempt(webhook)).isEmpty();

        d.tick(at(100));
        assertThat(webhook.offered).hasSize(4); // nothing is sent twice
        assertThat(logSink.delivered).hasSize(1);
        assertThat(d.undeliverable()).isZero();
        assertThat(log.at(Level.WARNING)).hasSize(3);
    }

    @Test
    void backoffDoublesUpToTheMaximum() {
        RecordingSink webhook = new RecordingSink("webhook").failing(Integer.MAX_VALUE);
        AlertDispatcher d = dispatcher(webhook);
        d.raise(dl("handler_error", "a-1"));
        d.tick(at(0));
        Instant now = at(10);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            d.tick(now);
            Instant next = d.nextAttempt(webhook).orElseThrow();
            waits.add(Duration.between(now, next).toSeconds());
            now = next;
        }
        assertThat(waits).containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L, 60L);
    }

    @Test
    void alertsWaitingForADownSinkAreMergedSoItGetsWholeCounts() {
        RecordingSink webhook = new RecordingSink("webhook").failing(2);
        AlertDispatcher d = dispatcher(webhook);
        d.raise(dl("handler_error", "a-1"));
        d.tick(at(0));
        d.tick(at(10)); // fails
        d.raise(dl("handler_error", "a-2"));
        d.raise(dl("handler_error", "a-3"));
        d.tick(at(11)); // fails; the new arrivals open a group held back by the group interval
        d.tick(at(70)); // the second group joins the waiting alert: one alert, count 3; delivered

        assertThat(webhook.delivered).hasSize(1);
        assertThat(webhook.alerts()).singleElement().satisfies(a -> {
            assertThat(a.count()).isEqualTo(3);
            assertThat(a.examples()).containsExactly("a-1", "a-2", "a-3");
        });
    }

    @Test
    void anAlertUndeliveredPastTheMaximumAgeIsDroppedAndLogged() {
        RecordingSink webhook = new RecordingSink("webhook").failing(Integer.MAX_VALUE);
        AlertDispatcher d = dispatcher(settings(100, Duration.ofMinutes(10), 100), webhook);
        d.raise(dl("handler_error", "a-1"));
        d.tick(at(0));
        d.tick(at(10)); // waiting since 10 s
        d.tick(at(609));
        assertThat(d.pending(webhook)).hasSize(1);
        d.tick(at(610));

        assertThat(d.pending(webhook)).isEmpty();
        assertThat(d.undeliverable()).isEqualTo(1);
        assertThat(log.at(Level.SEVERE)).singleElement().extracting(java.util.logging.LogRecord::getMessage).asString()
                .startsWith("Alert dropped, webhook did not take it (undelivered for 10m): ALERT page DeadLetterArrived count=1 queue=mail.send reason=handler_error");
    }

    @Test
    void moreAlertsWaitingThanTheMaximumDropsTheOldestAndLogsIt() {
        RecordingSink webhook = new RecordingSink("webhook").failing(Integer.MAX_VALUE);
        AlertDispatcher d = dispatcher(settings(100, Duration.ofHours(1), 2), webhook);
        d.raise(dl("r_one", "1"));
        d.raise(dl("r_two", "2"));
        d.raise(dl("r_three", "3"));
        d.tick(at(0));
        d.tick(at(10));

        assertThat(d.pending(webhook)).extracting(a -> a.labels().get("reason")).containsExactly("r_two", "r_three");
        assertThat(d.undeliverable()).isEqualTo(1);
        assertThat(log.at(Level.SEVERE)).singleElement().extracting(java.util.logging.LogRecord::getMessage).asString()
                .contains("more than 2 alerts waiting").contains("reason=r_one");
    }

    @Test
    void aBurstIsOneGroupedAlertPlusOneBurstPage() {
        RecordingSink sink = new RecordingSink("log");
        AlertDispatcher d = dispatcher(sink);
        for (int i = 0; i < 5000; i++) {
            d.raise(dl("manual_review", "m-" + i));
        }
        d.tick(at(0));
        d.tick(at(10));

        assertThat(sink.alerts()).extracting(Alert::name, Alert::severity, Alert::count)
                .containsExactly(tuple("DeadLetterArrived", Severity.TICKET, 5000L),
                        tuple("DeadLetterBurst", Severity.PAGE, 1L));
        assertThat(sink.alerts().get(1).labels()).containsEntry("queue", "mail.send").containsEntry("reason", "manual_review");
        assertThat(sink.alerts().get(1).summary())
                .isEqualTo("Burst of dead letters on mail.send with reason manual_review: at least 50 within 5m");
    }

    @Test
    void fewerThanTheBurstCountIsNoBurst() {
        RecordingSink sink = new RecordingSink("log");
        AlertDispatcher d = dispatcher(sink);
        for (int i = 0; i < 49; i++) {
            d.raise(dl("manual_review", "m-" + i));
        }
        d.tick(at(0));
        d.tick(at(10));
        assertThat(sink.alerts()).extracting(Alert::name).containsExactly("DeadLetterArrived");
    }

    @Test
    void raiseNeverBlocksWhileASinkDoesAndTheCountsAddUp() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingSink slow = new RecordingSink("slow").blockingOn(release);
        AlertDispatcher d = dispatcher(slow);
        d.raise(dl("handler_error", "first"));
        d.tick(at(0));

        ExecutorService pool = Executors.newFixedThreadPool(9);
        try {
            Future<?> blockedTick = pool.submit(() -> d.tick(at(10)));
            assertThat(slow.entered.await(10, TimeUnit.SECONDS)).isTrue(); // the ticking thread now hangs in the sink

            int threads = 8;
            int perThread = 10_000;
            List<Future<long[]>> latencies = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String reason = "reason_" + t;
                latencies.add(pool.submit(() -> {
                    long[] nanos = new long[perThread];
                    for (int i = 0; i < perThread; i++) {
                        long start = System.nanoTime();
                        boolean taken = d.raise(dl(reason, reason + "-" + i));
                        nanos[i] = System.nanoTime() - start;
                        if (!taken) {
                            throw new AssertionError("dropped below capacity");
                        }
                    }
                    return nanos;
                }));
            }
            long[] all = new long[threads * perThread];
            for (int t = 0; t < threads; t++) {
                // all 80,000 raises finish while the sink is still blocked: raise does not wait for it
                System.arraycopy(latencies.get(t).get(20, TimeUnit.SECONDS), 0, all, t * perThread, perThread);
            }
            assertThat(release.getCount()).isEqualTo(1);
            assertThat(blockedTick).isNotDone();
            // and each returns at once; a percentile, because a GC pause on a busy build machine can stall
            // any single call (the blocking case is the timeout above, not a slow tail)
            java.util.Arrays.sort(all);
            assertThat(Duration.ofNanos(all[(int) (all.length * 0.99)])).as("99th percentile of raise()")
                    .isLessThan(Duration.ofMillis(5));
            assertThat(d.queuedEvents()).isEqualTo(threads * perThread);

            release.countDown();
            blockedTick.get(10, TimeUnit.SECONDS);
            d.tick(at(11));
            d.tick(at(21));

            List<Alert> alerts = slow.alerts();
            assertThat(alerts.stream().filter(a -> a.name().equals("DeadLetterArrived")).mapToLong(Alert::count).sum())
                    .isEqualTo(1 + threads * perThread);
            assertThat(alerts.stream().filter(a -> a.name().equals("DeadLetterArrived")))
                    .filteredOn(a -> a.labels().get("reason").startsWith("reason_"))
                    .hasSize(threads).allSatisfy(a -> assertThat(a.count()).isEqualTo(perThread));
            assertThat(alerts).filteredOn(a -> a.name().equals("DeadLetterBurst")).hasSize(threads);
            assertThat(d.droppedEvents()).isZero();
            assertThat(d.queuedEvents()).isZero();
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void overflowIsCountedAndReportedInTheNextAlert() {
        RecordingSink sink = new RecordingSink("log");
        AlertDispatcher d = dispatcher(settings(100, Duration.ofHours(1), 100), sink);
        int taken = 0;
        for (int i = 0; i < 150; i++) {
            if (d.raise(dl("handler_error", "m-" + i))) {
                taken++;
            }
        }
        assertThat(taken).isEqualTo(100);
        assertThat(d.droppedEvents()).isEqualTo(50);
        assertThat(d.raise(null)).isFalse();

        d.tick(at(0));
        d.tick(at(10));

        assertThat(sink.alerts()).extracting(Alert::name, Alert::severity, Alert::count).containsExactly(
                tuple("DeadLetterArrived", Severity.PAGE, 100L),
                tuple("DeadLetterBurst", Severity.PAGE, 1L),
                tuple("AlertEventsDropped", Severity.PAGE, 50L));
        assertThat(sink.alerts().get(2).description()).startsWith("50 alert events were dropped");
        // room again once a tick has taken the queue
        assertThat(d.raise(dl("handler_error", "later"))).isTrue();
        assertThat(d.droppedEvents()).isEqualTo(50);
    }

    @Test
    void aSinkThatThrowsARuntimeExceptionIsRetriedLikeAnyFailure() {
        AlertSink broken = new AlertSink() {
            int calls;

            @Override
            public String name() {
                return "broken";
            }

            @Override
            public void deliver(List<Alert> alerts) {
                if (calls++ == 0) {
                    throw new IllegalStateException("bug");
                }
            }
        };
        AlertDispatcher d = dispatcher(broken);
        d.raise(dl("handler_error", "a"));
        d.tick(at(0));
        d.tick(at(10));
        assertThat(d.pending(broken)).hasSize(1);
        d.tick(at(11));
        assertThat(d.pending(broken)).isEmpty();
    }

    @Test
    void closeOffersEverythingOnceMoreAndLogsWhatIsLeft() {
        RecordingSink good = new RecordingSink("log");
        RecordingSink down = new RecordingSink("webhook").failing(Integer.MAX_VALUE);
        AlertDispatcher d = dispatcher(good, down);
        d.raise(dl("handler_error", "a"));
        d.tick(at(0));
        d.raise(dl("poison", "b")); // not even taken by a tick yet

        d.close(at(1)); // windows still open, webhook backoff irrelevant

        assertThat(good.alerts()).extracting(a -> a.labels().get("reason")).containsExactly("handler_error", "poison");
        assertThat(down.offered).hasSize(1);
        assertThat(d.undeliverable()).isEqualTo(2);
        assertThat(log.at(Level.SEVERE)).hasSize(2)
                .allSatisfy(r -> assertThat(r.getMessage()).contains("not delivered before shutdown"));
    }

    @Test
    void fromConfigReadsEverySetting() {
        java.util.Map<String, String> m = java.util.Map.of(
                "mailroom.alerts.queue-capacity", "7",
                "mailroom.alerts.group-wait", "2s",
                "mailroom.alerts.group-interval", "30s",
                "mailroom.alerts.retry.initial-backoff", "500ms",
                "mailroom.alerts.retry.max-backoff", "10s",
                "mailroom.alerts.retry.max-age", "2h",
                "mailroom.alerts.retry.max-pending", "9",
                "mailroom.alerts.burst.count", "4");
        AlertDispatcher d = AlertDispatcher.fromConfig(k -> java.util.Optional.ofNullable(m.get(k)), CLOCK, List.of());
        assertThat(d.settings()).isEqualTo(new AlertDispatchSettings(7, Duration.ofSeconds(2), Duration.ofSeconds(30),
                Duration.ofMillis(500), Duration.ofSeconds(10), Duration.ofHours(2), 9));
        assertThat(d.routing().burstCount()).isEqualTo(4);
        assertThat(AlertDispatcher.fromConfig(k -> java.util.Optional.empty(), CLOCK, List.of()).settings())
                .isEqualTo(AlertDispatchSettings.defaults());
    }
}
