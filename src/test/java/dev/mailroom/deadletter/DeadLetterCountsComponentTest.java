package dev.mailroom.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testsupport.Filters;

import dev.mailroom.job.Incoming;
import dev.mailroom.redrive.DeadLetterRevision;
import dev.mailroom.testsupport.ComponentDatabase;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.NotificationOptions;
import jakarta.enterprise.util.TypeLiteral;
import jakarta.persistence.EntityManager;
import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The counts kept on write ({@link DeadLetterCounts}, V8) stay exactly what a GROUP BY over
 * {@code dead_letter} says, through the real code of every place that writes a dead letter: the
 * recorder's upsert (new, recorded again with another cause and time, reopened after a discard, next lap
 * after a replay), a discard, the redrive's transitions (claim, replayed, released), retention (expiry and
 * purge, empty rows dropped). A seeded random sequence of 250 such operations, each in a transaction of
 * its own, compared after every one of them; then what the API answers from the counts compared with the
 * same question answered by scanning. On H2 here, on PostgreSQL in {@link DeadLetterCountsPostgresComponentTest}.
 */
class DeadLetterCountsComponentTest {

    static final List<Class<?>> ENTITIES = List.of(DeadLetter.class, DeadLetterEvent.class, DeadLetterRevision.class);
    private static final Instant T0 = Instant.parse("2030-03-01T10:00:00Z");
    private static final String[] QUEUES = {"mail.send", "mail.send.bulk"};
    private static final String[] REASONS = {"retries_exhausted", "handler_error", "template_error"};
    private static final String[] CLASSES = {"transient", "internal"};
    private static final String[] TYPES = {"smtp_421", "java.lang.IllegalStateException", null};
    private static final String[] VERSIONS = {"1.0.0", "1.1.0", null};
    private static final String[] ERRORS = {"421 try again later ({n} in queue)", "mailbox <u{n}@example.com> full",
        "boom at step {n}", null};

