package dev.mailroom.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testsupport.Filters;

import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter read side against a real schema (the Flyway migrations on H2 in PostgreSQL mode) with
 * the server's JPA provider: what SQL the list issues (a projection, never the payload), the groups and
 * arrivals the database computes compared with the same answer computed in Java over every row, each
 * list filter (offset and keyset pages), the V7 backfill of the fingerprint and V8's of the counts.
 * Small scale; the million-row timings are
 * {@code bench/}'s ({@code dev.mailroom.bench.DeadLetterQueryBench}).
 */
class DeadLetterQueriesTest {

    private static final Instant NOW = Instant.parse("2026-11-30T10:07:29Z");
    private static final String URL = "jdbc:h2:mem:dlq-" + UUID.randomUUID()
            + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1";
    private static final List<String> STATEMENTS = new CopyOnWriteArrayList<>();
    private static final List<Row> ROWS = new ArrayList<>();

    private static SessionFactory factory;
    private static Connection keepAlive;
    private EntityManager em;
    private DeadLetterQueries queries;
    private DeadLetterGroups groupReads;
    private DeadLetterArrivals arrivalCounts;

    /** One inserted row, as the test knows it. */
    record Row(long id, String queue, String reason, String failureClass, String errorType, String error,
               String campaignId, String tenant, String provider, String version, String status, String messageId,
               Instant failedAt) { }

    @BeforeAll
    static void schemaAndRows() throws SQLException {
        keepAlive = DriverManager.getConnection(URL, "sa", "");
        // The rows go in before V7, so V7's backfill computes their fingerprints.
        Flyway all = Flyway.configure().dataSource(URL, "sa", "").locations("classpath:db/migration").load();
        MigrationVersion beforeV7 = java.util.Arrays.stream(all.info().all()).map(m -> m.getVersion())
                .filter(v -> v.compareTo(MigrationVersion.fromVersion("7")) < 0)
                .max(Comparator.naturalOrder()).orElseThrow();
        Flyway.configure().dataSource(URL, "sa", "").locations("classpath:db/migration").target(beforeV7).load()
                .migrate();
        String[] queues = {"mail.send", "mail.send.bulk"};
        String[] reasons = {"retries_exhausted", "poison", "template_error"};
        String[] errors = {
            "550 5.1.1 <alice@example.com>: mailbox unavailable",
            "550 5.1.1 <bob@example.org>: mailbox unavailable",
            "timeout after 30000 ms talking to smtp.example.com:587 at 2026-11-30T09:12:44.123Z",
            "timeout after 15000 ms talking to smtp.example.com:25 at 2026-11-29 08:00:01",
            "template 'welcome-v2' missing variable \"first_name\" (job 3f1c2d4e-1111-2222-3333-444455556666)",
            "template 'reset' missing variable \"token\" (job 9a8b7c6d-aaaa-bbbb-cccc-ddddeeeeffff)",
            null};
        String[] statuses = {"open", "open", "discarded", "replayed", "expired"};
        try (PreparedStatement insert = keepAlive.prepareStatement("""
                insert into dead_letter (id, consumer, message_id, source_queue, reason, failure_class, status, error,
                  error_type, payload, payload_size, payload_sha256, payload_truncated, first_seen_at, failed_at,
                  campaign_id, tenant, provider, consumer_version, attempts, stacktrace)
                values (?, 'SendConsumer', ?, ?, ?, ?, ?, ?, ?, ?, 5, 'sha', false, ?, ?, ?, ?, ?, ?, '[]', 'trace')""")) {
            for (int i = 1; i <= 240; i++) {
                Instant failedAt = NOW.minus(Duration.ofMinutes(7L * i + i % 5));
                Row row = new Row(i, queues[i % 2], reasons[i % 3], i % 4 == 0 ? "permanent" : "transient",
                        i % 7 == 0 ? null : "jakarta.mail.MessagingException", errors[i % errors.length],
                        "campaign-" + i % 6, "tenant-" + i % 4, i % 2 == 0 ? "smtp" : "http", "1.0." + i % 3,
                        statuses[i % statuses.length], "msg-" + i, failedAt);
                insert.setLong(1, row.id());
                insert.setString(2, row.messageId());
                insert.setString(3, row.queue());
                insert.setString(4, row.reason());
                insert.setString(5, row.failureClass());
                insert.setString(6, row.status());
                insert.setString(7, row.error());
                insert.setString(8, row.errorType());
                insert.setBytes(9, "hello".getBytes());
                insert.setTimestamp(10, Timestamp.from(failedAt));
                insert.setTimestamp(11, Timestamp.from(failedAt));
                insert.setString(12, row.campaignId());
                insert.setString(13, row.tenant());
                insert.setString(14, row.provider());
                insert.setString(15, row.version());
                insert.executeUpdate();
                ROWS.add(row);
            }
        }
        all.migrate();
        factory = new Configuration()
                .addAnnotatedClass(DeadLetter.class)
                .setProperty("hibernate.connection.url", URL)
                .setProperty("hibernate.connection.username", "sa")
                .setProperty("hibernate.connection.password", "")
                .setProperty("hibernate.jdbc.time_zone", "UTC")
                .setProperty("hibernate.hbm2ddl.auto", "none")
                // as on WildFly, whose JPA subsystem asks Hibernate for strict JPA query compliance
                .setProperty("hibernate.jpa.compliance.query", "true")
                .setStatementInspector(sql -> {
                    STATEMENTS.add(sql);
                    return sql;
                })
                .buildSessionFactory();
    }

