package dev.mailroom.bench;

import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.WildFlyServer;
import dev.mailroom.job.JobSearch;
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
 * Job search at a million jobs (bench/README.md, "Job search"): a real PostgreSQL (the IT harness's
 * {@link PostgresServer}), the schema from the project's Flyway migrations (V13's indexes included), N jobs and
 * their recipients loaded with {@code insert ... select from generate_series}, then each search timed
 * <ol>
 *   <li>as SQL: exactly the statement {@link JobSearch#sql} builds for the server, plus the page's recipients
 *       query, over JDBC (the database's share, no HTTP), and the plan PostgreSQL chose;</li>
 *   <li>through the REST API of Mailroom on WildFly pointed at that database (unless {@code -Dbench.api=false}),
 *       as the console calls it.</li>
 * </ol>
 * Every search is timed in {@code bench.rounds} rounds of {@code bench.runs} calls after {@code bench.warmup}; the
 * table shows the median and the max over all calls, and the worst round's median (the machine is shared).
 *
 * <p>Exit code: 0 every search answered (figures printed, target met or not), 2 the bench broke.
 */
public final class JobSearchBench {

    private static final long TARGET_MS = 100;
    /** The search of a person by a part of her address: it must find exactly her {@value #ALICE_JOBS} jobs. */
    static final String ALICE = "recipient part alice (her 2 jobs)";
    static final int ALICE_JOBS = 2;
    private static final int WARMUP = Integer.getInteger("bench.warmup", 5);
    private static final int RUNS = Integer.getInteger("bench.runs", 10);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);
    private static final String[] STATES = {
        "sent_to_provider", "delivered", "delivered", "delivered", "delivered", "delivered", "delivered", "delivered",
        "bounced", "retry_scheduled", "bounced_permanent", "dead_lettered", "complained", "unknown", "discarded",
        "delivered", "delivered", "delivered", "delivered", "sent_to_provider"};

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path work = Path.of(System.getProperty("bench.work-dir"));
        BenchDatabase.freshWorkDir(work);
        int rc;
        try (PostgresServer pg = PostgresServer.start(work)) {
            rc = run(pg, work, jobs);
        }
        System.exit(rc);
    }

    /** The searches, as API query strings (also parsed into {@link JobSearch.Criteria} for the SQL phase). */
    private static Map<String, Map<String, String>> searches(int jobs, Instant now) {
        Map<String, Map<String, String>> s = new LinkedHashMap<>();
        s.put("recipient, an address with ~4 jobs", Map.of("recipient", "user12345@d345.example"));
        s.put("recipient, display name and capitals", Map.of("recipient", "User <USER12345@D345.example>"));
        s.put(ALICE, Map.of("recipient", "alice"));
        s.put("recipient part *alice* (her 2 jobs)", Map.of("recipient", "*alice*"));
        s.put("recipient part, nobody (zqxj)", Map.of("recipient", "zqxj"));
        s.put("recipient part user1234 (~110 addresses)", Map.of("recipient", "user1234"));
        s.put("recipient part team (~20 % of jobs)", Map.of("recipient", "team"));
        s.put("recipient suffix *@d345.example (~1,000 jobs)", Map.of("recipient", "*@d345.example"));
        s.put("recipient, an address on 1 % of all jobs", Map.of("recipient", "carol@example.com"));
        s.put("recipient 1 % + state=bounced_permanent", Map.of("recipient", "carol@example.com",
                "state", "bounced_permanent"));
        s.put("recipient, nobody", Map.of("recipient", "nobody@nowhere.example"));
        s.put("recipient prefix user1234*", Map.of("recipient", "user1234*"));
        s.put("recipient domain @d345.example (~1,000 jobs)", Map.of("recipient", "@d345.example"));
        s.put("recipient domain @example.com (~20 % of jobs)", Map.of("recipient", "@example.com"));
        s.put("recipient 1 %, page 5 (cursor)", Map.of("recipient", "carol@example.com", "cursor",
                Long.toString(jobs - 100L * 50 * 4)));
        s.put("message_id", Map.of("message_id", "msg-" + Math.min(jobs, 777_777)));
        s.put("idempotency_key", Map.of("idempotency_key", "key-" + Math.min(jobs, 555_555)));
        s.put("campaign_id (1 in 500)", Map.of("campaign_id", "campaign-42"));
        s.put("tenant (1 in 50) + state=bounced", Map.of("tenant", "tenant-7", "state", "bounced"));
        s.put("state=unknown", Map.of("state", "unknown"));
        s.put("no filter (newest)", Map.of());
        s.put("from/to one hour a week ago", Map.of("from", now.minus(Duration.ofDays(7)).toString(),
                "to", now.minus(Duration.ofDays(7)).plus(Duration.ofHours(1)).toString()));
        return s;
    }

    private static int run(PostgresServer pg, Path work, int jobs) throws Exception {
        Flyway.configure().dataSource(pg.jdbcUrl(), pg.user(), pg.password()).locations("classpath:db/migration")
                .load().migrate();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        List<String> out = new ArrayList<>();
        try (Connection c = pg.connect()) {
            long t0 = System.nanoTime();
            load(c, jobs, now);
            long loaded = System.nanoTime();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("vacuum analyze mail_job");
                s.execute("vacuum analyze job_recipient");
            }
            String sizes = String.format(Locale.ROOT, "loaded %,d jobs with %s recipients in %.1f s, vacuum analyze "
                            + "%.1f s; mail_job %s + indexes %s, job_recipient %s + indexes %s", jobs,
                    scalar(c, "select count(*) from job_recipient"), (loaded - t0) / 1e9,
                    (System.nanoTime() - loaded) / 1e9,
                    scalar(c, "select pg_size_pretty(pg_table_size('mail_job'))"),
                    scalar(c, "select pg_size_pretty(pg_indexes_size('mail_job'))"),
                    scalar(c, "select pg_size_pretty(pg_table_size('job_recipient'))"),
                    scalar(c, "select pg_size_pretty(pg_indexes_size('job_recipient'))"));
            log(sizes);
            out.add(sizes);
            out.add("");
            try {
                out.addAll(measureSql(c, searches(jobs, now)));
            } catch (IllegalStateException e) {
                log("FAILED: " + e.getMessage());
                finish(work, out);
                return 2;
            }
        }
        if (!Boolean.parseBoolean(System.getProperty("bench.api", "true"))) {
            finish(work, out);
            return 0;
        }
        try (WildFlyServer server = BenchDatabase.server(pg, Path.of(System.getProperty("bench.server-home")), work,
                Integer.getInteger("bench.port-offset", 300), Duration.ofSeconds(400))) {
            server.start();
            out.add("");
            ApiClient basic = new ApiClient(server.baseUrl());
            out.addAll(measureApi("HTTP Basic, as a script calls it: every call logs in", basic::get, searches(jobs, now)));
            out.add("");
            out.addAll(measureApi("a console session, as the console calls it", consoleSession(server.baseUrl()),
                    searches(jobs, now)));
            finish(work, out);
            return 0;
        } catch (IllegalStateException e) {
            log("FAILED: " + e.getMessage());
            finish(work, out);
            return 2;
        }
    }

    private static void finish(Path work, List<String> out) throws java.io.IOException {
        Path results = work.resolve("results.md");
        Files.write(results, out);
        out.forEach(System.out::println);
        log("written to " + results);
    }

    /**
     * Jobs 1..N received over the last 30 days in id order (as the ledger writes them), 70 % mail.send, 50 tenants,
     * 500 campaigns, states by {@link #STATES} (each from other digits of the hash, so a tenant has every state). Recipients: every job one {@code to} of 250,000 users on 1,000
     * domains (so an address has ~4 jobs, a domain ~1,000); every 100th job also {@code carol@example.com} (1 %);
     * every 5th a {@code cc} of 5,000 team addresses at {@code example.com} (~40 jobs each); jobs N/3 and 2N/3
     * also {@code alice@example.net} and {@code policy571-alice@example.net}: the only addresses with "alice".
     */
    private static void load(Connection c, int jobs, Instant now) throws SQLException {
        c.setAutoCommit(false);
        StringBuilder states = new StringBuilder("array[");
        for (int i = 0; i < STATES.length; i++) {
            states.append(i == 0 ? "" : ",").append('\'').append(STATES[i]).append('\'');
        }
        states.append(']');
        String x = "(select g, (g::bigint * 2654435761) % 1000003 as h, timestamptz '" + now + "' - ((" + jobs
                + " - g)::bigint * interval '2592 seconds') / " + Math.max(1, jobs / 1000) + " as at "
                + "from generate_series(1, " + jobs + ") g) x";
        try (Statement s = c.createStatement()) {
            s.execute("insert into mail_job (id, queue, message_id, idempotency_key, tenant, campaign_id, category, "
                    + "state, provider, attempt_count, received_at, updated_at, sent_at) "
                    + "select g, case when h % 10 < 7 then 'mail.send' else 'mail.send.bulk' end, 'msg-' || g, "
                    + "'key-' || g, 'tenant-' || ((h / 7) % 50), 'campaign-' || ((h / 3) % 500), 'transactional', "
                    + "(" + states + ")[1 + h % " + STATES.length + "], 'smtp', 1, at, at + interval '3 seconds', "
                    + "at + interval '1 second' from " + x);
            s.execute("insert into job_recipient (job_id, position, kind, address) "
                    + "select g, 0, 'to', 'user' || (h % 250000) || '@d' || (h % 1000) || '.example' from " + x);
            s.execute("insert into job_recipient (job_id, position, kind, address) "
                    + "select g, 1, 'to', 'carol@example.com' from " + x + " where g % 100 = 0");
            // a person found by a part of her address: her own address and a list's alias of it, one job each
            s.execute("insert into job_recipient (job_id, position, kind, address) values (" + Math.max(1, jobs / 3)
                    + ", 3, 'to', 'alice@example.net'), (" + Math.max(1, 2 * (jobs / 3)) + ", 3, 'to', "
                    + "'policy571-alice@example.net')");
            s.execute("insert into job_recipient (job_id, position, kind, address) "
                    + "select g, 2, 'cc', 'team' || (h % 5000) || '@example.com' from " + x + " where g % 5 = 0");
            s.execute("alter table mail_job alter column id restart with " + (jobs + 1));
        }
        c.commit();
    }

    private static List<String> measureSql(Connection c, Map<String, Map<String, String>> searches) throws SQLException {
        List<String> table = header("SQL (JobSearch.sql + the page's recipients, JDBC, one at a time)", " plan |", "---|");
        for (var e : searches.entrySet()) {
            JobSearch.Criteria criteria = criteria(e.getValue());
            JobSearch.Sql sql = JobSearch.sql(criteria, 51);
            String plan = plan(c, sql);
            int[] found = {0};
            Timing t = time(() -> found[0] = runSql(c, sql));
            String row = String.format(Locale.ROOT, "| %s | %.1f ms | %.1f ms | %.1f ms | %d | %s | %s |", e.getKey(),
                    t.median, t.max, t.worstRoundMedian, found[0], verdict(t), plan);
            log(row);
            table.add(row);
            herJobs(e.getKey(), found[0]);
        }
        return table;
    }

    /** The person search must find her jobs, all of them and nothing else: a fast wrong answer is no figure. */
    private static void herJobs(String search, int found) {
        if (ALICE.equals(search) && found != ALICE_JOBS) {
            throw new IllegalStateException(search + " found " + found + " jobs, not " + ALICE_JOBS);
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    /** GET by a console session: signed in once ({@code POST /api/v1/session}), then its cookie and header. */
    private static java.util.function.Function<String, HttpResponse<String>> consoleSession(String baseUrl) {
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                .cookieHandler(new java.net.CookieManager()).build();
        try {
            HttpResponse<String> login = http.send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(baseUrl + "/api/v1/session"))
                    .header("Content-Type", "application/json").header("X-Mailroom-Console", "1")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                            "{\"username\":\"" + ApiClient.OPERATOR_USER + "\",\"password\":\""
                                    + ApiClient.OPERATOR_PASSWORD + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
            if (login.statusCode() != 200) {
                throw new IllegalStateException("console login answered " + login.statusCode() + ": " + login.body());
            }
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return path -> {
            try {
                return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(baseUrl + path))
                        .header("Accept", "application/json").header("X-Mailroom-Console", "1").GET().build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private static List<String> measureApi(String how, java.util.function.Function<String, HttpResponse<String>> get,
                                           Map<String, Map<String, String>> searches) {
        List<String> table = header("REST API (GET /api/v1/jobs, operator, " + how + ", HTTP on 127.0.0.1, one at a time)",
                "", "");
        for (var e : searches.entrySet()) {
            StringBuilder q = new StringBuilder("/api/v1/jobs?limit=50");
            e.getValue().forEach((k, v) -> q.append('&').append(k).append('=')
                    .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
            int[] found = {0};
            Timing t = time(() -> {
                HttpResponse<String> r = get.apply(q.toString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("GET " + q + " answered " + r.statusCode() + ": " + r.body());
                }
                try {
                    found[0] = JSON.readTree(r.body()).path("items").size();
                } catch (java.io.IOException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            String row = String.format(Locale.ROOT, "| %s | %.1f ms | %.1f ms | %.1f ms | %d | %s |", e.getKey(),
                    t.median, t.max, t.worstRoundMedian, found[0], verdict(t));
            log(row);
            table.add(row);
            herJobs(e.getKey(), found[0]);
        }
        return table;
    }

    private static List<String> header(String what, String extraColumn, String extraRule) {
        List<String> table = new ArrayList<>();
        table.add(String.format(Locale.ROOT, "%s: %d rounds of %d calls after %d warm-up, per search", what, ROUNDS, RUNS,
                WARMUP));
        table.add("");
        table.add("| search | median | max | worst round's median | jobs on the page | target 100 ms |" + extraColumn);
        table.add("|---|---:|---:|---:|---:|---|" + extraRule);
        return table;
    }

    private static JobSearch.Criteria criteria(Map<String, String> p) {
        return JobSearch.Criteria.parse(p.get("recipient"), p.get("message_id"), p.get("idempotency_key"),
                p.get("campaign_id"), p.get("tenant"), p.get("state"), p.get("from"), p.get("to"), p.get("cursor"));
    }

    private static int runSql(Connection c, JobSearch.Sql sql) {
        try {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement p = prepare(c, sql.text(), sql.parameters()); ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getLong(1));
                }
            }
            if (!ids.isEmpty()) {
                StringBuilder in = new StringBuilder();
                ids.forEach(id -> in.append(in.isEmpty() ? "?" : ",?"));
                try (PreparedStatement p = prepare(c, "select job_id, position, kind, address from job_recipient "
                        + "where job_id in (" + in + ") order by job_id, position", new ArrayList<>(ids));
                     ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        r.getString(4);
                    }
                }
            }
            return (int) ids.stream().distinct().count();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PreparedStatement prepare(Connection c, String sql, List<Object> parameters) throws SQLException {
        PreparedStatement p = c.prepareStatement(sql);
        for (int i = 0; i < parameters.size(); i++) {
            p.setObject(i + 1, parameters.get(i));
        }
        return p;
    }

    /** The plan's access paths, e.g. "Index Only Scan Backward using ix_job_recipient_address". */
    private static String plan(Connection c, JobSearch.Sql sql) throws SQLException {
        List<String> scans = new ArrayList<>();
        try (PreparedStatement p = prepare(c, "explain " + sql.text(), sql.parameters()); ResultSet r = p.executeQuery()) {
            while (r.next()) {
                String line = r.getString(1).trim().replaceFirst("^->\\s*", "");
                if (line.contains("Scan")) {
                    scans.add(line.replaceAll("\\s*\\(cost=.*", ""));
                }
            }
        }
        return String.join("; ", scans);
    }

    private record Timing(double median, double max, double worstRoundMedian) { }

    private static Timing time(Runnable call) {
        for (int i = 0; i < WARMUP; i++) {
            call.run();
        }
        double[] all = new double[ROUNDS * RUNS];
        double worst = 0;
        for (int round = 0; round < ROUNDS; round++) {
            double[] ms = new double[RUNS];
            for (int i = 0; i < RUNS; i++) {
                long t = System.nanoTime();
                call.run();
                ms[i] = (System.nanoTime() - t) / 1e6;
                all[round * RUNS + i] = ms[i];
            }
            Arrays.sort(ms);
            worst = Math.max(worst, ms[RUNS / 2]);
        }
        Arrays.sort(all);
        return new Timing(all[all.length / 2], all[all.length - 1], worst);
    }

    private static String verdict(Timing t) {
        return t.median < TARGET_MS ? (t.max < TARGET_MS ? "met" : "met (median)") : "**MISSED**";
    }

    private static String scalar(Connection c, String sql) throws SQLException {
        return BenchDatabase.scalar(c, sql);
    }

    private static void log(String s) {
        System.err.println("[bench] " + s);
    }

    private JobSearchBench() {
    }
}