    /** Operations in the random sequence (each followed by a full comparison). */
    private static final int STEPS = 250;
    static ComponentDatabase db;
    /** How many sessions wait on another one's lock, in this database's own words. */
    static String blockedSessions;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(ENTITIES);
        // H2 does not name a blocker for a wait on another session's uncommitted key: the waiting statement
        blockedSessions = "select count(*) from information_schema.sessions"
                + " where executing_statement like 'insert into dead_letter_group_count%'";
    }

    @AfterAll
    static void close() {
        db.close();
    }

    // ---- the real code, wired by hand on one transaction's entity manager ----

    private static <T> T set(T target, String field, Object value) {
        try {
            Field f = target.getClass().getDeclaredField(field);
            f.setAccessible(true);
            f.set(target, value);
            return target;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static DeadLetterCounts counts(EntityManager em) {
        return set(new DeadLetterCounts(), "em", em);
    }

    /** Broker copies are not what this test is about: none to remove. */
    static final class NoCopies extends DeadLetterCopies {
        @Override
        public int remove(Identity d) {
            return 0;
        }
    }

    static final class NoEvents<T> implements Event<T> {
        @Override public void fire(T event) { }
        @Override public <U extends T> CompletionStage<U> fireAsync(U event) { return CompletableFuture.completedFuture(event); }
        @Override public <U extends T> CompletionStage<U> fireAsync(U event, NotificationOptions o) { return fireAsync(event); }
        @Override public Event<T> select(Annotation... q) { return this; }
        @Override public <U extends T> Event<U> select(Class<U> t, Annotation... q) { return new NoEvents<>(); }
        @Override public <U extends T> Event<U> select(TypeLiteral<U> t, Annotation... q) { return new NoEvents<>(); }
    }

    private static DeadLetterRecorder recorder(EntityManager em) {
        DeadLetterRecorder r = new DeadLetterRecorder();
        set(r, "em", em);
        set(r, "retention", new DeadLetterRetention(key -> java.util.Optional.empty()));
        set(r, "arrivals", new NoEvents<DeadLetterArrived>());
        set(r, "counts", counts(em));
        return r;
    }

    private static DeadLetterActions actions(EntityManager em, Instant now) {
        DeadLetterActions a = new DeadLetterActions();
        set(a, "em", em);
        set(a, "copies", new NoCopies());
        set(a, "clock", java.time.Clock.fixed(now, java.time.ZoneOffset.UTC));
        set(a, "counts", counts(em));
        return a;
    }

    private static DeadLetterMonitor monitor(EntityManager em) {
        DeadLetterMonitor m = new DeadLetterMonitor();
        set(m, "em", em);
        set(m, "alertBefore", java.time.Duration.ofDays(2));
        set(m, "notices", new NoEvents<DeadLetterNotice>());
        set(m, "copies", new NoCopies());
        set(m, "counts", counts(em));
        return m;
    }

    private static DeadLetterQueries queries(EntityManager em, DeadLetterGroups groups) {
        DeadLetterQueries q = new DeadLetterQueries();
        q.em = em;
        q.groups = groups;
        return q;
    }

    /** Records (or records again) the dead letter of {@code messageId} on {@code queue}, as a failed delivery does. */
    private static void record(Random random, String queue, String messageId, Instant failedAt, Long replayOf) {
        String error = pick(random, ERRORS);
        if (error != null) {
            error = error.replace("{n}", Integer.toString(random.nextInt(1000)));
        }
        DeadLetterEnvelope envelope = new DeadLetterEnvelope(pick(random, REASONS), pick(random, CLASSES), messageId,
                null, queue, "SendConsumer", pick(random, VERSIONS), List.of(), failedAt.minusSeconds(60), failedAt,
                pick(random, TYPES), error, null, null, null, null, null, null, DeadLetterEnvelope.ROUTED_BY_POLICY,
                "ID:" + messageId, "sha");
        Incoming in = new Incoming(queue, "ID:" + messageId + "-" + random.nextInt(), false, 1,
                "{}".getBytes(StandardCharsets.UTF_8), true, null, failedAt, null, replayOf, null);
        db.run(em -> recorder(em).store(in, envelope, null));
    }

    private static <T> T pick(Random random, T[] values) {
        return values[random.nextInt(values.length)];
    }

    private record Row(long id, String queue, String messageId, String status) { }

    private static List<Row> rows() {
        return db.inTransaction(em -> em.createQuery(
                        "select d.id, d.sourceQueue, d.messageId, d.status from DeadLetter d order by d.id", Object[].class)
                .getResultStream().map(r -> new Row((Long) r[0], (String) r[1], (String) r[2], (String) r[3])).toList());
    }

    // ---- what the counts must equal, computed from dead_letter independently of DeadLetterCounts ----

    /** Group rows as "status|queue|reason|class|type|fingerprint|version" → "count|first|last". */
    private static Map<String, String> groupsRecomputed() {
        return groupsRecomputed(r -> join(r, 7));
    }

    /** Rows grouped by {@code key} of (status, queue, reason, class, type, fingerprint, version, failed_at). */
    private static Map<String, String> groupsRecomputed(Function<Object[], String> key) {
        return db.inTransaction(em -> em.createQuery("""
                        select d.status, d.sourceQueue, d.reason, d.failureClass, d.errorType, d.errorFingerprint,
                        d.consumerVersion, d.failedAt from DeadLetter d""", Object[].class)
                .getResultStream()
                .collect(Collectors.groupingBy(key, TreeMap::new, Collectors.toList())))
                .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> {
                    List<Instant> at = e.getValue().stream().map(r -> (Instant) r[7]).sorted().toList();
                    return at.size() + "|" + at.get(0) + "|" + at.get(at.size() - 1);
                }, (a, b) -> a, TreeMap::new));
    }

    private static Map<String, String> groupsMaintained() {
        Map<String, String> all = db.inTransaction(em -> ((List<?>) em.createNativeQuery("""
                        select status, source_queue, reason, failure_class, error_type, error_fingerprint,
                        consumer_version, dead_letters, first_failed_at, last_failed_at from dead_letter_group_count""")
                .getResultList()).stream().map(o -> (Object[]) o)
                .collect(Collectors.toMap(r -> join(r, 7), r -> ((Number) r[7]).longValue() + "|"
                        + DeadLetterCounts.instant(r[8]) + "|" + DeadLetterCounts.instant(r[9]), (a, b) -> a, TreeMap::new)));
        all.values().forEach(v -> assertThat(Long.parseLong(v.split("\\|")[0])).as("no negative count").isNotNegative());
        all.values().removeIf(v -> v.startsWith("0|"));
        return all;
    }

    /**
     * Group rows per bucket of {@code seconds} (an hour, a day) as "bucket|status|queue|reason|class|type|fingerprint
     * |version" → "count|first|last".
     */
    private static Map<String, String> tierGroupsRecomputed(long seconds) {
        return groupsRecomputed(r -> Math.floorDiv(((Instant) r[7]).getEpochSecond(), seconds) + "|" + join(r, 7));
    }

    /** The rows of {@code dead_letter_group_hour} or {@code dead_letter_group_day}, as {@link #tierGroupsRecomputed}. */
    private static Map<String, String> tierGroupsMaintained(String table) {
        Map<String, String> all = db.inTransaction(em -> ((List<?>) em.createNativeQuery("""
                        select bucket, status, source_queue, reason, failure_class, error_type, error_fingerprint,
                        consumer_version, dead_letters, first_failed_at, last_failed_at from\s""" + table)
                .getResultList()).stream().map(o -> (Object[]) o)
                .collect(Collectors.toMap(r -> join(r, 8), r -> ((Number) r[8]).longValue() + "|"
                        + DeadLetterCounts.instant(r[9]) + "|" + DeadLetterCounts.instant(r[10]), (a, b) -> a,
                        TreeMap::new)));
        all.values().forEach(v -> assertThat(Long.parseLong(v.split("\\|")[0])).as("no negative count").isNotNegative());
        all.values().removeIf(v -> v.startsWith("0|"));
        return all;
    }

    /** Arrival rows as "seconds|bucket|queue|reason" → count, from each row's failed_at in Java. */
    private static Map<String, Long> arrivalsRecomputed() {
        Map<String, Long> counts = new TreeMap<>();
        db.inTransaction(em -> em.createQuery("select d.sourceQueue, d.reason, d.failedAt from DeadLetter d",
                Object[].class).getResultList()).forEach(r -> {
                    for (long s : new long[] {60, 900, 3600, 86400}) {
                        counts.merge(s + "|" + Math.floorDiv(((Instant) r[2]).getEpochSecond(), s) + "|" + r[0] + "|"
                                + r[1], 1L, Long::sum);
                    }
                });
        return counts;
    }

    private static Map<String, Long> arrivalsMaintained() {
        Map<String, Long> all = db.inTransaction(em -> ((List<?>) em.createNativeQuery(
                        "select bucket_seconds, bucket, source_queue, reason, arrived from dead_letter_arrival")
                .getResultList()).stream().map(o -> (Object[]) o)
                .collect(Collectors.toMap(r -> join(r, 4), r -> ((Number) r[4]).longValue(), (a, b) -> a, TreeMap::new)));
        all.values().forEach(v -> assertThat(v).as("no negative count").isNotNegative());
        all.values().removeIf(v -> v == 0);
        return all;
    }

    private static String join(Object[] r, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : "|").append(r[i] == null ? "" : r[i].toString());
        }
        return b.toString();
    }

    private static void assertExact(String after) {
        assertThat(groupsMaintained()).as("group counts after " + after).isEqualTo(groupsRecomputed());
        assertThat(arrivalsMaintained()).as("arrival counts after " + after).isEqualTo(arrivalsRecomputed());
        assertThat(tierGroupsMaintained("dead_letter_group_hour")).as("hourly group counts after " + after)
                .isEqualTo(tierGroupsRecomputed(3600));
        assertThat(tierGroupsMaintained("dead_letter_group_day")).as("daily group counts after " + after)
                .isEqualTo(tierGroupsRecomputed(86400));
    }

    @Test
    void countsStayExactThroughEveryKindOfWrite() {
        Random random = new Random(20301);
        List<String> messages = new ArrayList<>();
        Instant now = T0;
        int seen = 0;
        Map<String, Integer> done = new TreeMap<>();
        for (int step = 0; step < STEPS; step++) {
            List<Row> rows = rows();
            List<Row> open = rows.stream().filter(r -> r.status().equals("open")).toList();
            List<Row> replaying = rows.stream().filter(r -> r.status().equals("replaying")).toList();
            int op = random.nextInt(100);
            String what;
            if (op < 35 || rows.isEmpty()) {
                String id = "m-" + (++seen);
                messages.add(id);
                // failed up to 20 days before now, so retention (14 days) has something to do
                record(random, pick(random, QUEUES), id, now.minus(Duration.ofMinutes(random.nextInt(20 * 24 * 60))),
                        null);
                what = "record new";
            } else if (op < 50) {
                Row r = rows.get(random.nextInt(rows.size()));
                record(random, r.queue(), r.messageId(), now.minus(Duration.ofMinutes(random.nextInt(3 * 24 * 60))),
                        null);
                what = "record again (" + r.status() + ")";
            } else if (op < 60 && !open.isEmpty()) {
                Row r = open.get(random.nextInt(open.size()));
                Instant at = now;
                db.run(em -> actions(em, at).discard(r.id(), "ops", "not needed"));
                what = "discard";
            } else if (op < 72 && !open.isEmpty()) {
                Row r = open.get(random.nextInt(open.size()));
                transition(r.id(), DeadLetter.Status.replaying, "redrive-1", now);
                what = "claim";
            } else if (op < 82 && !replaying.isEmpty()) {
                Row r = replaying.get(random.nextInt(replaying.size()));
                boolean replayed = random.nextBoolean();
                transition(r.id(), replayed ? DeadLetter.Status.replayed : DeadLetter.Status.open,
                        replayed ? "redrive-1" : null, now);
                if (replayed && random.nextBoolean()) {
                    // the replay fails again: its next lap
                    record(random, r.queue(), r.messageId(), now, r.id());
                }
                what = replayed ? "replayed" : "released";
            } else if (op < 88) {
                Row r = rows.get(random.nextInt(rows.size()));
                String status = r.status();
                if (!status.equals("open")) {
                    what = "noop";
                } else {
                    transition(r.id(), DeadLetter.Status.discarded, "redrive-2", now);
                    what = "cohort discard";
                }
            } else {
                now = now.plus(Duration.ofHours(6 + random.nextInt(48)));
                Instant at = now;
                db.run(em -> monitor(em).applyRetention(at));
                what = "retention";
            }
            done.merge(what.replaceAll(" \\(.*", ""), 1, Integer::sum);
            assertExact("step " + step + ": " + what);
        }
        // every kind of write happened, and the counts were not trivially empty
        assertThat(done.keySet()).contains("record new", "record again", "discard", "claim", "replayed", "released",
                "cohort discard", "retention");
        assertThat(groupsMaintained()).isNotEmpty();
        assertThat(rows().stream().map(Row::status).distinct().toList())
                .contains("open", "discarded", "replayed", "expired");

        // the API's answers from the counts = the same questions answered by scanning dead_letter
        Instant at = now;
        db.run(em -> {
            DeadLetterGroups g = new DeadLetterGroups();
            g.em = em;
            DeadLetterArrivals a = new DeadLetterArrivals();
            a.em = em;
            DeadLetterQueries q = queries(em, g);
            for (String status : new String[] {"open", "discarded", null}) {
                DeadLetterFilter counted = Filters.of("status", status);
                assertThat(g.groups(counted)).as("groups of " + status).isNotEmpty().isEqualTo(g.scannedGroups(counted));
                // a time window: its whole days from the daily counts, the whole hours at its ends from the hourly
                // ones, its ragged ends scanned
                for (Instant[] w : new Instant[][] {{at.minus(Duration.ofHours(24)), null},
                    {at.minus(Duration.ofDays(9)).plusSeconds(1234), at.minus(Duration.ofDays(2)).minusSeconds(777)},
                    {null, at.minus(Duration.ofDays(5)).plusSeconds(99)}, {Instant.EPOCH, null},
                    {at.minus(Duration.ofDays(30)), at}, {at.minus(Duration.ofDays(7)).plusSeconds(5), null},
                    {at.minus(Duration.ofDays(14)).truncatedTo(java.time.temporal.ChronoUnit.DAYS),
                        at.minus(Duration.ofDays(3)).truncatedTo(java.time.temporal.ChronoUnit.DAYS)},
                    {at.minus(Duration.ofHours(30)).plusSeconds(61), at.minus(Duration.ofHours(2)).minusSeconds(3)}}) {
                    DeadLetterFilter window = Filters.of("status", status, "from", w[0], "to", w[1]);
                    assertThat(g.groups(window)).as("groups of " + status + " in " + java.util.Arrays.toString(w))
                            .isEqualTo(g.scannedGroups(window));
                }
                DeadLetterGroups.Group top = g.groups(counted).get(0);
                // narrowed by any group column, with and without a window: from the counts, and the list's total
                // (from the same counts) is the number of rows the filter selects
                for (Instant[] w : new Instant[][] {{null, null}, {at.minus(Duration.ofDays(9)).plusSeconds(1234), null}}) {
                    for (DeadLetterFilter f : List.of(
                            Filters.of("failure_class", top.failureClass(), "status", status, "from", w[0], "to", w[1]),
                            Filters.of("queue", top.queue(), "error_type", top.errorType(), "consumer_version", "1.0.0",
                                    "status", status, "from", w[0], "to", w[1], "fingerprint", top.fingerprint()),
                            Filters.of("reason", top.reason(), "status", status, "from", w[0], "to", w[1],
                                    "fingerprint", top.fingerprint()))) {
                        assertThat(g.groups(f)).as("groups of " + f).isEqualTo(g.scannedGroups(f));
                        long scanned = g.scannedGroups(f).stream().mapToLong(DeadLetterGroups.Group::count).sum();
                        assertThat(q.listPage(f, null, 0, 5).total()).as("total of " + f).isEqualTo(scanned)
                                .isEqualTo(q.matching(f, 100_000).size());
                    }
                }
                // the fingerprint filter finds exactly the group's members
                DeadLetterFilter members = Filters.of("queue", top.queue(), "reason", top.reason(),
                        "failure_class", top.failureClass(), "error_type", top.errorType(), "status", status,
                        "fingerprint", top.fingerprint());
                if (top.errorType() != null && top.fingerprint() != null) {
                    assertThat(q.find(members, 0, 1000).items()).hasSize((int) top.count());
                }
            }
            for (String[] w : new String[][] {{"PT1H", "720"}, {"P1D", "720"}, {"PT15M", "480"}, {"PT30M", "480"},
                {"PT1M", "24"}, {"PT6H", "720"}, {"PT12H", "720"}, {"PT2H", "168"}, {"PT5M", "1"}, {"PT45M", "48"}}) {
                Duration bucket = Duration.parse(w[0]);
                int hours = Integer.parseInt(w[1]);
                for (String queue : new String[] {null, "mail.send.bulk"}) {
                    var counted = a.arrivals(queue, bucket, hours, at);
                    assertThat(counted).as("arrivals " + w[0] + " " + queue)
                            .isEqualTo(a.scannedArrivals(queue, bucket, DeadLetterArrivals.arrivalsFrom(bucket, hours, at), at));
                }
            }
            assertThat(a.arrivals(null, Duration.ofDays(1), 720, at).stream().mapToLong(DeadLetterArrivals.Bucket::count)
                    .sum()).as("30 days of arrivals").isPositive();
        });
    }

    private static void transition(long id, DeadLetter.Status to, String redrive, Instant now) {
        db.run(em -> {
            DeadLetter d = em.find(DeadLetter.class, id, jakarta.persistence.LockModeType.PESSIMISTIC_WRITE);
            actions(em, now).transition(d, to, redrive, "ops", "test");
        });
    }

    /**
     * Two transactions that create the same group and arrival rows at once (the first dead letters of a new
     * cause, recorded by two consumers): the second waits on the first's uncommitted count rows (no
     * duplicate key, no lost update), both commit, and the counts say 2.
     */
    @Test
    void twoWritersCreatingTheSameCountRowsAtOnceBothCount() throws Exception {
        Instant at = T0.plus(Duration.ofDays(400));
        Function<String, java.util.function.Consumer<EntityManager>> writer = id -> em -> {
            DeadLetterEnvelope envelope = new DeadLetterEnvelope("retries_exhausted", "transient", id, null,
                    "mail.send", "SendConsumer", "9.9.9", List.of(), at, at, "race", "the same cause", null, null, null,
                    null, null, null, DeadLetterEnvelope.ROUTED_BY_POLICY, "ID:" + id, "sha");
            Incoming in = new Incoming("mail.send", "ID:" + id, false, 1, "{}".getBytes(StandardCharsets.UTF_8), true,
                    null, at, null, null, null);
            recorder(em).store(in, envelope, null);
        };
        EntityManager first = db.session();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            first.getTransaction().begin();
            writer.apply("race-a").accept(first);
            java.util.concurrent.Future<?> second = pool.submit(() -> db.run(writer.apply("race-b")));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> db.<Number>inTransaction(
                    em -> (Number) em.createNativeQuery(blockedSessions).getSingleResult()).intValue() == 1);
            assertThat(second).isNotDone();
            first.getTransaction().commit();
            second.get(30, TimeUnit.SECONDS);
        } finally {
            if (first.getTransaction().isActive()) {
                first.getTransaction().rollback();
            }
            first.close();
            pool.shutdownNow();
        }
        assertExact("two concurrent writers");
        assertThat(groupsMaintained()).containsEntry(
                "open|mail.send|retries_exhausted|transient|race|the same cause|9.9.9", "2|" + at + "|" + at);
    }
    /**
     * Two transactions that each move two dead letters of two groups, in opposite order (two redrive runs, each
     * claiming or releasing its cohort): each collects its changes and applies the counts once, after its last
     * dead letter (DeadLetterCounts' one lock order), so the second waits for the first and both commit, counts
     * exact. The control: the same interleaving with the counts applied per dead letter (as before) is a
     * deadlock the database breaks by failing one of them.
     */
    @Test
    void twoWritersMovingSeveralDeadLettersInOppositeOrderDoNotDeadlock() throws Exception {
        assertThat(moveInOppositeOrder(true)).as("failures with the counts applied once per transaction").isEmpty();
        assertExact("two writers, counts applied once each");
        assertThat(moveInOppositeOrder(false)).as("the control: counts applied per dead letter").isNotEmpty();
        assertExact("two writers, counts applied per dead letter, one failed");
    }

    private static final java.util.concurrent.atomic.AtomicInteger ORDER_RUN = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Session 1 discards x1 (group X) then y1 (group Y), session 2 y2 then x2, interleaved; then both apply the
     * counts they collected ({@code once}) at the same time, or applied them per dead letter. What failed.
     */
    private static List<Throwable> moveInOppositeOrder(boolean once) throws Exception {
        int run = ORDER_RUN.incrementAndGet();
        Instant at = T0.plus(Duration.ofDays(500 + run));
        Map<String, Long> ids = new TreeMap<>();
        for (String name : new String[] {"x1", "x2", "y1", "y2"}) {
            String id = "order-" + run + "-" + name;
            String reason = name.startsWith("x") ? "retries_exhausted" : "handler_error";
            db.run(em -> {
                DeadLetterEnvelope envelope = new DeadLetterEnvelope(reason, "transient", id, null, "mail.send",
                        "SendConsumer", "9.9.9", List.of(), at, at, "order", "cause " + reason, null, null, null, null,
                        null, null, DeadLetterEnvelope.ROUTED_BY_POLICY, "ID:" + id, "sha");
                recorder(em).store(new Incoming("mail.send", "ID:" + id, false, 1, "{}".getBytes(StandardCharsets.UTF_8),
                        true, null, at, null, null, null), envelope, null);
            });
            ids.put(name, db.inTransaction(em -> em.createQuery("select d.id from DeadLetter d where d.messageId = :m",
                    Long.class).setParameter("m", id).getSingleResult()));
        }
        EntityManager[] sessions = {db.session(), db.session()};
        java.util.concurrent.ExecutorService[] threads = {java.util.concurrent.Executors.newSingleThreadExecutor(),
            java.util.concurrent.Executors.newSingleThreadExecutor()};
        List<List<DeadLetterCounts.Change>> collected = List.of(new ArrayList<>(), new ArrayList<>());
        List<Throwable> failed = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.function.BiFunction<Integer, String, java.util.concurrent.Future<?>> discard = (i, name) ->
                threads[i].submit(() -> {
                    EntityManager em = sessions[i];
                    DeadLetter d = em.find(DeadLetter.class, ids.get(name), jakarta.persistence.LockModeType.PESSIMISTIC_WRITE);
                    if (once) {
                        actions(em, at).transition(d, DeadLetter.Status.discarded, null, "ops", "order", collected.get(i));
                    } else {
                        actions(em, at).transition(d, DeadLetter.Status.discarded, null, "ops", "order");
                    }
                    em.flush();
                    return null;
                });
        try {
            sessions[0].getTransaction().begin();
            sessions[1].getTransaction().begin();
            discard.apply(0, "x1").get(30, TimeUnit.SECONDS);
            discard.apply(1, "y2").get(30, TimeUnit.SECONDS);
            // the second of each: per dead letter, each now wants the group rows the other holds
            List<java.util.concurrent.Future<?>> second = List.of(discard.apply(0, "y1"), discard.apply(1, "x2"));
            List<java.util.concurrent.Future<?>> ends = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int s = i;
                java.util.concurrent.Future<?> before = second.get(i);
                ends.add(threads[i].submit(() -> {
                    try {
                        before.get();
                        counts(sessions[s]).apply(collected.get(s));
                        sessions[s].getTransaction().commit();
                    } catch (Exception e) {
                        failed.add(e);
                        if (sessions[s].getTransaction().isActive()) {
                            sessions[s].getTransaction().rollback();
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> end : ends) {
                end.get(60, TimeUnit.SECONDS);
            }
        } finally {
            for (int i = 0; i < 2; i++) {
                threads[i].shutdownNow();
                if (sessions[i].getTransaction().isActive()) {
                    sessions[i].getTransaction().rollback();
                }
                sessions[i].close();
            }
        }
        return failed;
    }
}