    @AfterAll
    static void close() throws SQLException {
        if (factory != null) {
            factory.close();
        }
        keepAlive.close();
    }

    @BeforeEach
    void queries() {
        em = factory.createEntityManager();
        groupReads = new DeadLetterGroups();
        groupReads.em = em;
        arrivalCounts = new DeadLetterArrivals();
        arrivalCounts.em = em;
        queries = new DeadLetterQueries();
        queries.em = em;
        queries.groups = groupReads;
        STATEMENTS.clear();
    }

    @Test
    void theListIsOneStatementThatNeverReadsThePayloadAttemptsOrStacktrace() {
        DeadLetterQueries.Page page = queries.find(filter(), 0, 100);

        assertThat(page.items()).hasSize(100);
        assertThat(STATEMENTS).hasSize(1);
        String sql = STATEMENTS.get(0).toLowerCase();
        String selected = sql.substring(sql.indexOf("select") + 6, sql.indexOf(" from "));
        assertThat(selected.split(",")).as("columns the list reads: %s", selected)
                .hasSize(18)
                .noneMatch(c -> c.trim().matches("\\w+\\.(payload|attempts|stacktrace)"));
        em.close();
    }

    @Test
    void eachListFilterSelectsWhatItSaysNewestFirstInPages() {
        Map<String, Function<Row, Object>> byField = new java.util.HashMap<>(Map.of(
                "queue", Row::queue, "reason", Row::reason, "failure_class", Row::failureClass,
                "error_type", Row::errorType, "campaign_id", Row::campaignId, "tenant", Row::tenant,
                "provider", Row::provider, "consumer_version", Row::version, "status", Row::status,
                "message_id", Row::messageId));
        byField.put("fingerprint", r -> ErrorFingerprint.of(r.error()));
        // every filtered field set (a null filter field matches everything): row 41 has no error, 40 has one
        byField.forEach((field, value) -> {
            Row sample = ROWS.get(field.equals("fingerprint") ? 39 : 40);
            assertThat(value.apply(sample)).isNotNull();
            DeadLetterFilter f = Filters.of(field, value.apply(sample));
            List<Long> expected = newestFirst(ROWS.stream().filter(r -> Objects.equals(value.apply(r),
                    value.apply(sample))).toList());
            assertThat(allPages(f)).as(field).containsExactlyElementsOf(expected);
            assertThat(allKeysetPages(f)).as(field + ", keyset").containsExactlyElementsOf(expected);
            assertThat(queries.matching(f, 1000)).extracting(DeadLetterQueries.Candidate::id)
                    .as(field + ": a plan's cohort by the same rule").containsExactlyInAnyOrderElementsOf(expected);
        });
        DeadLetterFilter ids = Filters.of("ids", List.of(3L, 40L, 999L));
        assertThat(allPages(ids)).containsExactly(3L, 40L);
        assertThat(queries.matching(ids, 1000)).extracting(DeadLetterQueries.Candidate::id).containsExactly(40L, 3L);
        Instant from = NOW.minus(Duration.ofHours(6));
        Instant to = NOW.minus(Duration.ofHours(2));
        DeadLetterFilter window = Filters.of("from", from, "to", to);
        assertThat(allPages(window)).containsExactlyElementsOf(newestFirst(ROWS.stream()
                .filter(r -> !r.failedAt().isBefore(from) && r.failedAt().isBefore(to)).toList()));
        assertThat(allKeysetPages(window)).containsExactlyElementsOf(allPages(window));
        assertThat(allKeysetPages(filter())).containsExactlyElementsOf(newestFirst(ROWS));
    }

