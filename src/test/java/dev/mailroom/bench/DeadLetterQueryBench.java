package dev.mailroom.bench;

import static dev.mailroom.it.support.ProcessCpu.loadAverage;

import dev.mailroom.deadletter.ErrorFingerprint;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.ProcessCpu;
import dev.mailroom.it.support.WildFlyServer;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.flywaydb.core.Flyway;

/**
 * The dead-letter read side at a million rows (bench/README.md, "Dead-letter queries"): a real PostgreSQL
 * (the IT harness's {@link PostgresServer}), the schema from the project's Flyway migrations, N dead letters
 * loaded with one {@code insert ... select from generate_series} (payload, attempts and stack trace
 * included, so a query that read them would pay for it), then Mailroom on WildFly pointed at that database,
 * and every list filter, the groups and the arrivals timed through the REST API as the console calls them:
 * warm-up, then several runs, p50 and max per query, target 100 ms.
 *
 * <p>Exit code: 0 every query answered correctly (and the figures are printed, met or not), 2 the benchmark
 * broke (server did not start, a query failed, a stored fingerprint differed from {@link ErrorFingerprint}).
 */
public final class DeadLetterQueryBench {

    private static final Duration TARGET = Duration.ofMillis(100);
    private static final int WARMUP = Integer.getInteger("bench.warmup", 10);
    private static final int RUNS = Integer.getInteger("bench.runs", 10);
    private static final int PASSES = Integer.getInteger("bench.passes", 3);