    @Test
    void aKeysetCursorReadsBackWhatItWrote() {
        DeadLetterQueries.Cursor c = new DeadLetterQueries.Cursor(Instant.parse("2026-11-30T10:07:29.123456Z"), 42);
        assertThat(DeadLetterQueries.Cursor.parse(c.toString())).isEqualTo(c);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DeadLetterQueries.Cursor.parse("yesterday"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("next_cursor");
    }

    @Test
    void groupsAreTheDatabasesGroupByOfTheFingerprintSameAsGroupingEveryRowInJava() {
        for (String status : new String[] {"open", null}) {
            DeadLetterFilter f = Filters.of("status", status);
            List<DeadLetterGroups.Group> groups = groupReads.groups(f);

            Map<List<String>, List<Row>> expected = ROWS.stream()
                    .filter(r -> status == null || status.equals(r.status()))
                    .collect(Collectors.groupingBy(r -> java.util.Arrays.asList(r.queue(), r.reason(),
                            r.failureClass(), r.errorType(), ErrorFingerprint.of(r.error()))));
            assertThat(groups).hasSize(expected.size());
            assertThat(groups).allSatisfy(g -> {
                List<Row> members = expected.get(java.util.Arrays.asList(g.queue(), g.reason(), g.failureClass(),
                        g.errorType(), g.normalisedError()));
                assertThat(members).as("group %s", g).isNotNull();
                assertThat(g.count()).isEqualTo(members.size());
                assertThat(g.oldest()).isEqualTo(members.stream().map(Row::failedAt).min(Comparator.naturalOrder())
                        .orElseThrow());
                assertThat(g.newest()).isEqualTo(members.stream().map(Row::failedAt).max(Comparator.naturalOrder())
                        .orElseThrow());
                assertThat(g.fingerprint()).isEqualTo(g.normalisedError());
                assertThat(g.firstSeen()).isEqualTo(g.oldest());
                assertThat(g.lastSeen()).isEqualTo(g.newest());
                assertThat(g.consumerVersions()).isEqualTo(members.stream().map(Row::version).distinct().sorted()
                        .toList());
            });
            assertThat(groups).extracting(DeadLetterGroups.Group::count)
                    .isSortedAccordingTo(Comparator.reverseOrder());
        }
        // addresses, numbers, ids, timestamps and quoted text are gone (the SMTP codes stay), so different
        // mailboxes are one cause
        assertThat(groupReads.groups(filter())).extracting(DeadLetterGroups.Group::normalisedError)
                .contains("550 5.1.1 <<address>>: mailbox unavailable")
                .doesNotContain("550 5.1.1 <alice@example.com>: mailbox unavailable");
        assertThat(STATEMENTS).as("one statement per groups call").hasSize(3);
        assertThat(STATEMENTS).as("read from the counts kept on write (V8), not from dead_letter")
                .allMatch(sql -> sql.contains("dead_letter_group_count"));
        // a time window (or any other filter) groups the window's rows: the same answer for the same rows
        for (String status : new String[] {"open", null}) {
            assertThat(groupReads.groups(Filters.of("status", status, "from", Instant.EPOCH)))
                    .isEqualTo(groupReads.groups(Filters.of("status", status)));
        }
    }

    /**
     * The groups of a time window (V18's hourly group counts for its whole hours, its ragged ends grouped from
     * the rows) are those of grouping the window's rows in Java, whatever the window: on the hour or not, open on
     * either side, inside one hour or across two, narrowed by status and queue or not.
     */
    @Test
    void groupsOfATimeWindowAreThoseOfTheWindowsRowsWhateverTheWindow() {
        Instant hour = NOW.truncatedTo(java.time.temporal.ChronoUnit.HOURS);
        Instant[][] windows = {
            {NOW.minus(Duration.ofHours(24)), null},                             // the console's "last 24 h"
            {hour.minus(Duration.ofHours(10)), hour.minus(Duration.ofHours(3))}, // whole hours only
            {hour.minus(Duration.ofMinutes(610)), hour.minus(Duration.ofMinutes(170))}, // ragged both ends
            {hour.minus(Duration.ofMinutes(170)).plusNanos(1), hour.minusSeconds(1)},   // sub-second from
            {null, hour.minus(Duration.ofMinutes(1000))},                        // open start, ragged end
            {hour.minus(Duration.ofMinutes(50)), hour.minus(Duration.ofMinutes(10))},   // inside one hour
            {hour.minus(Duration.ofMinutes(70)), hour.plus(Duration.ofMinutes(5))},     // across two, no whole one
            {hour.minus(Duration.ofHours(1)), hour},                             // exactly one hour
            {Instant.EPOCH, null},                                               // everything
            // whole days (V19) with the whole hours and the ragged ends around them
            {Instant.parse("2026-11-28T20:13:07Z"), Instant.parse("2026-11-30T05:00:00Z")},
            {Instant.parse("2026-11-29T00:00:00Z"), Instant.parse("2026-11-30T00:00:00Z")}, // exactly one day
            {Instant.parse("2026-11-28T23:59:59Z"), Instant.parse("2026-11-30T09:31:10Z")},
            {null, Instant.parse("2026-11-30T07:42:00Z")},                       // open start, days then hours
        };
        for (Instant[] w : windows) {
            for (String status : new String[] {"open", null}) {
                for (String queue : new String[] {null, "mail.send"}) {
                    DeadLetterFilter f = Filters.of("queue", queue, "status", status, "from", w[0], "to", w[1]);
                    STATEMENTS.clear();
                    Map<List<String>, String> answered = groupReads.groups(f).stream().collect(Collectors.toMap(
                            g -> java.util.Arrays.asList(g.queue(), g.reason(), g.failureClass(), g.errorType(),
                                    g.fingerprint()),
                            g -> g.count() + "|" + g.oldest() + "|" + g.newest() + "|" + g.consumerVersions()));
                    Map<List<String>, String> expected = ROWS.stream()
                            .filter(r -> (status == null || status.equals(r.status()))
                                    && (queue == null || queue.equals(r.queue()))
                                    && (w[0] == null || !r.failedAt().isBefore(w[0]))
                                    && (w[1] == null || r.failedAt().isBefore(w[1])))
                            .collect(Collectors.groupingBy(r -> java.util.Arrays.asList(r.queue(), r.reason(),
                                    r.failureClass(), r.errorType(), ErrorFingerprint.of(r.error()))))
                            .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().size()
                                    + "|" + e.getValue().stream().map(Row::failedAt).min(Comparator.naturalOrder())
                                    .orElseThrow() + "|" + e.getValue().stream().map(Row::failedAt)
                                    .max(Comparator.naturalOrder()).orElseThrow() + "|" + e.getValue().stream()
                                    .map(Row::version).distinct().sorted().toList()));
                    String what = java.util.Arrays.toString(w) + " " + status + " " + queue;
                    assertThat(answered).as(what).isEqualTo(expected);
                    DeadLetterGroups.Whole days = DeadLetterGroups.Whole.of(w[0], w[1],
                            DeadLetterCounts.GroupTier.DAILY);
                    DeadLetterGroups.Whole hours = DeadLetterGroups.Whole.of(w[0], w[1],
                            DeadLetterCounts.GroupTier.HOURLY);
                    assertThat(STATEMENTS).as(what).anyMatch(sql -> sql.contains(days != null ? "dead_letter_group_day"
                            : hours != null ? "dead_letter_group_hour" : " dead_letter "));
                    assertThat(STATEMENTS).as(what + ": the days, the hours at either end, the two ragged ends scanned")
                            .hasSizeLessThanOrEqualTo(days == null ? 3 : 5);
                }
            }
        }
        assertThat(groupReads.groups(Filters.of("from", NOW.minus(Duration.ofHours(24)))))
                .as("the rows of the last day form groups").isNotEmpty();
    }

    /**
     * The whole buckets of a tier in a window: hour numbers (epoch seconds / 3600) or day numbers (/ 86400, UTC
     * days); null when it holds none.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} [{1}, {2}) -> {3}")
    @org.junit.jupiter.params.provider.CsvSource(nullValues = "-", value = {
        // tier,  from,                           to,                               whole buckets [first, end)
        "HOURLY,  1970-01-01T01:00:00Z,             1970-01-01T03:00:00Z,             1:3",
        "HOURLY,  1970-01-01T00:59:59Z,             1970-01-01T03:00:01Z,             1:3",
        "HOURLY,  1970-01-01T01:00:00.000000001Z,   1970-01-01T03:00:00Z,             2:3",
        "HOURLY,  1970-01-01T01:00:01Z,             1970-01-01T02:59:59Z,             -",
        "HOURLY,  1970-01-01T01:10:00Z,             1970-01-01T01:50:00Z,             -",
        "HOURLY,  1970-01-01T01:00:00Z,             1970-01-01T01:00:00Z,             -",
        "HOURLY,  -,                                1970-01-01T02:30:00Z,             :2",
        "HOURLY,  1970-01-01T01:30:00Z,             -,                                2:",
        "HOURLY,  -,                                -,                                :",
        "HOURLY,  1969-12-31T22:30:00Z,             1970-01-01T00:00:00Z,             -1:0",
        "DAILY,   1970-01-02T00:00:00Z,             1970-01-04T00:00:00Z,             1:3",
        "DAILY,   1970-01-01T23:59:59Z,             1970-01-04T00:00:01Z,             1:3",
        "DAILY,   1970-01-02T00:00:00.000000001Z,   1970-01-04T00:00:00Z,             2:3",
        "DAILY,   1970-01-02T00:00:01Z,             1970-01-03T23:59:59Z,             -",
        "DAILY,   -,                                1970-01-03T12:00:00Z,             :2",
        "DAILY,   1970-01-02T12:00:00Z,             -,                                2:",
    })
    void theWholeBucketsOfAWindow(DeadLetterCounts.GroupTier tier, Instant from, Instant to, String buckets) {
        DeadLetterGroups.Whole whole = DeadLetterGroups.Whole.of(from, to, tier);
        if (buckets == null) {
            assertThat(whole).isNull();
            return;
        }
        String[] h = buckets.split(":", -1);
        assertThat(whole).isEqualTo(new DeadLetterGroups.Whole(tier,
                h[0].isEmpty() ? null : Long.valueOf(h[0]), h[1].isEmpty() ? null : Long.valueOf(h[1])));
        Duration size = Duration.ofSeconds(tier.seconds);
        if (whole.start() != null) {
            assertThat(whole.start()).isAfterOrEqualTo(from).isBefore(from.plus(size));
        }
        if (whole.stop() != null) {
            assertThat(whole.stop()).isBeforeOrEqualTo(to).isAfter(to.minus(size));
        }
    }

    /**
     * The list's total (console: "N dead letters match"): exact from the counts kept on write whatever its size;
     * otherwise counted up to a bound, exact when the filter's rows fit in it, else the bound itself marked not
     * exact (a lower bound: "30+"). Campaign and tenant substrings are resolved to the exact values they match (the
     * page and the count then read no substring match) unless the column has too many distinct values; the page
     * is the same either way. Bound and cap lowered from 10,000 and 5,000 to reach both sides with 240 rows.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}: bound {6}, cap {7} -> {8} exact {9}")
    @org.junit.jupiter.params.provider.CsvSource(nullValues = "-", value = {
        // what,                          campaign, tenant, provider, status, message, bound, cap, total, exact, resolved
        "no filter: the counts,           -,        -,      -,        -,      -,       30,    50,  240,   true,  -",
        "status=open: the counts,         -,        -,      -,        open,   -,       30,    50,  96,    true,  -",
        "provider: 120 rows over 30,      -,        -,      smtp,     -,      -,       30,    50,  30,    false, -",
        "provider: 120 rows over 119,     -,        -,      smtp,     -,      -,       119,   50,  119,   false, -",
        "provider: 120 rows in 120,       -,        -,      smtp,     -,      -,       120,   50,  120,   true,  -",
        "message id: 1 row,               -,        -,      -,        -,      msg-41,  30,    50,  1,     true,  -",
        "campaign substring: 40 over 30,  PAIGN-3,  -,      -,        -,      -,       30,    50,  30,    false, true",
        "campaign substring: 40 in 40,    PAIGN-3,  -,      -,        -,      -,       40,    50,  40,    true,  true",
        "campaign and tenant: 20 rows,    PAIGN-3,  ANT-1,  -,        -,      -,       30,    50,  20,    true,  true",
        "campaign and status=open,        PAIGN-3,  -,      -,        open,   -,       30,    50,  16,    true,  true",
        "tenant matching all 4 values,    -,        T,      -,        -,      -,       30,    50,  30,    false, true",
        "campaign matching none,          nope,     -,      -,        -,      -,       30,    50,  0,     true,  -",
        "6 campaigns over a cap of 3,     campaign, -,      -,        -,      -,       30,    3,   30,    false, false",
        "substring kept: 40 in 50,        PAIGN-3,  -,      -,        -,      -,       50,    3,   40,    true,  false",
    })
    void theListsTotalIsExactUpToTheBoundAndALowerBoundPastIt(String what, String campaign, String tenant,
                                                              String provider, String status, String messageId,
                                                              int bound, int cap, long total, boolean exact,
                                                              Boolean resolved) {
        queries.totalBound = bound;
        queries.distinctValuesCap = cap;
        DeadLetterFilter f = Filters.of("campaign_id", campaign, "tenant", tenant, "provider", provider,
                "status", status, "message_id", messageId);
        List<Row> matching = ROWS.stream()
                .filter(r -> campaign == null || r.campaignId().toLowerCase().contains(campaign.toLowerCase()))
                .filter(r -> tenant == null || r.tenant().toLowerCase().contains(tenant.toLowerCase()))
                .filter(r -> provider == null || provider.equals(r.provider()))
                .filter(r -> status == null || status.equals(r.status()))
                .filter(r -> messageId == null || messageId.equals(r.messageId()))
                .toList();

        DeadLetterQueries.ListPage page = queries.listPage(f, null, 0, 7);

        assertThat(page.total()).isEqualTo(total);
        assertThat(page.totalExact()).isEqualTo(exact);
        assertThat(exact ? page.total() == matching.size() : matching.size() > page.total())
                .as("%d rows match: the total is that number when exact, a lower bound of it otherwise", matching.size())
                .isTrue();
        assertThat(page.items()).extracting(r -> r.summary().id())
                .containsExactlyElementsOf(newestFirst(matching).stream().limit(7).toList());
        if (resolved != null) {
            List<String> listStatements = STATEMENTS.stream().map(String::toLowerCase)
                    .filter(sql -> !sql.contains("recursive") && sql.contains(" where ")
                            && sql.substring(sql.indexOf(" where ")).matches("(?s).*(campaign_id|tenant).*"))
                    .toList();
            assertThat(listStatements).isNotEmpty();
            assertThat(listStatements).as("the page and the count, substrings %s",
                            resolved ? "resolved to exact values" : "kept")
                    .allMatch(sql -> sql.contains(" like ") != resolved);
        }
        em.close();
    }

    /** Which arrival counts a bucket is summed from: the coarsest tier it holds whole numbers of. */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} -> {1} s")
    @org.junit.jupiter.params.provider.CsvSource({
        "PT1M, 60", "PT5M, 60", "PT10M, 60", "PT15M, 900", "PT30M, 900", "PT45M, 900", "PT1H, 3600", "PT2H, 3600",
        "PT6H, 3600", "PT12H, 3600", "P1D, 86400", "PT48H, 86400", "PT90S, 0", "PT1M30S, 0", "PT75M, 900", "PT20M, 60",
    })
    void aBucketIsSummedFromTheCoarsestTierItHoldsWholeNumbersOf(Duration bucket, long tier) {
        assertThat(DeadLetterArrivals.countedTier(bucket.getSeconds())).isEqualTo(tier);
    }

    @Test
    void campaignAndTenantMatchAsCaseInsensitiveSubstringsAndAFingerprintExactly() {
        DeadLetterFilter contains = Filters.of("campaign_id", "PAIGN-3", "tenant", "Ant-1");
        assertThat(allPages(contains)).containsExactlyElementsOf(newestFirst(ROWS.stream()
                .filter(r -> r.campaignId().equals("campaign-3") && r.tenant().equals("tenant-1")).toList()))
                .isNotEmpty();
        assertThat(queries.matching(contains, 1000)).extracting(DeadLetterQueries.Candidate::id)
                .as("a plan's cohort by the same rule").containsExactlyInAnyOrderElementsOf(allPages(contains));
        DeadLetterFilter wildcard = Filters.of("campaign_id", "campaign_");
        assertThat(allPages(wildcard)).as("_ is a character, not LIKE's wildcard").isEmpty();

        String fingerprint = ErrorFingerprint.of("550 5.1.1 <alice@example.com>: mailbox unavailable");
        DeadLetterFilter group = Filters.of("fingerprint", fingerprint);
        assertThat(allPages(group)).containsExactlyElementsOf(newestFirst(ROWS.stream()
                .filter(r -> fingerprint.equals(ErrorFingerprint.of(r.error()))).toList())).isNotEmpty();
    }

    @Test
    void groupsKnowTheConsumerVersionsTheyFailedUnderAndWhetherAFixMayHaveShipped() {
        List<DeadLetterGroups.GroupView> views = groupReads.groups(filter(), "1.0.2");
        assertThat(views).isNotEmpty().allSatisfy(v -> {
            DeadLetterGroups.Group g = v.group();
            List<String> expected = ROWS.stream().filter(r -> Objects.equals(r.queue(), g.queue())
                            && Objects.equals(r.reason(), g.reason()) && Objects.equals(r.errorType(), g.errorType())
                            && Objects.equals(ErrorFingerprint.of(r.error()), g.fingerprint()))
                    .map(Row::version).distinct().sorted().toList();
            assertThat(g.consumerVersions()).as("group %s", g).isEqualTo(expected);
            assertThat(v.fixMayHaveShipped()).isEqualTo(!expected.contains("1.0.2"));
            assertThat(g.firstSeen()).isEqualTo(g.oldest());
        });
        assertThat(views).anyMatch(DeadLetterGroups.GroupView::fixMayHaveShipped);
    }

    @Test
    void aFixMayHaveShippedOnlyWhenNoneFailedUnderTheRunningVersion() {
        assertThat(DeadLetterGroups.fixMayHaveShipped(List.of("1.0+a"), "1.1+b")).isTrue();
        assertThat(DeadLetterGroups.fixMayHaveShipped(List.of("1.0+a", "1.1+b"), "1.1+b")).isFalse();
        assertThat(DeadLetterGroups.fixMayHaveShipped(List.of(), "1.1+b")).isFalse();
        assertThat(DeadLetterGroups.fixMayHaveShipped(List.of("1.0+a"), null)).isFalse();
    }

    @Test
    void aPayloadsHeadlineIsItsFirstRecipientAndSubjectWhateverElseItHolds() {
        assertThat(JobHeadline.of("""
                {"schema_version": 1, "headers": {"to": "x"}, "to": ["Alice <alice@example.com>", {"a": 1}, "c@x"],
                 "cc": ["bob@x"], "subject": "Hello"}""".getBytes())).containsExactly("Alice <alice@example.com> (+2)",
                "Hello");
        assertThat(JobHeadline.of("{\"subject\": \"only\", \"to\": [\"cut".getBytes())).containsExactly(null, "only");
        assertThat(JobHeadline.of("not json".getBytes())).containsExactly(null, null);
        assertThat(JobHeadline.of(null)).containsExactly(null, null);
    }

    @Test
    void arrivalsAreCountedPerBucketByTheDatabaseSameAsBucketingEveryRowInJava() {
        for (String queue : new String[] {null, "mail.send.bulk"}) {
            for (Duration bucket : List.of(Duration.ofMinutes(1), Duration.ofMinutes(15), Duration.ofMinutes(45),
                    Duration.ofHours(1), Duration.ofHours(2), Duration.ofDays(1), Duration.ofSeconds(90))) {
                STATEMENTS.clear();
                List<DeadLetterArrivals.Bucket> arrivals = arrivalCounts.arrivals(queue, bucket, 24, NOW);

                Instant from = DeadLetterArrivals.arrivalsFrom(bucket, 24, NOW);
                Map<Instant, Long> expected = ROWS.stream()
                        .filter(r -> queue == null || queue.equals(r.queue()))
                        .collect(Collectors.groupingBy(r -> Instant.ofEpochMilli(Math.floorDiv(
                                r.failedAt().toEpochMilli(), bucket.toMillis()) * bucket.toMillis()),
                                Collectors.counting()));
                Map<Instant, Map<String, Long>> byReason = ROWS.stream()
                        .filter(r -> queue == null || queue.equals(r.queue()))
                        .collect(Collectors.groupingBy(r -> Instant.ofEpochMilli(Math.floorDiv(
                                r.failedAt().toEpochMilli(), bucket.toMillis()) * bucket.toMillis()),
                                Collectors.groupingBy(Row::reason, Collectors.counting())));
                assertThat(arrivals).as("%s %s", queue, bucket)
                        .isEqualTo(DeadLetterArrivals.arrivalBucketsByReason(byReason, from, NOW, bucket));
                assertThat(arrivals).extracting(DeadLetterArrivals.Bucket::count).isEqualTo(DeadLetterArrivals
                        .arrivalBuckets(expected, from, NOW, bucket).stream().map(DeadLetterArrivals.Bucket::count)
                        .toList());
                assertThat(arrivals.stream().mapToLong(DeadLetterArrivals.Bucket::count).sum()).isPositive();
                assertThat(STATEMENTS).hasSize(1);
                // whole minutes are read from the arrival counts kept on write (V8); 90 s from the rows
                assertThat(STATEMENTS.get(0).contains("dead_letter_arrival"))
                        .isEqualTo(bucket.getSeconds() % 60 == 0);
            }
        }
    }

    @Test
    void theMigrationBackfilledEveryFingerprintWithTheJavaFunction() throws SQLException {
        try (var rs = keepAlive.createStatement().executeQuery("select id, error, error_fingerprint from dead_letter")) {
            int n = 0;
            while (rs.next()) {
                assertThat(rs.getString(3)).as("row %d", rs.getLong(1)).isEqualTo(ErrorFingerprint.of(rs.getString(2)));
                n++;
            }
            assertThat(n).isEqualTo(ROWS.size());
        }
    }

    @Test
    void aRecordedDeadLetterCarriesTheFingerprintOfItsError() {
        DeadLetter d = new DeadLetter("SendConsumer", "m-1", "mail.send");
        d.record(new DeadLetterEnvelope("retries_exhausted", "transient", "m-1", null, "mail.send", "SendConsumer",
                "1.0", List.of(), NOW, NOW, "java.io.IOException", "connect to 10.0.0.7:587 refused after 3 tries",
                null, null, null, null, "smtp", null, DeadLetterEnvelope.ROUTED_BY_POLICY, null, "sha"),
                null, "[]", new byte[0], 0, NOW);
        assertThat(d.getErrorFingerprint()).isEqualTo("connect to <n>.<n>.<n>.<n>:<n> refused after <n> tries");
    }

    private List<Long> allPages(DeadLetterFilter f) {
        List<Long> ids = new ArrayList<>();
        Integer offset = 0;
        while (offset != null) {
            DeadLetterQueries.Page page = queries.find(f, offset, 7);
            page.items().forEach(s -> ids.add(s.id()));
            offset = page.next();
        }
        return ids;
    }

    private List<Long> allKeysetPages(DeadLetterFilter f) {
        List<Long> ids = new ArrayList<>();
        DeadLetterQueries.Cursor after = null;
        while (true) {
            DeadLetterQueries.Page page = queries.find(f, after, 0, 7);
            page.items().forEach(s -> ids.add(s.id()));
            if (page.nextCursor() == null) {
                return ids;
            }
            after = DeadLetterQueries.Cursor.parse(page.nextCursor());
        }
    }

    private static List<Long> newestFirst(List<Row> rows) {
        return rows.stream().sorted(Comparator.comparing(Row::failedAt).thenComparing(Row::id).reversed())
                .map(Row::id).toList();
    }

    private static DeadLetterFilter filter() {
        return Filters.of();
    }

}