    /** Error templates: {n} a number, {a} an address, {t} a timestamp, {u} a UUID (what varies per occurrence). */
    private static final String[][] TEMPLATES = {
        {"jakarta.mail.SendFailedException", "550 5.1.1 <{a}>: Recipient address rejected: User unknown"},
        {"jakarta.mail.SendFailedException", "552 5.2.2 <{a}>: Mailbox full, quota {n} exceeded"},
        {"jakarta.mail.MessagingException", "Could not connect to SMTP host: smtp.example.com, port: {n}"},
        {"java.net.SocketTimeoutException", "Read timed out after {n} ms at {t}"},
        {"dev.mailroom.provider.ProviderException", "provider answered {n}: rate limit, retry after {n} s"},
        {"dev.mailroom.provider.ProviderException", "provider answered {n}: invalid_recipient '{a}'"},
        {"dev.mailroom.job.TemplateException", "template 'welcome-v{n}' is missing variable \"first_name\""},
        {"dev.mailroom.job.TemplateException", "template 'reset-{n}' not found"},
        {"dev.mailroom.job.JobRejected", "schema_violation: $.to[{n}] is not an email address"},
        {"dev.mailroom.job.JobRejected", "not_json: Unexpected character at line {n} column {n}"},
        {"java.lang.IllegalStateException", "job {u} expired at {t}"},
        {"java.lang.NullPointerException", "Cannot invoke \"String.length()\" because \"value\" is null"},
    };

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path home = Path.of(System.getProperty("bench.server-home"));
        Path work = Path.of(System.getProperty("bench.work-dir"));
        int offset = Integer.getInteger("bench.port-offset", 300);
        BenchDatabase.freshWorkDir(work);
        int rc;
        try (PostgresServer pg = PostgresServer.start(work)) {
            rc = run(pg, home, work, offset, rows);
        }
        System.exit(rc);
    }

    private static int run(PostgresServer pg, Path home, Path work, int offset, int rows) throws Exception {
        // the rows go in at V7 (before the counts exist), so V8 back-fills the counts from them as it would
        // on a live database, and its time is measured
        Flyway.configure().dataSource(pg.jdbcUrl(), pg.user(), pg.password()).locations("classpath:db/migration")
                .target(org.flywaydb.core.api.MigrationVersion.fromVersion("7")).load().migrate();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        try (Connection c = pg.connect()) {
            long t0 = System.nanoTime();
            load(c, rows, now);
            long loaded = System.nanoTime();
            try (Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                s.execute("vacuum analyze dead_letter");
            }
            note(String.format(Locale.ROOT, "loaded %,d dead letters in %.1f s, vacuum analyze %.1f s; table %s, "
                            + "indexes %s", rows, (loaded - t0) / 1e9, (System.nanoTime() - loaded) / 1e9,
                    scalar(c, "select pg_size_pretty(pg_table_size('dead_letter'))"),
                    scalar(c, "select pg_size_pretty(pg_indexes_size('dead_letter'))")));
            checkFingerprints(c);
            long m0 = System.nanoTime();
            // up to the last migration before V18 (whichever that is on this branch), then V18 and each later one
            // alone, each timed (V18 and V19 back-fill the window counts from the million rows)
            org.flywaydb.core.api.MigrationVersion v18 = org.flywaydb.core.api.MigrationVersion.fromVersion("18");
            List<org.flywaydb.core.api.MigrationVersion> versions = Arrays.stream(Flyway.configure()
                            .dataSource(pg.jdbcUrl(), pg.user(), pg.password()).locations("classpath:db/migration").load()
                            .info().all()).map(m -> m.getVersion()).sorted().toList();
            migrateTo(pg, versions.stream().filter(v -> v.compareTo(v18) < 0).max(java.util.Comparator.naturalOrder())
                    .orElseThrow());
            StringBuilder timed = new StringBuilder(String.format(Locale.ROOT,
                    "migrations V8 up to V18 (V8 back-fills the counts): %.1f s", (System.nanoTime() - m0) / 1e9));
            for (org.flywaydb.core.api.MigrationVersion v : versions) {
                if (v.compareTo(v18) >= 0) {
                    long t = System.nanoTime();
                    migrateTo(pg, v);
                    timed.append(String.format(Locale.ROOT, "; V%s: %.1f s", v, (System.nanoTime() - t) / 1e9));
                }
            }
            long m2 = System.nanoTime();
            try (Statement s = c.createStatement()) {
                s.execute("vacuum analyze");
            }
            note(String.format(Locale.ROOT, "%s; vacuum analyze %.1f s; %s group-count rows, %s hourly group"
                            + " rows, %s daily group rows, %s arrival rows (%s minute, %s quarter-hour, %s hour, %s day)"
                            + " (load average %s)", timed, (System.nanoTime() - m2) / 1e9,
                    scalar(c, "select count(*) from dead_letter_group_count"),
                    scalar(c, "select count(*) from dead_letter_group_hour"),
                    hasDayTier(c) ? scalar(c, "select count(*) from dead_letter_group_day") : "no",
                    scalar(c, "select count(*) from dead_letter_arrival"),
                    scalar(c, "select count(*) from dead_letter_arrival where bucket_seconds = 60"),
                    scalar(c, "select count(*) from dead_letter_arrival where bucket_seconds = 900"),
                    scalar(c, "select count(*) from dead_letter_arrival where bucket_seconds = 3600"),
                    scalar(c, "select count(*) from dead_letter_arrival where bucket_seconds = 86400"), loadAverage()));
            checkCounts(c);
            deepCursor = scalar(c, "select floor(extract(epoch from failed_at))::bigint || '.' || "
                    + "(extract(microseconds from failed_at)::bigint % 1000000) * 1000 || '_' || id from dead_letter "
                    + "order by failed_at desc, id desc offset 10000 limit 1");
            fingerprint = scalar(c, "select error_fingerprint from dead_letter_group_count where status = 'open' "
                    + "order by dead_letters desc limit 1");
            sqlTimings(c, now);
        }
        // a boot on the shared machine took 216 s under load 45 and more than 300 s beside an IT's boot
        try (WildFlyServer server = BenchDatabase.server(pg, home, work, offset,
                Duration.ofSeconds(Long.getLong("bench.boot-timeout-seconds", 900)))) {
            server.start();
            ApiClient api = new ApiClient(server.baseUrl());
            List<String> table;
            try (Connection c = pg.connect()) {
                table = measure(api, rows, now, server.javaPid().orElseThrow(), c);
            }
            Path results = work.resolve("results.md");
            Files.write(results, table);
            table.forEach(System.out::println);
            log("written to " + results);
            return 0;
        } catch (IllegalStateException e) {
            log("FAILED: " + e.getMessage());
            return 2;
        }
    }

    /**
     * N rows over the last 30 days (so about N/30 in the last 24 hours), 70 % on mail.send and 30 % on
     * mail.send.bulk; 10 % open, the rest resolved (discarded, replayed) or expired; 500 campaigns, 50
     * tenants, 3 providers, 5 consumer versions, 12 causes with varying details. Each row carries a
     * 600-byte payload, an attempts JSON and a stack trace, as a recorded dead letter does.
     */
    private static void migrateTo(PostgresServer pg, org.flywaydb.core.api.MigrationVersion target) {
        Flyway.configure().dataSource(pg.jdbcUrl(), pg.user(), pg.password()).locations("classpath:db/migration")
                .target(target).load().migrate();
    }

    /** Whether the daily tiers (V19) exist on this branch's schema. */
    private static boolean hasDayTier(Connection c) throws SQLException {
        return "t".equals(scalar(c, "select to_regclass('dead_letter_group_day') is not null"));
    }

    static void load(Connection c, int rows, Instant now) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("create temporary table bench_cause (k int primary key, error_type varchar(300), "
                    + "template varchar(4000), fingerprint varchar(1000))");
        }
        try (PreparedStatement p = c.prepareStatement("insert into bench_cause values (?, ?, ?, ?)")) {
            for (int k = 0; k < TEMPLATES.length; k++) {
                p.setInt(1, k);
                p.setString(2, TEMPLATES[k][0]);
                p.setString(3, TEMPLATES[k][1]);
                p.setString(4, ErrorFingerprint.of(fill(TEMPLATES[k][1], "7", "a@b.example", "2026-11-30T10:00:00Z",
                        "3f1c2d4e-1111-2222-3333-444455556666")));
                p.executeUpdate();
            }
        }
        String sql = """
                insert into dead_letter (consumer, message_id, source_queue, reason, failure_class, status, error,
                  error_fingerprint, error_type, payload, payload_size, payload_sha256, payload_truncated,
                  jms_message_id, trace_id, consumer_version, first_seen_at, failed_at, idempotency_key, tenant,
                  campaign_id, provider, attempt_count, attempts, stacktrace, routed_by, retention_until,
                  status_changed_at)
                select 'SendConsumer', 'msg-' || g, q.queue,
                  (array['retries_exhausted','retries_exhausted','retries_exhausted','poison','template_error',
                         'handler_error','expired'])[1 + h % 7],
                  (array['transient','permanent_recipient','permanent_content','poison','internal'])[1 + h % 5],
                  case when h % 10 = 0 then 'open' when h % 10 < 5 then 'discarded'
                       when h % 10 < 9 then 'replayed' else 'expired' end,
                  replace(replace(replace(replace(c.template, '{n}', (h % 997)::text),
                      '{a}', 'user' || g || '@example.com'),
                      '{t}', to_char(at - interval '5 minutes', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
                      '{u}', md5(g::text)::uuid::text),
                  c.fingerprint, c.error_type,
                  decode(repeat(md5(g::text), 38), 'hex'), 608, md5(g::text) || md5(g::text), false,
                  'ID:' || md5(g::text), md5(h::text), '1.' || (h % 5) || '.0', at - interval '10 minutes', at,
                  'key-' || g, 'tenant-' || (h % 50), 'campaign-' || (h % 500),
                  (array['smtp','http','sandbox'])[1 + h % 3], 3,
                  '[{"number":1,"at":"' || at || '","provider":"smtp","failureClass":"transient","outcome":"failed"}]',
                  repeat('at dev.mailroom.send.SendService.send(SendService.java:' || (h % 300) || E')\\n', 25),
                  'policy', at + interval '60 days', at
                from (select g, (g::bigint * 2654435761) % 1000003 as h,
                             timestamptz '{now}' - (g::bigint * interval '2592 seconds') / {per_mille} as at
                      from generate_series(1, {rows}) g) x
                join bench_cause c on c.k = x.h % {causes}
                cross join lateral (select case when (x.h / 10) % 10 < 7 then 'mail.send' else 'mail.send.bulk' end
                                    as queue) q
                """.replace("{now}", now.toString()).replace("{per_mille}", Integer.toString(Math.max(1, rows / 1000)))
                .replace("{rows}", Integer.toString(rows)).replace("{causes}", Integer.toString(TEMPLATES.length));
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
        c.commit();
    }

    private static String fill(String template, String n, String address, String time, String uuid) {
        return template.replace("{n}", n).replace("{a}", address).replace("{t}", time).replace("{u}", uuid);
    }

    /** The fingerprint the bench wrote per cause must be what the code would have written for that error. */
    private static void checkFingerprints(Connection c) throws SQLException {
        int checked = 0;
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("select id, error, error_fingerprint from dead_letter "
                     + "where id % 997 = 0 limit 2000")) {
            while (r.next()) {
                if (!ErrorFingerprint.of(r.getString(2)).equals(r.getString(3))) {
                    throw new IllegalStateException("row " + r.getLong(1) + ": fingerprint '" + r.getString(3)
                            + "' but ErrorFingerprint gives '" + ErrorFingerprint.of(r.getString(2)) + "'");
                }
                checked++;
            }
        }
        note("checked the stored fingerprint of " + checked + " rows against ErrorFingerprint.of(error)");
    }

    /** A keyset cursor 10,000 rows deep, and the fingerprint of the largest open group (for the list filters). */
    private static String deepCursor;
    private static String fingerprint;

    /** The counts V8 back-filled must be what a GROUP BY over the rows says (the bench fails otherwise). */
    private static void checkCounts(Connection c) throws SQLException {
        String groups = scalar(c, """
                select count(*) from (
                  select status, source_queue, reason, failure_class, coalesce(error_type, '') et,
                    coalesce(error_fingerprint, '') fp, coalesce(consumer_version, '') cv, count(*) n,
                    min(failed_at) f, max(failed_at) l
                  from dead_letter group by 1, 2, 3, 4, 5, 6, 7
                  except
                  select status, source_queue, reason, failure_class, error_type, error_fingerprint, consumer_version,
                    dead_letters, first_failed_at, last_failed_at from dead_letter_group_count where dead_letters > 0) x""");
        boolean days = hasDayTier(c);
        StringBuilder arrivals = new StringBuilder();
        for (int tier : days ? new int[] {900, 3600, 86400} : new int[] {900, 3600}) {
            arrivals.append(scalar(c, """
                select count(*) from (
                  select %1$d, floor(extract(epoch from failed_at) / %1$d)::bigint, source_queue, reason, count(*)
                  from dead_letter group by 1, 2, 3, 4
                  except
                  select bucket_seconds, bucket, source_queue, reason, arrived from dead_letter_arrival
                  where bucket_seconds = %1$d) x""".formatted(tier)));
        }
        String hourGroups = tierGroupsDiffering(c, "dead_letter_group_hour", 3600);
        String dayGroups = days ? tierGroupsDiffering(c, "dead_letter_group_day", 86400) : "0";
        String expected = days ? "000" : "00";
        if (!"0".equals(groups) || !expected.equals(arrivals.toString()) || !"0".equals(hourGroups)
                || !"0".equals(dayGroups)) {
            throw new IllegalStateException("the back-filled counts differ from the rows: " + groups + " group rows, "
                    + arrivals + " quarter-hour/hour/day rows, " + hourGroups + " hourly group rows, " + dayGroups
                    + " daily group rows");
        }
        note("V8's group and hour counts, V18's hourly groups and quarter-hours" + (hasDayTier(c) ? " and V19's days" : "")
                + " equal a GROUP BY over the rows");
    }

    /** How many rows of a per-bucket group count table differ from a GROUP BY over the rows. */
    private static String tierGroupsDiffering(Connection c, String table, int seconds) throws SQLException {
        return scalar(c, """
                select count(*) from (
                  select floor(extract(epoch from failed_at) / %2$d)::bigint, status, source_queue, reason, failure_class,
                    coalesce(error_type, '') et, coalesce(error_fingerprint, '') fp, coalesce(consumer_version, '') cv,
                    count(*) n, min(failed_at) f, max(failed_at) l
                  from dead_letter group by 1, 2, 3, 4, 5, 6, 7, 8
                  except
                  select bucket, status, source_queue, reason, failure_class, error_type, error_fingerprint,
                    consumer_version, dead_letters, first_failed_at, last_failed_at from %1$s
                  where dead_letters > 0) x""".formatted(table, seconds));
    }

    /**
     * The SQL the server issues for the main questions, timed inside PostgreSQL ({@code explain analyze}'s
     * execution time: no JDBC, JSON or HTTP), median and max of 15 after 3; the plan's first access path.
     */
    private static void sqlTimings(Connection c, Instant now) throws SQLException {
        long hour = now.getEpochSecond() / 3600;
        long minute = now.getEpochSecond() / 60;
        String cols = "id, consumer, message_id, source_queue, reason, failure_class, status, routed_by, error_type, "
                + "error, campaign_id, tenant, provider, consumer_version, attempt_count, payload_size, first_seen_at, "
                + "failed_at";
        String page = " order by failed_at desc, id desc fetch first 101 rows only";
        Map<String, String> sql = new LinkedHashMap<>();
        sql.put("list, no filter", "select " + cols + " from dead_letter" + page);
        sql.put("list status=open", "select " + cols + " from dead_letter where status = 'open'" + page);
        // the list's total for a filter the counts do not answer, before (every row counted through the trigram
        // index) and now (campaign/tenant substrings resolved to exact values by a skip scan, then at most 10,001
        // ids read from the column's list index)
        sql.put("list total tenant contains tenant-7, every row counted (before)",
                "select count(*) from dead_letter where lower(tenant) like '%tenant-7%' escape '!'");
        sql.put("list total campaign contains campaign-42, every row counted (before)",
                "select count(*) from dead_letter where lower(campaign_id) like '%campaign-42%' escape '!'");
        sql.put("campaigns containing campaign-42 (skip scan of 500 distinct values)", """
                with recursive v (val, n) as (select min(campaign_id), 1 from dead_letter union all
                  select (select min(d.campaign_id) from dead_letter d where d.campaign_id > v.val), v.n + 1 from v
                  where v.val is not null and v.n < 5000)
                select val, n from v where val is not null and (n = 5000 or lower(val) like '%campaign-42%' escape '!')""");
        String campaigns = "('campaign-42', 'campaign-420', 'campaign-421', 'campaign-422', 'campaign-423', "
                + "'campaign-424', 'campaign-425', 'campaign-426', 'campaign-427', 'campaign-428', 'campaign-429')";
        sql.put("list total campaign in (its 11 values), bounded: 10,001 ids", "select id from dead_letter"
                + " where campaign_id in " + campaigns + " fetch first 10001 rows only");
        sql.put("list total tenant in ('tenant-7'), bounded: 10,001 ids", "select id from dead_letter"
                + " where tenant in ('tenant-7') fetch first 10001 rows only");
        sql.put("list total provider=http, bounded: 10,001 ids", "select id from dead_letter"
                + " where provider = 'http' fetch first 10001 rows only");
        sql.put("list page campaign in (its 11 values)", "select " + cols + " from dead_letter where campaign_id in "
                + campaigns + page);
        sql.put("list page tenant in ('tenant-7')", "select " + cols + " from dead_letter where tenant in ('tenant-7')"
                + page);
        sql.put("list fingerprint= (largest open group)", "select " + cols + " from dead_letter where error_fingerprint = '"
                + fingerprint.replace("'", "''") + "'" + page);
        String groups = "select source_queue, reason, failure_class, error_type, error_fingerprint, consumer_version, "
                + "dead_letters, first_failed_at, last_failed_at from dead_letter_group_count where dead_letters > 0";
        sql.put("groups status=open (counts)", groups + " and status = 'open'");
        sql.put("groups all (counts)", groups);
        String hourGroups = "select source_queue, reason, failure_class, error_type, error_fingerprint,"
                + " consumer_version, sum(dead_letters), min(first_failed_at), max(last_failed_at) from"
                + " dead_letter_group_hour where dead_letters > 0 and ";
        String byGroup = " group by 1, 2, 3, 4, 5, 6";
        sql.put("groups all, 24 whole hours (hourly counts)", hourGroups + "bucket >= " + (hour - 23) + byGroup);
        sql.put("groups all, 7 d of whole hours (hourly counts)", hourGroups + "bucket >= " + (hour - 14 * 24)
                + " and bucket < " + (hour - 7 * 24) + byGroup);
        if (hasDayTier(c)) {
            long day = now.getEpochSecond() / 86400;
            sql.put("groups all, 6 whole days (daily counts, V19)", hourGroups.replace("dead_letter_group_hour",
                    "dead_letter_group_day") + "bucket >= " + (day - 13) + " and bucket < " + (day - 7) + byGroup);
            sql.put("groups all, 29 whole days (daily counts, V19)", hourGroups.replace("dead_letter_group_hour",
                    "dead_letter_group_day") + "bucket >= " + (day - 29) + " and bucket < " + day + byGroup);
            sql.put("arrivals 30 d per day (daily counts, V19)", arrivalsSql(86400, day - 30, day + 1));
        }
        sql.put("groups all, last 24 h grouping the rows (before V18)", "select source_queue, reason, failure_class,"
                + " error_type, error_fingerprint, consumer_version, count(*), min(failed_at), max(failed_at) from"
                + " dead_letter where failed_at >= to_timestamp(" + (now.getEpochSecond() - 86400) + ") group by 1, 2,"
                + " 3, 4, 5, 6");
        sql.put("groups all, the ragged first hour (rows)", "select source_queue, reason, failure_class, error_type,"
                + " error_fingerprint, consumer_version, count(*), min(failed_at), max(failed_at) from dead_letter"
                + " where failed_at >= to_timestamp(" + (now.getEpochSecond() - 86400) + ") and failed_at < to_timestamp("
                + (hour - 23) * 3600 + ") group by 1, 2, 3, 4, 5, 6");
        sql.put("arrivals 24 h per minute (counts)", arrivalsSql(60, minute - 1440, minute + 1));
        sql.put("arrivals 24 h per 15 minutes (counts)", arrivalsSql(900, (now.getEpochSecond() - 86400) / 900,
                now.getEpochSecond() / 900 + 1));
        sql.put("arrivals 7 d per hour (counts)", arrivalsSql(3600, hour - 168, hour + 1));
        sql.put("arrivals 30 d per hour (counts)", arrivalsSql(3600, hour - 720, hour + 1));
        sqlTable.add("| SQL (inside PostgreSQL) | median | max | plan |");
        sqlTable.add("|---|---:|---:|---|");
        try (Statement s = c.createStatement()) {
            for (Map.Entry<String, String> e : sql.entrySet()) {
                double[] ms = new double[15];
                String plan = "";
                for (int i = -3; i < ms.length; i++) {
                    try (ResultSet r = s.executeQuery("explain (analyze, timing off) " + e.getValue())) {
                        double t = -1;
                        while (r.next()) {
                            String line = r.getString(1);
                            if (line.contains("Execution Time")) {
                                t = Double.parseDouble(line.replaceAll("[^0-9.]", ""));
                            } else if (plan.isEmpty() && (line.contains(" Scan ") || line.startsWith("Index")
                                    || line.contains("Seq Scan"))) {
                                plan = line.trim().replaceAll("\\s*\\(.*", "");
                            }
                        }
                        if (i >= 0) {
                            ms[i] = t;
                        }
                    }
                }
                Arrays.sort(ms);
                String row = String.format(Locale.ROOT, "| %s | %.2f ms | %.2f ms | %s |", e.getKey(), ms[ms.length / 2],
                        ms[ms.length - 1], plan);
                log(row);
                sqlTable.add(row);
            }
        }
        sqlTable.add("");
    }

    private static final List<String> sqlTable = new ArrayList<>();

    private static String arrivalsSql(int seconds, long from, long to) {
        return "select bucket, reason, sum(arrived) from dead_letter_arrival where bucket_seconds = " + seconds
                + " and bucket >= " + from + " and bucket < " + to + " group by bucket, reason";
    }


    private static String scalar(Connection c, String sql) throws SQLException {
        return BenchDatabase.scalar(c, sql);
    }

    private static String scalarOrUnknown(Connection c, String sql) {
        try {
            return scalar(c, sql);
        } catch (SQLException e) {
            return "?";
        }
    }

    /** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on Linux). */
    private static final double TICKS_PER_SECOND = Double.parseDouble(System.getProperty("bench.clock-ticks", "100"));

    /** User plus system CPU of a process so far, in clock ticks (/proc/<pid>/stat's utime and stime); 0 once gone. */
    private static long cpuTicks(long pid) {
        return ProcessCpu.cpuTicks(pid).orElse(0);
    }

    /**
     * CPU of the server's JVM and of the PostgreSQL backends serving its connection pool (every client
     * backend but the bench's own), in clock ticks: what neighbours' load on the shared machine does not inflate.
     */
    private record Cpu(long server, Map<Long, Long> backends) {

        static Cpu of(long serverPid, Connection db) {
            Map<Long, Long> backends = new LinkedHashMap<>();
            try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("select pid from pg_stat_activity"
                    + " where backend_type = 'client backend' and pid <> pg_backend_pid()")) {
                while (r.next()) {
                    backends.put(r.getLong(1), cpuTicks(r.getLong(1)));
                }
            } catch (SQLException e) {
                throw new IllegalStateException("reading the database's backends", e);
            }
            return new Cpu(cpuTicks(serverPid), backends);
        }

        /** Ticks from {@code before} to this (a backend new since then counts from 0). */
        long[] since(Cpu before) {
            long db = 0;
            for (Map.Entry<Long, Long> b : backends.entrySet()) {
                db += b.getValue() - before.backends.getOrDefault(b.getKey(), 0L);
            }
            return new long[] {server - before.server, db};
        }
    }

    private static double ms(long ticks, int calls) {
        return ticks * 1000.0 / TICKS_PER_SECOND / calls;
    }

    private static List<String> measure(ApiClient api, int rows, Instant now, long serverPid, Connection db) {
        String base = "/api/v1/dead-letters";
        Instant dayAgo = now.minus(Duration.ofDays(1));
        Map<String, String> queries = new LinkedHashMap<>();
        queries.put("list, no filter", base);
        queries.put("list queue=mail.send.bulk", base + "?queue=mail.send.bulk");
        queries.put("list reason=template_error", base + "?reason=template_error");
        queries.put("list failure_class=poison", base + "?failure_class=poison");
        queries.put("list error_type=java.lang.NullPointerException", base + "?error_type=java.lang.NullPointerException");
        queries.put("list campaign_id=campaign-42 (1 in 500)", base + "?campaign_id=campaign-42");
        queries.put("list tenant=tenant-7 (1 in 50)", base + "?tenant=tenant-7");
        queries.put("list provider=http", base + "?provider=http");
        queries.put("list consumer_version=1.3.0", base + "?consumer_version=1.3.0");
        queries.put("list status=open", base + "?status=open");
        queries.put("list message_id=msg-777777", base + "?message_id=msg-" + Math.min(rows, 777_777));
        queries.put("list fingerprint= (the largest open group)", base + "?fingerprint="
                + URLEncoder.encode(fingerprint, StandardCharsets.UTF_8));
        queries.put("list from/to (one day, a week ago)", base + "?from=" + enc(now.minus(Duration.ofDays(8)))
                + "&to=" + enc(now.minus(Duration.ofDays(7))));
        queries.put("list status=open&queue=mail.send.bulk&from=24h ago", base + "?status=open&queue=mail.send.bulk&from="
                + enc(dayAgo));
        queries.put("list no filter, keyset page 10,000 rows deep (after=)", base + "?after=" + deepCursor);
        queries.put("list status=open, keyset page after= 10,000 rows deep", base + "?status=open&after=" + deepCursor);
        queries.put("list no filter, offset 10000", base + "?offset=10000");
        queries.put("groups (status=open, the default)", base + "/groups");
        queries.put("groups queue=mail.send&reason=retries_exhausted", base + "/groups?queue=mail.send&reason=retries_exhausted");
        queries.put("groups status=all (every row)", base + "/groups?status=all");
        queries.put("groups status=open, last 24 h (hourly counts)", base + "/groups?from=" + enc(dayAgo));
        queries.put("groups status=all, last 24 h (hourly counts)", base + "/groups?status=all&from=" + enc(dayAgo));
        queries.put("groups status=all, 7 d a week ago (hourly counts)", base + "/groups?status=all&from="
                + enc(now.minus(Duration.ofDays(14)).plusSeconds(1234)) + "&to=" + enc(now.minus(Duration.ofDays(7))));
        queries.put("groups status=open, 7 d a week ago", base + "/groups?from="
                + enc(now.minus(Duration.ofDays(14)).plusSeconds(1234)) + "&to=" + enc(now.minus(Duration.ofDays(7))));
        queries.put("groups status=all, last 30 d (from= only)", base + "/groups?status=all&from="
                + enc(now.minus(Duration.ofDays(30)).plusSeconds(1234)));
        queries.put("arrivals PT1M, 1 h", base + "/arrivals?bucket=PT1M&hours=1");
        queries.put("arrivals queue=mail.send PT5M, 1 h (the console's last hour)",
                base + "/arrivals?queue=mail.send&bucket=PT5M&hours=1");
        queries.put("arrivals PT1M, 24 h (the API's default)", base + "/arrivals");
        queries.put("arrivals PT15M, 24 h (the console's default)", base + "/arrivals?bucket=PT15M&hours=24");
        queries.put("arrivals queue=mail.send.bulk PT15M, 24 h", base + "/arrivals?queue=mail.send.bulk&bucket=PT15M&hours=24");
        queries.put("arrivals PT1H, 168 h (7 d)", base + "/arrivals?bucket=PT1H&hours=168");
        queries.put("arrivals PT2H, 168 h (7 d)", base + "/arrivals?bucket=PT2H&hours=168");
        queries.put("arrivals queue=mail.send PT6H, 168 h (the console's 7 d)",
                base + "/arrivals?queue=mail.send&bucket=PT6H&hours=168");
        queries.put("arrivals PT1H, 720 h (30 d)", base + "/arrivals?bucket=PT1H&hours=720");
        queries.put("arrivals PT6H, 720 h (30 d)", base + "/arrivals?bucket=PT6H&hours=720");
        queries.put("arrivals P1D, 720 h (30 d, every row)", base + "/arrivals?bucket=P1D&hours=720");
        List<String> table = new ArrayList<>();
        table.add("Set-up (PostgreSQL " + scalarOrUnknown(db, "show server_version") + ", shared_buffers "
                + scalarOrUnknown(db, "show shared_buffers") + "):");
        table.addAll(notes);
        table.add("");
        table.add(String.format(Locale.ROOT, "%,d dead letters; per query %d warm-up calls, then %d passes over all "
                + "queries of %d timed calls each, through the REST API (operator, HTTP on 127.0.0.1), one call at a time;"
                + " median and max of the %d timed calls", rows, WARMUP, PASSES, RUNS, PASSES * RUNS));
        table.add("");
        queries.values().forEach(path -> {
            for (int i = 0; i < WARMUP; i++) {
                get(api, path);
            }
        });
        // what the server burns doing nothing (timers, monitor, sweeper): a share of every CPU figure below
        Cpu idleFrom = Cpu.of(serverPid, db);
        long idleStart = System.nanoTime();
        try {
            Thread.sleep(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long[] idle = Cpu.of(serverPid, db).since(idleFrom);
        double idleSeconds = (System.nanoTime() - idleStart) / 1e9;
        table.add(String.format(Locale.ROOT, "Server CPU and database CPU per call: user + system time of the WildFly"
                + " JVM and of the PostgreSQL backends of its pool (/proc/<pid>/stat) over the %d timed calls, divided by"
                + " them; not inflated by other processes' load. Idle (no call), the server burns %.1f ms of CPU a"
                + " second and its database backends %.1f ms a second (timers: the dead-letter monitor's snapshot every"
                + " 10 s, the sweeper, leases; measured over %.0f s), included in those figures: a call that waits on"
                + " a loaded machine carries more of it. The net column takes the database's idle share off (its idle"
                + " rate times the calls' wall time): what the call itself cost the database. Load average before the"
                + " passes: %s.",
                PASSES * RUNS, ms(idle[0], 1) / idleSeconds, ms(idle[1], 1) / idleSeconds, idleSeconds, loadAverage()));
        double idleDbMsPerSecond = ms(idle[1], 1) / idleSeconds;
        table.add("");
        table.add("A list's answer is \"rows of total\": the total is exact from the counts kept on write (group"
                + " columns, time window), else counted up to " + String.format(Locale.ROOT, "%,d",
                dev.mailroom.deadletter.DeadLetterQueries.TOTAL_BOUND) + " rows, past which it is that lower bound"
                + " (\"N+\", total_exact false in the API).");
        table.add("");
        table.add("| query | median | max | medians per pass | server CPU / call | db CPU / call "
                + "| db CPU / call, net of idle | rows / groups / buckets answered | target 100 ms |");
        table.add("|---|---:|---:|---|---:|---:|---:|---:|---|");
        Map<String, long[]> cpu = new LinkedHashMap<>();
        Map<String, List<Double>> samples = new LinkedHashMap<>();
        Map<String, List<String>> passMedians = new LinkedHashMap<>();
        Map<String, String> sizes = new LinkedHashMap<>();
        List<String> passLoads = new ArrayList<>();
        for (int pass = 0; pass < PASSES; pass++) {
            String load = loadAverage();
            passLoads.add("pass " + (pass + 1) + ": " + load);
            log("pass " + (pass + 1) + " of " + PASSES + ", load average " + load);
            for (Map.Entry<String, String> q : queries.entrySet()) {
                double[] ms = new double[RUNS];
                Cpu before = Cpu.of(serverPid, db);
                for (int i = 0; i < RUNS; i++) {
                    long t = System.nanoTime();
                    String body = get(api, q.getValue());
                    ms[i] = (System.nanoTime() - t) / 1e6;
                    sizes.put(q.getKey(), answered(api, body));
                    samples.computeIfAbsent(q.getKey(), k -> new ArrayList<>()).add(ms[i]);
                }
                long[] used = Cpu.of(serverPid, db).since(before);
                long[] sum = cpu.computeIfAbsent(q.getKey(), k -> new long[2]);
                sum[0] += used[0];
                sum[1] += used[1];
                Arrays.sort(ms);
                passMedians.computeIfAbsent(q.getKey(), k -> new ArrayList<>())
                        .add(String.format(Locale.ROOT, "%.1f", ms[RUNS / 2]));
            }
        }
        passLoads.add("after the last: " + loadAverage());
        log("load average (1, 5, 15 min) per pass: " + String.join("; ", passLoads));
        samples.forEach((name, list) -> {
            double[] ms = list.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double median = ms[ms.length / 2];
            double max = ms[ms.length - 1];
            long[] used = cpu.get(name);
            double wallSeconds = list.stream().mapToDouble(Double::doubleValue).sum() / 1000;
            double dbNet = Math.max(0, ms(used[1], list.size()) - idleDbMsPerSecond * wallSeconds / list.size());
            String row = String.format(Locale.ROOT, "| %s | %.1f ms | %.1f ms | %s | %.1f ms | %.1f ms | %.1f ms | %s | %s |",
                    name, median, max, String.join(" / ", passMedians.get(name)), ms(used[0], list.size()),
                    ms(used[1], list.size()), dbNet, sizes.get(name),
                    median < TARGET.toMillis() ? (max < TARGET.toMillis() ? "met" : "met (median)") : "**MISSED**");
            log(row);
            table.add(row);
        });
        table.add("");
        table.add("Load average (1, 5, 15 min) at the start of each pass: " + String.join("; ", passLoads) + ".");
        table.add("");
        table.addAll(sqlTable);
        return table;
    }

    private static String answered(ApiClient api, String body) {
        try {
            var node = api.mapper().readTree(body);
            if (node.isArray()) {
                return Integer.toString(node.size());
            }
            if (!node.has("items")) {
                return "?";
            }
            // the list's total: exact, or a lower bound (total_exact false: the list counted up to it, no further)
            return node.get("items").size() + (node.has("total") ? " of " + node.get("total").asLong()
                    + (node.path("total_exact").asBoolean(true) ? "" : "+") : "");
        } catch (IOException e) {
            throw new IllegalStateException("not JSON: " + body, e);
        }
    }

    private static String get(ApiClient api, String path) {
        HttpResponse<String> r = api.get(path);
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    private static String enc(Instant t) {
        return URLEncoder.encode(t.toString(), StandardCharsets.UTF_8);
    }

    private static void log(String s) {
        System.err.println("[bench] " + s);
    }

    /** What the set-up did (loading, migrations, checks): logged, and written above the results table. */
    private static final List<String> notes = new ArrayList<>();

    private static void note(String s) {
        log(s);
        notes.add("- " + s);
    }

    private DeadLetterQueryBench() {
    }
}
