package dev.mailroom.bench;

import static dev.mailroom.it.support.ProcessCpu.loadAverage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.ProcessCpu;
import dev.mailroom.it.support.WildFlyServer;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * Mailroom's throughput benchmark (not a test: run it with {@code bash bench/run.sh [N]}, see bench/README.md).
 *
 * <p>In one invocation, on the WildFly the build provisioned, port offset 300 (HTTP 8380, management 10290, Artemis
 * 61916), each server start with a fresh data dir:
 * <ol>
 *   <li><b>broker ceiling</b>: a queue {@code bench.baseline} is added to the running server with the address
 *       settings of {@code mail.send}; N persistent 1 KiB text messages are produced to it, then consumed by one
 *       plain transacted JMS consumer (Artemis core client over TCP) that commits after every message. Only the
 *       consumption is timed.</li>
 *   <li><b>Mailroom, sandbox provider, zero latency</b>: {@code mail.send} is paused, N jobs (~1 KiB JSON) are
 *       produced, the queue is resumed and the clock starts; it stops when the queue holds nothing (depth 0, none in
 *       flight, none scheduled). Then the Prometheus counters must show exactly N {@code sent_to_provider} outcomes,
 *       N provider attempts and nothing else. Once per {@code MAILROOM_CONSUMERS} value (a server start each).</li>
 *   <li><b>Mailroom, HTTP provider, 50 ms latency</b>: the same against {@link ProviderStub} in this JVM, which must
 *       have received exactly N requests with N distinct idempotency keys. Once per {@code MAILROOM_CONSUMERS}
 *       value.</li>
 *   <li><b>permanent failures mixed in</b>: one server with the HTTP provider against a 0 ms stub and 4 consumers; a
 *       clean run of M jobs, then (same server) M good jobs with M/9 jobs interleaved (every 10th) that the stub
 *       answers 422 {@code invalid_recipient} (each must end {@code bounced_permanent} after one provider call); the
 *       figure is the good-job rate of the mixed run as a ratio to the clean one (target &ge; 0.9).</li>
 * </ol>
 * Every server start also deploys the plain baseline beans ({@code dev.mailroom.bench.naive}, packaged by {@link
 * NaiveWar}: the naive bean, and the guarded bean, the cheapest that keeps the claim-before-call and
 * acceptance-on-its-own rules) and measures them after Mailroom at the same concurrency, on queues {@code bench.naive}
 * and {@code bench.guarded} with mail.send's settings; each
 * figure runs on H2 and on PostgreSQL ({@code bench.databases}). The 50 ms runs check that as many calls as consumers
 * reach the stub at once. At the end: the summary lines, the table between the markers of
 * {@code bench.readme} and the chart {@code bench.chart} (item 6).
 * A warm-up (not timed) precedes every measured run. Exits 1 if any run lost, duplicated or failed jobs or timed out,
 * or reached fewer concurrent provider calls than configured.
 *
 * <p>Arguments: {@code [N]}. System properties: {@code bench.server-home}, {@code bench.work-dir},
 * {@code bench.port-offset} (300), {@code bench.consumers} (sandbox runs, {@code 4,2,8}; the first one also hosts
 * the baseline), {@code bench.http-consumers} ({@code 4,32}), {@code bench.latency-ms} (50), {@code bench.mixed-n} (M of the
 * permanent-failure figure, min(N, 1000); 0 skips it),
 * {@code bench.warmup} (min(200, N/10)), {@code bench.pid-file} (where the server JVM's pid is written while it runs,
 * for bench/run.sh's cleanup), {@code bench.history} (jobs of history of the history figure on PostgreSQL, 0: none;
 * {@link #historyFigure}), {@code bench.history-consumers} (4), {@code bench.history-warmup} (1000),
 * {@code bench.retention-interval} (5s).
 */
public final class SendBench {

    private static final String SEND_QUEUE = "mail.send";
    private static final String BASELINE_QUEUE = "bench.baseline";
    /** The plain beans' queues: mail.send's address settings, a DLQ each (added to the bench's server config). */
    private static final String NAIVE_QUEUE = "bench.naive";
    private static final String GUARDED_QUEUE = "bench.guarded";
    private static final String NAIVE_WAR = "naive-mdb.war";
    static final String H2 = "H2";
    static final String POSTGRESQL = "PostgreSQL";
    private static final String MESSAGING = "/subsystem=messaging-activemq/server=default";
    private static final String CONFIG = "standalone-bench.xml";
    private static final int BODY_BYTES = 1024;
    private static final Duration POLL = Duration.ofMillis(100);
    /** Jobs per run of the memory soak, and the first reading's point. */
    private static final int SOAK_CHUNK = 10_000;
    private static final Pattern PROM_LINE = Pattern.compile("^(mailroom_(?:jobs|attempts)_total)\\{([^}]*)}\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final int n;
    private final int warmup;
    private final Path home;
    private final Path work;
    private final int offset;
    private final List<Integer> sandboxConsumers;
    private final List<Integer> httpConsumers;
    private final long latencyMs;
    private final int mixedN;
    private final Path pidFile;
    private final List<String> databases;
    private final Path readme;
    private final Path chart;
    private final String commit;
    /** Extra JVM options for the server (BENCH_SERVER_JAVA_OPTS), e.g. a JDK Flight Recorder recording. */
    private final String serverJavaOpts;
    /** Whether each Mailroom run also reports Hibernate's statistics per job (BENCH_JPA_STATS=1; costs a little CPU). */
    private final boolean jpaStats;
    /** Finished jobs of history for the history figure (bench.history; 0: no such figure), a tenth as many dead letters. */
    private final int history;
    /** mailroom.jobs.retention-interval of the history figure's two servers (bench.retention-interval). */
    private final String retentionInterval;
    /** MAILROOM_CONSUMERS of the history figure's runs (bench.history-consumers). */
    private final int historyConsumers;
    /**
     * Warm-up jobs before each run of the history figure: after 200 a server's first run still cost a third more CPU
     * per job than its later ones (its JIT was still compiling), which a ratio between servers would take for history.
     */
    private final int historyWarmup;
    /** Jobs of the memory soak (bench.soak; 0: no such figure), on PostgreSQL, with the embedded default's heap. */
    private final int soak;
    /** The server's heap sizing: the bench's, or the embedded default's for the soak. */
    private String heapOpts = "-Xms256m -Xmx768m";
    private final List<Point> points = new ArrayList<>();
    private final List<String> checks = new ArrayList<>();
    private Path naiveWar;
    private final String nonce = Long.toString(System.currentTimeMillis(), 36);
    private final HttpClient http = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Row> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private double baselineRate = Double.NaN;
    private Integer mdbPoolSize;

    private Running current;
    private int mailroomRuns;

    private SendBench(int n) {
        this.n = n;
        this.warmup = Integer.getInteger("bench.warmup", Math.min(200, Math.max(10, n / 10)));
        this.home = Path.of(System.getProperty("bench.server-home", "target-bench/wildfly-39.0.1.Final"))
                .toAbsolutePath().normalize();
        this.work = Path.of(System.getProperty("bench.work-dir", "target-bench/bench-work")).toAbsolutePath().normalize();
        this.offset = Integer.getInteger("bench.port-offset", 300);
        this.sandboxConsumers = ints(System.getProperty("bench.consumers", "4,2,8"));
        this.httpConsumers = ints(System.getProperty("bench.http-consumers", "4,32"));
        this.latencyMs = Long.getLong("bench.latency-ms", 50);
        String mixed = System.getProperty("bench.mixed-n", "");
        this.mixedN = mixed.isBlank() ? Math.min(n, 1000) : Integer.parseInt(mixed.trim());
        String pid = System.getProperty("bench.pid-file", "");
        this.pidFile = pid.isBlank() ? null : Path.of(pid).toAbsolutePath();
        this.databases = new ArrayList<>();
        for (String db : System.getProperty("bench.databases", "h2,postgresql").split(",")) {
            switch (db.trim().toLowerCase(Locale.ROOT)) {
                case "h2" -> databases.add(H2);
                case "postgresql", "postgres" -> databases.add(POSTGRESQL);
                case "" -> { }
                default -> throw new IllegalArgumentException("bench.databases: unknown database '" + db + "'");
            }
        }
        String readmeProp = System.getProperty("bench.readme", "");
        this.readme = readmeProp.isBlank() ? null : Path.of(readmeProp).toAbsolutePath();
        String chartProp = System.getProperty("bench.chart", "");
        this.chart = chartProp.isBlank() ? work.resolve("send-throughput.png") : Path.of(chartProp).toAbsolutePath();
        this.commit = System.getProperty("bench.commit", "?");
        this.serverJavaOpts = System.getProperty("bench.server-java-opts", "").trim();
        this.jpaStats = Set.of("1", "true", "yes").contains(System.getProperty("bench.jpa-stats", "").trim().toLowerCase(Locale.ROOT));
        String historyProp = System.getProperty("bench.history", "").trim();
        this.history = historyProp.isEmpty() ? 0 : Integer.parseInt(historyProp);
        this.retentionInterval = System.getProperty("bench.retention-interval", "5s").trim();
        this.historyConsumers = Integer.getInteger("bench.history-consumers", 4);
        this.historyWarmup = Integer.getInteger("bench.history-warmup", Math.max(warmup, 1000));
        String soakProp = System.getProperty("bench.soak", "").trim();
        this.soak = soakProp.isEmpty() ? 0 : Integer.parseInt(soakProp);
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0].trim()) : 3000;
        if (n < 1) {
            throw new IllegalArgumentException("N must be positive, got " + n);
        }
        SendBench bench = new SendBench(n);
        int code;
        try {
            code = bench.run();
        } catch (RuntimeException | Error e) {
            e.printStackTrace();
            System.err.println("[bench] FAILED: " + e);
            code = 2;
        } finally {
            bench.stopCurrent();
        }
        System.out.flush();
        System.exit(code);
    }

    // ------------------------------------------------------------------ the runs

    private int run() {
        Instant begin = Instant.now();
        prepareWorkDir();
        printMachine();
        log("N=" + n + ", warm-up " + warmup + " per run, sandbox MAILROOM_CONSUMERS " + sandboxConsumers
                + ", http MAILROOM_CONSUMERS " + httpConsumers + " at " + latencyMs + " ms, permanent-failure figure M="
                + mixedN + ", port offset " + offset
                + ", work dir " + work);

        naiveWar = NaiveWar.build(work.resolve(NAIVE_WAR));
        boolean first = true;
        for (String db : databases) {
            for (int consumers : sandboxConsumers) {
                startServer("sandbox-c" + consumers + "-" + db, Map.of("MAILROOM_CONSUMERS", Integer.toString(consumers)),
                        consumers, db);
                if (first) {
                    readPoolSettings();
                    baseline();
                    first = false;
                }
                Result mailroom = mailroomRun("Mailroom sandbox, 0 ms", consumers, null, n, false);
                Result[] plain = plainBeans("sandbox, 0 ms", consumers, null);
                points.add(new Point(db, "sandbox", 0, consumers, mailroom, plain[0], plain[1]));
                stopCurrent();
            }
            if (!httpConsumers.isEmpty()) {
                try (ProviderStub stub = new ProviderStub(latencyMs, 256)) {
                    double[] check = stub.selfCheck(20);
                    String note = String.format(Locale.ROOT, "provider stub at %s: %d ms configured, a JDK HttpClient "
                            + "sees p50 %.1f ms, max %.1f ms (20 sequential POSTs)", stub.baseUrl(), latencyMs, check[0],
                            check[1]);
                    notes.add(note);
                    log(note);
                    for (int consumers : httpConsumers) {
                        Map<String, String> env = httpEnv(stub);
                        env.put("MAILROOM_CONSUMERS", Integer.toString(consumers));
                        startServer("http-c" + consumers + "-" + db, env, consumers, db);
                        if (mdbPoolSize == null) {
                            readPoolSettings();
                        }
                        Result mailroom = mailroomRun("Mailroom http, " + latencyMs + " ms", consumers, stub, n, false);
                        checkConcurrency(db, consumers, mailroom);
                        Result[] plain = plainBeans("http, " + latencyMs + " ms", consumers, stub);
                        points.add(new Point(db, "http " + latencyMs + " ms", latencyMs, consumers, mailroom, plain[0],
                                plain[1]));
                        stopCurrent();
                    }
                }
            }
            if (mixedN > 0) {
                mixedFigure(db);
            }
            if (history > 0 && POSTGRESQL.equals(db)) {
                historyFigure(db);
            }
            if (soak > 0 && POSTGRESQL.equals(db)) {
                soakFigure(db);
            }
        }
        if (soak > 0 && !databases.contains(POSTGRESQL)) {
            notes.add("memory soak skipped: it runs on PostgreSQL only (bench.databases has none)");
        }
        if (history > 0 && !databases.contains(POSTGRESQL)) {
            notes.add("history figure skipped: it runs on PostgreSQL only (bench.databases has none)");
        }
        String report = report(Duration.between(begin, Instant.now()));
        System.out.println(report);
        try {
            Files.writeString(work.resolve("results.txt"), report);
        } catch (IOException e) {
            log("could not write results.txt: " + e);
        }
        writeReadmeAndChart(begin);
        return failures.isEmpty() ? 0 : 1;
    }

    private static Map<String, String> httpEnv(ProviderStub stub) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MAILROOM_PROVIDER", "http");
        env.put("MAILROOM_HTTP_PROFILE", "generic");
        env.put("MAILROOM_HTTP_BASE_URL", stub.baseUrl());
        return env;
    }

    /** Good-job throughput with 10% permanently failing jobs, as a ratio to a clean run (a server start each). */
    private void mixedFigure(String db) {
        try (ProviderStub stub = new ProviderStub(0, 64)) {
            Map<String, String> env = httpEnv(stub);
            // a server start of its own for each run (fresh data dir, same warm-up): on one server the second
            // run was measured with a warmer JIT and a bigger database than the first
            startServer("http0-clean-" + db, env, 4, db);
            if (mdbPoolSize == null) {
                readPoolSettings();
            }
            double clean = mailroomRun("Mailroom http 0 ms, clean", 4, stub, mixedN, false).rate();
            stopCurrent();
            startServer("http0-mixed-" + db, env, 4, db);
            double mixed = mailroomRun("Mailroom http 0 ms, 10% failing", 4, stub, mixedN, true).rate();
            stopCurrent();
            double ratio = mixed / clean;
            String note = String.format(Locale.ROOT, "permanent failures mixed in, %s (HTTP provider, 0 ms stub, 4 "
                    + "consumers, one server start per run): good-job rate %.1f jobs/s with 10%% of jobs failing "
                    + "permanently vs %.1f jobs/s clean, mixed/clean = %.2f, target >= 0.9: %s", db, mixed, clean, ratio,
                    ratio >= 0.9 ? "met" : "MISSED");
            notes.add(note);
            log(note);
            checks.add(String.format(Locale.ROOT, "Good-job throughput 10%% failing / clean, http 0 ms, 4 consumers, %s: "
                    + "%.2f", db, ratio));
        }
    }

    /**
     * Cost as history grows, and retention's purge under load (bench/README.md, "History"): the sandbox run at
     * {@code bench.history-consumers} on an empty PostgreSQL, then on one seeded with {@code history} finished jobs and a
     * tenth as many dead letters ({@link HistorySeed}), each on a server start of its own with the same settings; then,
     * on the seeded server, retention is let loose on the history (every seeded job is past the 1-day retention) and,
     * once it removes, the same run again while it does, and once more when it is done; last, the empty database
     * again. Each ratio compares runs on both sides of the one it divides (balanced: steady drift of the machine's
     * load cancels). Retention's lease is held by the bench until then, so the
     * first seeded run sends beside a history nobody removes.
     */
    private void historyFigure(String db) {
        int consumers = historyConsumers;
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MAILROOM_CONSUMERS", Integer.toString(consumers));
        env.put("MAILROOM_JOBS_RETENTION", "1d");
        env.put("MAILROOM_JOBS_RETENTION_INTERVAL", retentionInterval);
        String figure = "Mailroom sandbox, 0 ms, ";
        startServer("history-empty-c" + consumers + "-" + db, env, consumers, db);
        Result empty = mailroomRun(figure + "empty database", consumers, null, n, false, historyWarmup);
        stopCurrent();
        List<String> seeded = new ArrayList<>();
        startServer("history-c" + consumers + "-" + db, env, consumers, db,
                pg -> seeded.addAll(HistorySeed.seed(pg, history, history / 10, Instant.now())));
        seeded.forEach(line -> {
            notes.add(line);
            log(line);
        });
        Result full = mailroomRun(figure + String.format(Locale.ROOT, "%,d jobs of history", history), consumers,
                null, n, false, historyWarmup);
        RetentionPurge.Observed purge = purgeWhileSending(figure, consumers);
        Result after = mailroomRun(figure + "after retention's purge", consumers, null, n, false, historyWarmup);
        stopCurrent();
        // the empty database again, last: the load of a shared machine drifts over the many minutes between
        startServer("history-empty2-c" + consumers + "-" + db, env, consumers, db);
        Result empty2 = mailroomRun(figure + "empty database, again", consumers, null, n, false, historyWarmup);
        stopCurrent();
        HistoryFigure.Figures f = new HistoryFigure.Figures(db, consumers, history, empty, empty2, full, after, purge);
        checks.addAll(HistoryFigure.summaryLines(f));
        HistoryFigure.notes(f).forEach(line -> {
            notes.add(line);
            log(line);
        });
        if (purge.problem() != null) {
            fail("retention purge: " + purge.problem());
        }
    }

    /**
     * The memory soak (bench/README.md, "Memory"): {@code soak} sandbox jobs through one server started with the
     * embedded default's heap, in runs of {@value #SOAK_CHUNK}; the heap after a full collection is read once the first
     * run is through and again at the end, with the server's resident memory. Every run counts its jobs as every run
     * of the bench does.
     */
    private void soakFigure(String db) {
        int consumers = historyConsumers;
        heapOpts = SoakFigure.EMBEDDED_HEAP;
        try {
            startServer("soak-c" + consumers + "-" + db, Map.of("MAILROOM_CONSUMERS", Integer.toString(consumers)),
                    consumers, db);
        } finally {
            heapOpts = "-Xms256m -Xmx768m";
        }
        long pid = current.server.javaPid().orElseThrow();
        int chunk = Math.min(SOAK_CHUNK, soak);
        int done = 0;
        SoakFigure.Reading first = null;
        while (done < soak) {
            int jobs = Math.min(chunk, soak - done);
            mailroomRun(String.format(Locale.ROOT, "Mailroom sandbox, 0 ms, soak, jobs %,d-%,d", done + 1, done + jobs),
                    consumers, null, jobs, false, done == 0 ? warmup : 0);
            done += jobs;
            if (first == null) {
                first = SoakFigure.read(pid, done);
                log(String.format(Locale.ROOT, "soak: after %,d jobs heap %,d KiB after a full GC, RSS %,d KiB", done,
                        first.heapUsedKib(), first.rssKib()));
            }
        }
        SoakFigure.Reading last = SoakFigure.read(pid, done);
        SoakFigure.Figures f = new SoakFigure.Figures(db, consumers, first, last,
                SoakFigure.outOfMemoryErrors(current.server.serverLog()));
        stopCurrent();
        checks.addAll(SoakFigure.summaryLines(f));
        String note = SoakFigure.note(f);
        notes.add(note);
        log(note);
        if (f.outOfMemoryErrors() > 0) {
            fail("memory soak: OutOfMemoryError in the server log");
        }
    }

    /**
     * On the seeded server: releases retention's lease, waits until retention has removed its first batch, then runs
     * the sandbox run again while it removes; then waits until every seeded job is gone. The rows removed are read
     * from {@code mailroom_jobs_retention_removed_total}.
     */
    private RetentionPurge.Observed purgeWhileSending(String figure, int consumers) {
        Running s = current;
        RetentionPurge watch = new RetentionPurge(history, () -> retentionRemoved());
        HistorySeed.releaseRetention(s.pg);
        watch.awaitStart(Duration.ofMinutes(3));
        Result during = mailroomRun(figure + "during retention's purge", consumers, null, n, false, historyWarmup);
        long left = HistorySeed.jobsLeft(s.pg);
        watch.runEnded(left);
        log(String.format(Locale.ROOT, "retention: %,d seeded jobs left when the run ended; awaiting the rest", left));
        watch.awaitEnd(Duration.ofSeconds(600 + history / 100));
        return watch.observed(during, HistorySeed.jobsLeft(s.pg));
    }

    /**
     * Checked: with a provider latency, every configured consumer must be calling the provider at
     * once at some point (the stub's own count of concurrent requests), and the rate is compared with the ceiling.
     */
    private void checkConcurrency(String db, int consumers, Result r) {
        boolean met = r.peakAtProvider() >= consumers;
        String line = String.format(Locale.ROOT, "Concurrent calls at the provider, http %d ms, %d consumers, %s: %d (%s)",
                latencyMs, consumers, db, r.peakAtProvider(), met ? "met" : "MISSED: fewer than configured");
        checks.add(line);
        double ceiling = consumers / (latencyMs / 1000.0);
        checks.add(String.format(Locale.ROOT, "Throughput / ceiling, http %d ms, %d consumers, %s: %.2f", latencyMs,
                consumers, db, r.rate() / ceiling));
        log(line);
        if (!met) {
            fail(line);
        }
    }

    /** The broker's own ceiling: one transacted consumer, commit after every message, same address settings. */
    private void baseline() {
        Running s = current;
        JsonNode setting = s.cli.op(MESSAGING + "/address-setting=" + SEND_QUEUE + ":read-resource(include-defaults=false)");
        List<String> attrs = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = setting.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v == null || v.isNull()) {
                continue;
            }
            attrs.add(e.getKey() + "=" + (v.isTextual() ? "\"" + v.asText() + "\"" : v.asText()));
        }
        s.cli.op(MESSAGING + "/address-setting=" + BASELINE_QUEUE + ":add(" + String.join(", ", attrs) + ")");
        s.cli.op(MESSAGING + "/queue=" + BASELINE_QUEUE + ":add(queue-address=" + BASELINE_QUEUE
                + ", routing-type=ANYCAST, durable=true)");
        log("baseline queue " + BASELINE_QUEUE + " added with the address settings of " + SEND_QUEUE + ": " + attrs);

        // warm-up, same code, not timed
        s.jms.sendAll(BASELINE_QUEUE, baselineBodies("w", warmup));
        Consumed w = consumeTransacted(s, "w", warmup);
        if (!w.problems.isEmpty()) {
            fail("baseline warm-up: " + w.problems);
        }

        long p0 = System.nanoTime();
        s.jms.sendAll(BASELINE_QUEUE, baselineBodies("m", n));
        double produceSec = seconds(System.nanoTime() - p0);
        long depth = s.cli.op(MESSAGING + "/queue=" + BASELINE_QUEUE + ":read-attribute(name=message-count)").asLong();
        if (depth != n) {
            fail("baseline: " + depth + " messages on " + BASELINE_QUEUE + " after producing " + n);
        }
        String load = loadAverage();
        Cpu cpu0 = Cpu.sample(s.server);
        Consumed c = consumeTransacted(s, "m", n);
        Cpu cpu1 = Cpu.sample(s.server);
        long left = s.cli.op(MESSAGING + "/queue=" + BASELINE_QUEUE + ":read-attribute(name=message-count)").asLong();
        if (left != 0) {
            c.problems.add(left + " messages left on the queue");
        }
        baselineRate = c.received / c.seconds;
        String params = "1 consumer, commit per message, N=" + n + " x 1 KiB persistent";
        String details = String.format(Locale.ROOT, "%d received in %.2f s; core client over TCP; commit p50 %.2f ms, "
                        + "p99 %.2f ms; %s; produced beforehand in %.1f s (%.0f msg/s); load avg %s",
                c.received, c.seconds, c.commitP50Ms, c.commitP99Ms, cpu0.until(cpu1, c.received, c.seconds), produceSec,
                n / produceSec, load);
        rows.add(new Row("Broker ceiling: transacted consumer", baselineRate, "msg/s", 1.0, params, details,
                String.join("; ", c.problems)));
        if (!c.problems.isEmpty()) {
            fail("baseline: " + c.problems);
        }
        log(String.format(Locale.ROOT, "baseline: %d messages in %.2f s = %.0f msg/s", c.received, c.seconds, baselineRate));
        s.cli.op(MESSAGING + "/queue=" + BASELINE_QUEUE + ":remove");
        s.cli.op(MESSAGING + "/address-setting=" + BASELINE_QUEUE + ":remove");
    }

    private List<String> baselineBodies(String phase, int count) {
        List<String> bodies = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            bodies.add(pad(baselinePrefix(phase) + String.format(Locale.ROOT, "%08d|", i), BODY_BYTES));
        }
        return bodies;
    }

    private String baselinePrefix(String phase) {
        return "bench-" + nonce + "-" + phase + "-";
    }

    private Consumed consumeTransacted(Running s, String phase, int count) {
        Consumed out = new Consumed();
        String prefix = baselinePrefix(phase);
        BitSet seen = new BitSet(count);
        long[] commits = new long[count];
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + s.server.artemisPort(),
                JmsClient.DEFAULT_USER, JmsClient.DEFAULT_PASSWORD);
             Connection connection = factory.createConnection()) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer consumer = session.createConsumer(session.createQueue(BASELINE_QUEUE));
            connection.start();
            long t0 = System.nanoTime();
            int i = 0;
            for (; i < count; i++) {
                Message m = consumer.receive(30_000);
                if (m == null) {
                    out.problems.add("lost: no message within 30 s after " + i + " of " + count);
                    break;
                }
                String body = ((TextMessage) m).getText();
                if (body == null || !body.startsWith(prefix)) {
                    out.problems.add("unexpected message " + abbreviate(body));
                } else {
                    int idx = Integer.parseInt(body.substring(prefix.length(), body.indexOf('|', prefix.length())));
                    if (seen.get(idx)) {
                        out.duplicates++;
                    }
                    seen.set(idx);
                }
                long c0 = System.nanoTime();
                session.commit();
                commits[i] = System.nanoTime() - c0;
            }
            long t1 = System.nanoTime();
            out.received = i;
            out.seconds = seconds(t1 - t0);
            Message extra;
            int extras = 0;
            while ((extra = consumer.receive(500)) != null) {
                extras++;
                session.commit();
                if (extras > count) {
                    break;
                }
            }
            if (extras > 0) {
                out.problems.add(extras + " messages more than produced");
            }
            if (out.duplicates > 0) {
                out.problems.add(out.duplicates + " duplicates");
            }
            if (seen.cardinality() != count) {
                out.problems.add((count - seen.cardinality()) + " of " + count + " never received");
            }
            long[] done = Arrays.copyOf(commits, Math.max(1, i));
            Arrays.sort(done);
            out.commitP50Ms = done[done.length / 2] / 1e6;
            out.commitP99Ms = done[Math.min(done.length - 1, (int) Math.ceil(done.length * 0.99) - 1)] / 1e6;
            session.close();
        } catch (JMSException e) {
            throw new IllegalStateException("baseline consumer failed: " + e, e);
        }
        return out;
    }

    /**
     * One measured Mailroom run on the current server: pause mail.send, produce N jobs, resume (clock starts), wait
     * until the queue is empty (clock stops), then check the counts.
     */
    private Result mailroomRun(String figure, int consumers, ProviderStub stub, int n, boolean mixed) {
        return mailroomRun(figure, consumers, stub, n, mixed, warmup);
    }

    /** As above, after {@code warmup} jobs through the same path. */
    private Result mailroomRun(String figure, int consumers, ProviderStub stub, int n, boolean mixed, int warmup) {
        Running s = current;
        // the run's number in its ids: a second run on the same server must not send the first one's again
        String label = (stub == null ? "sandbox" : "http" + stub.latencyMillis() + "ms") + "-c" + consumers
                + (mixed ? "-mixed" : "") + "-m" + (++mailroomRuns);
        int failing = mixed ? n / 9 : 0; // n good jobs, every 10th job of the run a failing one
        int total = n + failing;
        List<String> problems = new ArrayList<>();

        // warm-up: not timed, the queue running as usual, the same mix
        Map<String, Double> w0 = counters();
        s.jms.sendAll(SEND_QUEUE, jobs(label + "-w", warmup, mixed));
        awaitCounter(w0, "jobs", "sent_to_provider", warmup,
                Duration.ofSeconds(60 + warmup * (stub == null ? 1 : stub.latencyMillis()) / 100));
        awaitEmpty(SEND_QUEUE, () -> queue(s), Duration.ofSeconds(30));

        Map<String, Double> before = counters();
        // a runtime-queue: the broker creates the send queues (server-config/wildfly/send-queue-mail.send.cli)
        s.cli.op(MESSAGING + "/runtime-queue=" + SEND_QUEUE + ":pause");
        long p0 = System.nanoTime();
        s.jms.sendAll(SEND_QUEUE, jobs(label, n, mixed));
        double produceSec = seconds(System.nanoTime() - p0);
        Figures loaded = queue(s);
        if (loaded.depth != total) {
            problems.add("after producing " + total + " jobs on the paused queue its depth is " + loaded.depth);
        }
        if (stub != null) {
            stub.reset();
        }
        Map<String, Long> jpa0 = jpaStatistics(s);
        String load0 = loadAverage();
        Cpu cpu0 = Cpu.sample(s.server);
        long t0 = System.nanoTime();
        s.cli.op(MESSAGING + "/runtime-queue=" + SEND_QUEUE + ":resume");
        long timeoutNanos = Duration.ofSeconds(60).toNanos()
                + (long) total * Duration.ofMillis(stub == null ? 20 : Math.max(20, stub.latencyMillis())).toNanos();
        Figures f = loaded;
        long t1;
        Duration nextPoll = POLL;
        while (true) {
            sleep(nextPoll);
            f = queue(s);
            t1 = System.nanoTime();
            nextPoll = nextPoll(total, f.depth, t1 - t0);
            if (f.depth == 0 && f.inFlight == 0 && f.scheduled == 0) {
                break;
            }
            if (t1 - t0 > timeoutNanos) {
                problems.add(String.format(Locale.ROOT, "TIMED OUT after %.0f s: depth %d, in flight %d, scheduled %d",
                        seconds(t1 - t0), f.depth, f.inFlight, f.scheduled));
                break;
            }
        }
        double sec = seconds(t1 - t0);
        Cpu cpu1 = Cpu.sample(s.server);
        String load1 = loadAverage();
        String perJob = perJob(jpa0, jpaStatistics(s), total);

        // the counts: every job exactly once
        awaitCounter(before, "jobs", "sent_to_provider", n, Duration.ofSeconds(15));
        if (failing > 0) {
            awaitCounter(before, "jobs", "bounced_permanent", failing, Duration.ofSeconds(15));
        }
        sleep(Duration.ofSeconds(1)); // anything late (a duplicate, a redelivery) would show now
        Map<String, Double> after = counters();
        Map<String, Long> delta = delta(before, after);
        long sent = delta.getOrDefault("jobs|sent_to_provider", 0L);
        long attempts = delta.entrySet().stream().filter(e -> e.getKey().startsWith("attempts|"))
                .mapToLong(Map.Entry::getValue).sum();
        long accepted = delta.getOrDefault("attempts|accepted", 0L);
        long bounced = delta.getOrDefault("jobs|bounced_permanent", 0L);
        if (sent != n) {
            problems.add("sent_to_provider counted " + sent + ", expected " + n);
        }
        if (bounced != failing) {
            problems.add("bounced_permanent counted " + bounced + ", expected " + failing);
        }
        delta.forEach((k, v) -> {
            if (k.startsWith("jobs|") && !k.equals("jobs|sent_to_provider") && !k.equals("jobs|bounced_permanent")
                    && v != 0) {
                problems.add("outcome " + k.substring(5) + ": " + v);
            }
        });
        if (attempts != total || accepted != n) {
            problems.add("provider attempts " + attempts + " (accepted " + accepted + "), expected " + total
                    + " (accepted " + n + ")");
        }
        Figures end = queue(s);
        if (end.dlqDepth != 0) {
            problems.add(end.dlqDepth + " messages on the DLQ");
        }
        if (end.depth != 0 || end.inFlight != 0 || end.scheduled != 0) {
            problems.add("queue not empty at the end: " + end);
        }
        int peakRequests = -1;
        if (stub != null) {
            peakRequests = stub.peakConcurrency();
            if (stub.requests() != total || stub.distinctKeys() != total || stub.unexpected() != 0
                    || stub.failed() != failing) {
                problems.add("provider stub received " + stub.requests() + " requests with " + stub.distinctKeys()
                        + " distinct idempotency keys (" + stub.unexpected() + " unexpected, " + stub.failed()
                        + " answered 422), expected " + total + " (" + failing + " answered 422)");
            }
        }
        double[] timeline = sampleTimelines(s, label, n, 50, problems);
        for (int k = 0, count = Math.min(10, failing); k < count; k++) {
            String id = "bench-" + nonce + "-" + label + ProviderStub.FAIL_MARKER + ((long) k * failing / count);
            JsonNode job = s.api.getJson("/api/v1/jobs/" + id + "?queue=" + SEND_QUEUE);
            if (!"bounced_permanent".equals(job.path("state").asText()) || job.path("attempts").size() != 1
                    || job.path("provider_calls").asInt(1) != 1) {
                problems.add("failing job " + id + " is " + job.path("state").asText() + " after "
                        + job.path("attempts").size() + " attempts and " + job.path("provider_calls").asText()
                        + " provider calls");
            }
        }
        JsonNode mdb = s.cli.op("/deployment=mailroom.war/subsystem=ejb3/message-driven-bean=SendConsumer"
                + ":read-resource(include-runtime=true)");
        long peakInvocations = mdb.path("peak-concurrent-invocations").asLong(-1);
        long poolMax = mdb.path("pool-max-size").asLong(-1);

        double rate = n / sec;
        StringBuilder params = new StringBuilder();
        StringBuilder details = new StringBuilder();
        params.append("MAILROOM_CONSUMERS=").append(consumers).append(", peak concurrent onMessage ")
                .append(peakInvocations);
        details.append(failing == 0 ? n + " jobs" : n + " good jobs + " + failing + " failing (all bounced_permanent, one "
                + "provider call each)").append(String.format(Locale.ROOT, " in %.2f s; MDB pool max %d", sec, poolMax));
        if (failing > 0) {
            params.append(", ").append(n).append(" good + ").append(failing)
                    .append(" failing (every 10th: 422 invalid_recipient -> bounced_permanent); rate = good jobs/s");
        }
        if (stub != null && stub.latencyMillis() > 0) {
            int effective = (int) Math.min(consumers, poolMax > 0 ? poolMax : consumers);
            double ceiling = consumers / (latencyMs / 1000.0);
            params.append(String.format(Locale.ROOT, ", ceiling %d/%.2fs = %.0f/s (%.0f%%)", consumers,
                    latencyMs / 1000.0, ceiling, 100 * rate / ceiling));
            if (effective != consumers) {
                double effectiveCeiling = effective / (latencyMs / 1000.0);
                params.append(String.format(Locale.ROOT, ", pool-capped %d/%.2fs = %.0f/s (%.0f%%)", effective,
                        latencyMs / 1000.0, effectiveCeiling, 100 * rate / effectiveCeiling));
            }
        }
        if (stub != null) {
            details.append("; provider stub: ").append(stub.requests()).append(" requests, ")
                    .append(stub.distinctKeys()).append(" distinct idempotency keys, peak ").append(peakRequests)
                    .append(" concurrent requests");
        }
        if (timeline[2] > 0) {
            details.append(String.format(Locale.ROOT, "; per job (%d sampled): attempt start -> point of no return "
                    + "%.1f ms, -> provider answer %.1f ms; one consumer's cycle %.0f ms (peak onMessage / rate)",
                    (int) timeline[2], timeline[0], timeline[1], 1000.0 * Math.max(1, peakInvocations) / rate));
        }
        details.append("; ").append(cpu0.until(cpu1, total, sec));
        if (!perJob.isEmpty()) {
            details.append("; Hibernate per job: ").append(perJob);
            log(label + ": Hibernate per job: " + perJob);
        }
        details.append(String.format(Locale.ROOT, "; produced beforehand in %.1f s; load avg %s -> %s", produceSec,
                load0, load1));
        rows.add(new Row(figure + ", " + consumers + " consumers, " + s.db, rate, "jobs/s", rate / baselineRate,
                params.toString(), details.toString(), String.join("; ", problems)));
        log(String.format(Locale.ROOT, "%s: %d good jobs (+%d failing) in %.2f s = %.0f good jobs/s %s", label, n,
                failing, sec, rate, problems.isEmpty() ? "(all counted once)" : "PROBLEMS " + problems));
        if (!problems.isEmpty()) {
            fail(label + ": " + problems);
        }
        return new Result(rate, cpu0.msPerItem(cpu1, total), peakRequests, cpu0.dbMsPerItem(cpu1, total));
    }

    private static final String JPA_UNIT = "/deployment=mailroom.war/subsystem=jpa/hibernate-persistence-unit=mailroom.war#mailroom";
    private static final List<String> JPA_COUNTS = List.of("prepared-statement-count", "query-execution-count",
            "entity-insert-count", "entity-update-count", "entity-load-count", "flush-count",
            "successful-transaction-count", "session-open-count", "connect-count");

    /**
     * Mailroom's persistence unit's statistics (statements prepared, flushes, transactions...) when
     * {@code bench.jpa-stats} is on (switched on at the first call; empty otherwise). Covers every statement
     * Hibernate issues, native ones included; not the pool's validation query nor the sandbox provider's own
     * JDBC, if it had any.
     */
    private Map<String, Long> jpaStatistics(Running s) {
        if (!jpaStats) {
            return Map.of();
        }
        s.cli.op(JPA_UNIT + ":write-attribute(name=statistics-enabled, value=true)");
        JsonNode unit = s.cli.op(JPA_UNIT + ":read-resource(include-runtime=true)");
        Map<String, Long> out = new LinkedHashMap<>();
        for (String name : JPA_COUNTS) {
            out.put(name, unit.path(name).asLong(-1));
        }
        return out;
    }

    private static String perJob(Map<String, Long> before, Map<String, Long> after, int jobs) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long from = before.getOrDefault(e.getKey(), -1L);
            if (from >= 0 && e.getValue() >= 0) {
                b.append(b.length() == 0 ? "" : ", ").append(e.getKey().replace("-count", "")).append(' ')
                        .append(String.format(Locale.ROOT, "%.2f", (e.getValue() - from) / (double) jobs));
            }
        }
        return b.toString();
    }

    /** {@code count} good jobs; if {@code mixed}, after every 9th one a job the stub fails (count / 9 of them). */
    private List<String> jobs(String label, int count, boolean mixed) {
        List<String> out = new ArrayList<>(count + count / 9);
        for (int i = 0; i < count; i++) {
            out.add(job("bench-" + nonce + "-" + label + "-" + i));
            if (mixed && i % 9 == 8) {
                out.add(job("bench-" + nonce + "-" + label + ProviderStub.FAIL_MARKER + i / 9));
            }
        }
        return out;
    }

    private static String job(String id) {
        return pad("{\"schema_version\":1,\"message_id\":\"" + id + "\",\"from\":\"noreply@example.com\","
                + "\"to\":[\"alice@example.com\"],\"subject\":\"Bench " + id + "\",\"text\":\"Hi Alice. ", BODY_BYTES - 2)
                + "\"}";
    }

    /**
     * The two plain beans of naive-mdb.war ({@code dev.mailroom.bench.naive}), each on its own queue with mail.send's
     * settings, measured after Mailroom on the same server at the same concurrency.
     */
    enum PlainBean {
        /** What a team would write without Mailroom: one transaction, one insert, the provider call. */
        NAIVE("naive", "Naive MDB", NAIVE_QUEUE, "NaiveSendConsumer", "one JPA insert + provider call per job",
                "naive_mail rows, distinct message ids"),
        /** The cheapest bean that keeps the claim-before-call and acceptance-on-its-own rules: the floor. */
        GUARDED("guarded", "Guarded MDB", GUARDED_QUEUE, "GuardedSendConsumer", "claim + attempt committed, provider "
                + "call, acceptance committed, then the delivery: 3 commits per job",
                "guarded_job rows, accepted jobs, guarded_attempt rows, accepted attempts");

        final String id;
        final String figure;
        final String queue;
        final String ejb;
        final String what;
        /** What the count servlet's figures are, in its order. */
        final String counted;

        PlainBean(String id, String figure, String queue, String ejb, String what, String counted) {
            this.id = id;
            this.figure = figure;
            this.queue = queue;
            this.ejb = ejb;
            this.what = what;
            this.counted = counted;
        }
    }

    /** A plain bean's queue figures, from the broker (the plain beans have no API). */
    private Figures plainQueue(Running s, String queue) {
        JsonNode q = s.cli.op(MESSAGING + "/runtime-queue=" + queue + ":read-resource(include-runtime=true)");
        return new Figures(q.path("message-count").asLong(), q.path("delivering-count").asLong(),
                q.path("scheduled-count").asLong(), q.path("consumer-count").asLong(), 0);
    }

    /**
     * A plain bean's own counts for a message_id prefix, from the naive WAR's count servlet: naive, {@code rows
     * distinct} of naive_mail; guarded, {@code jobs accepted-jobs attempts accepted-attempts}. Each must equal the
     * number of jobs sent under the prefix.
     */
    private long[] plainCount(Running s, PlainBean bean, String prefix) {
        URI uri = URI.create(s.server.baseUrl().replaceFirst("/mailroom/?$", "") + "/naive-mdb/count?bean=" + bean.id
                + "&prefix=" + prefix);
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("GET " + uri + " answered " + r.statusCode() + ": " + r.body());
            }
            return counts(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + uri + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The count servlet's answer, numbers separated by blanks. */
    static long[] counts(String body) {
        String trimmed = body.trim();
        if (trimmed.isEmpty()) {
            throw new IllegalStateException("the count servlet answered nothing");
        }
        return Arrays.stream(trimmed.split("\\s+")).mapToLong(Long::parseLong).toArray();
    }

    /**
     * What is wrong with a plain bean's counts ({@link #plainCount}, the run's prefix, which includes the warm-up's,
     * and the warm-up's): every figure of the warm-up must be {@code warmup} and every figure of the run proper
     * {@code n}; null when all are.
     */
    static String countProblem(PlainBean bean, long[] all, long[] warm, int n, int warmup) {
        if (all.length == 0 || all.length != warm.length) {
            return "the count servlet answered " + Arrays.toString(all) + " and " + Arrays.toString(warm);
        }
        long[] run = new long[all.length];
        boolean right = true;
        for (int i = 0; i < all.length; i++) {
            run[i] = all[i] - warm[i];
            right &= run[i] == n && warm[i] == warmup;
        }
        if (right) {
            return null;
        }
        return bean.counted + ": " + Arrays.toString(run) + ", expected " + n + " each (warm-up " + Arrays.toString(warm)
                + ", expected " + warmup + " each)";
    }

    /**
     * The naive and the guarded bean on the current server, twice each, in the order naive, guarded, guarded, naive:
     * each run lasts only seconds on a machine whose load moves, and the later runs find more of the shared code
     * compiled; the balanced order cancels what drifts steadily, and the two runs of a bean are combined
     * ({@link Result#combined}). Two runs of N on a shared machine gave guarded / naive 0.60 and 0.98 with one run each.
     *
     * @return {naive, guarded}
     */
    private Result[] plainBeans(String provider, int consumers, ProviderStub stub) {
        Result naive1 = plainRun(PlainBean.NAIVE, provider, consumers, stub, n, 1);
        Result guarded1 = plainRun(PlainBean.GUARDED, provider, consumers, stub, n, 1);
        Result guarded2 = plainRun(PlainBean.GUARDED, provider, consumers, stub, n, 2);
        Result naive2 = plainRun(PlainBean.NAIVE, provider, consumers, stub, n, 2);
        return new Result[] {Result.combined(naive1, naive2), Result.combined(guarded1, guarded2)};
    }

    /**
     * A plain bean at the same concurrency on the same server and queue settings, measured as Mailroom is: warm-up,
     * pause its queue, produce the same jobs, resume (clock starts), until the queue holds nothing (clock stops). Then
     * its own counts ({@link #countProblem}: every job exactly once), nothing left, and (HTTP) exactly N requests with N
     * keys at the stub.
     */
    private Result plainRun(PlainBean bean, String provider, int consumers, ProviderStub stub, int n, int round) {
        Running s = current;
        String figure = bean.figure + " " + provider;
        // the round in the ids: neither run's prefix is a prefix of the other's
        String label = bean.id + "-" + (stub == null ? "sandbox" : "http" + stub.latencyMillis() + "ms") + "-c"
                + consumers + "-r" + round;
        List<String> problems = new ArrayList<>();
        s.jms.sendAll(bean.queue, jobs(label + "-w", warmup, false));
        awaitEmpty(bean.queue, () -> plainQueue(s, bean.queue),
                Duration.ofSeconds(60 + warmup * (stub == null ? 1 : stub.latencyMillis()) / 100));

        s.cli.op(MESSAGING + "/runtime-queue=" + bean.queue + ":pause");
        s.jms.sendAll(bean.queue, jobs(label, n, false));
        Figures loaded = plainQueue(s, bean.queue);
        if (loaded.depth != n) {
            problems.add("after producing " + n + " jobs on the paused queue its depth is " + loaded.depth);
        }
        if (stub != null) {
            stub.reset();
        }
        String load0 = loadAverage();
        Cpu cpu0 = Cpu.sample(s.server);
        long t0 = System.nanoTime();
        s.cli.op(MESSAGING + "/runtime-queue=" + bean.queue + ":resume");
        long timeoutNanos = Duration.ofSeconds(60).toNanos()
                + (long) n * Duration.ofMillis(stub == null ? 20 : Math.max(20, stub.latencyMillis())).toNanos();
        long t1;
        Duration nextPoll = POLL;
        while (true) {
            sleep(nextPoll);
            Figures f = plainQueue(s, bean.queue);
            t1 = System.nanoTime();
            nextPoll = nextPoll(n, f.depth, t1 - t0);
            if (f.depth == 0 && f.inFlight == 0 && f.scheduled == 0) {
                break;
            }
            if (t1 - t0 > timeoutNanos) {
                problems.add(String.format(Locale.ROOT, "TIMED OUT after %.0f s: %s", seconds(t1 - t0), f));
                break;
            }
        }
        double sec = seconds(t1 - t0);
        Cpu cpu1 = Cpu.sample(s.server);
        String load1 = loadAverage();
        // the warm-up's ids ("<label>-w-<i>") share the measured run's prefix ("<label>-<i>"): count both, subtract
        String problem = countProblem(bean, plainCount(s, bean, "bench-" + nonce + "-" + label + "-"),
                plainCount(s, bean, "bench-" + nonce + "-" + label + "-w-"), n, warmup);
        if (problem != null) {
            problems.add(problem);
        }
        int peak = -1;
        if (stub != null) {
            peak = stub.peakConcurrency();
            if (stub.requests() != n || stub.distinctKeys() != n || stub.unexpected() != 0) {
                problems.add("provider stub received " + stub.requests() + " requests with " + stub.distinctKeys()
                        + " distinct idempotency keys (" + stub.unexpected() + " unexpected), expected " + n);
            }
        }
        Figures end = plainQueue(s, bean.queue);
        if (end.depth != 0 || end.inFlight != 0 || end.scheduled != 0) {
            problems.add("queue not empty at the end: " + end);
        }
        JsonNode mdb = s.cli.op("/deployment=" + NAIVE_WAR + "/subsystem=ejb3/message-driven-bean=" + bean.ejb
                + ":read-resource(include-runtime=true)");
        double rate = n / sec;
        String details = String.format(Locale.ROOT, "%d jobs in %.2f s; peak concurrent onMessage %d, MDB pool max %d%s; "
                        + "%s; load avg %s -> %s", n, sec, mdb.path("peak-concurrent-invocations").asLong(-1),
                mdb.path("pool-max-size").asLong(-1), stub == null ? "" : "; provider stub: peak " + peak
                        + " concurrent requests", cpu0.until(cpu1, n, sec), load0, load1);
        rows.add(new Row(figure + ", " + consumers + " consumers, " + s.db, rate, "jobs/s", rate / baselineRate,
                "MAILROOM_CONSUMERS=" + consumers + " (maxSession and pool), " + bean.what + "; run " + round
                        + " of 2 (naive, guarded, guarded, naive)", details,
                String.join("; ", problems)));
        log(String.format(Locale.ROOT, "%s: %d jobs in %.2f s = %.0f jobs/s %s", label, n, sec, rate,
                problems.isEmpty() ? "(all counted once)" : "PROBLEMS " + problems));
        if (!problems.isEmpty()) {
            fail(label + ": " + problems);
        }
        return new Result(rate, cpu0.msPerItem(cpu1, n), peak);
    }

    /** Pads a prefix with ASCII text to {@code length} characters (bytes). */
    private static String pad(String prefix, int length) {
        StringBuilder b = new StringBuilder(length).append(prefix);
        String filler = "lorem ipsum dolor sit amet ";
        int i = 0;
        while (b.length() < length) {
            b.append(filler.charAt(i++ % filler.length()));
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ server

    private void startServer(String name, Map<String, String> env, int consumers, String db) {
        startServer(name, env, consumers, db, pg -> { });
    }

    /** As above; {@code prepare} gets the fresh PostgreSQL (not called on H2) before the server first boots on it. */
    private void startServer(String name, Map<String, String> env, int consumers, String db,
                             java.util.function.Consumer<PostgresServer> prepare) {
        Path cfgDir = home.resolve("standalone/configuration");
        try {
            // a fresh copy each start: management changes (the baseline queue) never reach standalone-mailroom.xml
            Files.writeString(cfgDir.resolve(CONFIG), withPlainQueues(Files.readString(cfgDir.resolve("standalone-mailroom.xml"))));
        } catch (IOException e) {
            throw new UncheckedIOException("no configured server at " + home + " (run mvn package -Dbuild.dir=...)", e);
        }
        Path dir = work.resolve(name);
        Map<String, String> environment = new LinkedHashMap<>(env);
        PostgresServer pg = null;
        if (POSTGRESQL.equals(db)) {
            // as the tests start it (it.support.PostgresServer): a fresh instance per server start, like H2's fresh file
            pg = PostgresServer.start(work.resolve(name + "-postgres"), false);
            try {
                prepare.accept(pg);
            } catch (RuntimeException e) {
                pg.close();
                throw e;
            }
            environment.put("MAILROOM_DB_URL", pg.jdbcUrl());
            environment.put("MAILROOM_DB_USER", pg.user());
            environment.put("MAILROOM_DB_PASSWORD", pg.password());
            environment.put("MAILROOM_DB_DRIVER", "postgresql");
        }
        WildFlyServer server = WildFlyServer.builder(home)
                .config(CONFIG)
                .portOffset(offset)
                .baseDir(dir)
                .contextRoot("/mailroom")
                .readinessUrl("http://127.0.0.1:" + (8080 + offset) + "/mailroom/api/v1/health")
                .bootTimeout(Duration.ofSeconds(600))
                .javaOpts((heapOpts + " " + serverJavaOpts.replace("{run}", name)).trim())
                .environment(environment)
                // peak-concurrent-invocations of the MDB: the concurrency actually reached
                .systemProperty("wildfly.ejb3.statistics-enabled", "true")
                .build();
        log("starting WildFly '" + name + "' (" + db + ") with " + env);
        current = new Running(server, null, null, null, pg, db);
        server.start();
        server.javaPid().ifPresent(pid -> writePid(Long.toString(pid)));
        JbossCli cli = openCli(server, dir.resolve("log/jboss-cli.log"));
        current = new Running(server, cli, JmsClient.forPort(server.artemisPort()), new ApiClient(server.baseUrl()), pg,
                db);
        awaitConsumers(SEND_QUEUE, consumers, () -> queue(current).consumers);
        // the plain beans beside Mailroom, same server, same concurrency (maxSession and pool from MAILROOM_CONSUMERS)
        cli.op("/deployment=" + NAIVE_WAR + ":add(content=[{url=\"" + naiveWar.toUri() + "\"}], enabled=true)",
                Duration.ofSeconds(600));
        for (PlainBean bean : PlainBean.values()) {
            awaitConsumers(bean.queue, consumers, () -> consumersOrNone(current, bean.queue));
        }
        log("WildFly '" + name + "' ready in " + server.lastBootTime().toMillis() + " ms, " + consumers
                + " consumers on " + SEND_QUEUE + ", " + NAIVE_QUEUE + " and " + GUARDED_QUEUE);
    }

    /**
     * A plain bean's queue's consumers, 0 while the broker has no such queue yet: it creates it when the bean's
     * sessions attach, which may come a moment after the deployment operation returned (a run failed on exactly that).
     */
    private long consumersOrNone(Running s, String queue) {
        try {
            return plainQueue(s, queue).consumers;
        } catch (IllegalStateException e) {
            if (String.valueOf(e.getMessage()).contains("WFLYCTL0216")) { // "Management resource ... not found"
                return 0;
            }
            throw e;
        }
    }

    private static void awaitConsumers(String queue, int expected, LongSupplier consumers) {
        // the MDB's sessions are the queue's consumers
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        long got = consumers.getAsLong();
        while (got != expected && System.nanoTime() < deadline) {
            sleep(Duration.ofMillis(250));
            got = consumers.getAsLong();
        }
        if (got != expected) {
            throw new IllegalStateException(queue + " has " + got + " consumers, expected " + expected);
        }
    }

    /**
     * The bench's copy of the configuration gets the plain beans' queues ({@code bench.naive}, {@code bench.guarded}):
     * a JNDI name like mail.send's and a copy of mail.send's address settings (a DLQ of their own), so all three beans
     * consume under the same queue settings.
     */
    static String withPlainQueues(String xml) {
        Matcher jms = Pattern.compile("(?m)^(\\s*)<external-jms-queue name=\"" + Pattern.quote(SEND_QUEUE) + "\"[^>]*/>")
                .matcher(xml);
        Matcher setting = Pattern.compile("(?m)^(\\s*)<address-setting name=\"" + Pattern.quote(SEND_QUEUE)
                + "\"[^>]*/>").matcher(xml);
        if (!jms.find() || !setting.find()) {
            throw new IllegalStateException("standalone-mailroom.xml has no external-jms-queue or address-setting for "
                    + SEND_QUEUE);
        }
        StringBuilder queues = new StringBuilder();
        StringBuilder settings = new StringBuilder();
        for (PlainBean bean : PlainBean.values()) {
            queues.append("\n").append(jms.group(1)).append("<external-jms-queue name=\"").append(bean.queue)
                    .append("\" entries=\"java:/jms/queue/").append(bean.queue).append("\" enable-amq1-prefix=\"false\"/>");
            settings.append("\n").append(setting.group()
                    .replace("name=\"" + SEND_QUEUE + "\"", "name=\"" + bean.queue + "\"")
                    .replace("\"DLQ." + SEND_QUEUE + "\"", "\"DLQ." + bean.queue + "\""));
        }
        StringBuilder b = new StringBuilder(xml);
        // the later position first, so the earlier one stays valid
        if (setting.end() > jms.end()) {
            b.insert(setting.end(), settings).insert(jms.end(), queues);
        } else {
            b.insert(jms.end(), queues).insert(setting.end(), settings);
        }
        return b.toString();
    }

    /** A CLI session that answers; a busy machine can make the first connect time out, so it is tried thrice. */
    private JbossCli openCli(WildFlyServer server, Path log) {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            JbossCli cli = new JbossCli(home, server.managementPort(), log);
            try {
                cli.op(":read-attribute(name=server-state)");
                return cli;
            } catch (RuntimeException e) {
                last = e;
                cli.close();
                log("jboss-cli session " + attempt + " of 3 failed: " + e.getMessage());
            }
        }
        throw last;
    }

    private void readPoolSettings() {
        // server-config/wildfly/mailroom.cli: SendConsumer's own pool, sized from MAILROOM_CONSUMERS at boot
        JsonNode pool = current.cli.op("/subsystem=ejb3/strict-max-bean-instance-pool=mailroom-send"
                + ":read-resource(include-runtime=true)");
        JsonNode size = current.cli.op("/subsystem=ejb3/strict-max-bean-instance-pool=mailroom-send"
                + ":read-attribute(name=max-pool-size,resolve-expressions=true)");
        mdbPoolSize = size.asInt();
        String note = "MDB instance pool mailroom-send: max-pool-size " + pool.path("max-pool-size").asText() + " = "
                + mdbPoolSize + " on this start, derive-size " + pool.path("derive-size").asText()
                + " (one pool per MDB, sized from MAILROOM_CONSUMERS)";
        JsonNode ds = current.cli.op("/subsystem=datasources/data-source=MailroomDS:read-attribute(name=max-pool-size"
                + ",resolve-expressions=true)");
        note += "; MailroomDS max-pool-size " + ds.asText();
        notes.add(note);
        log(note);
    }

    private void stopCurrent() {
        Running s = current;
        current = null;
        if (s == null) {
            return;
        }
        if (s.jms != null) {
            try {
                s.jms.close();
            } catch (RuntimeException ignored) {
                // server may be gone
            }
        }
        if (s.cli != null) {
            s.cli.close();
        }
        try {
            s.server.close();
        } finally {
            writePid(null);
            if (s.pg != null) {
                s.pg.close();
            }
        }
    }

    private void writePid(String pid) {
        if (pidFile == null) {
            return;
        }
        try {
            if (pid == null) {
                Files.deleteIfExists(pidFile);
            } else {
                Files.createDirectories(pidFile.getParent());
                Files.writeString(pidFile, pid + "\n");
            }
        } catch (IOException e) {
            log("could not write " + pidFile + ": " + e);
        }
    }

    private void prepareWorkDir() {
        try {
            if (Files.exists(work)) {
                try (Stream<Path> walk = Files.walk(work)) {
                    for (Path p : walk.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                        Files.delete(p);
                    }
                }
            }
            Files.createDirectories(work);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare " + work, e);
        }
    }

    // ------------------------------------------------------------------ observation

    private record Figures(long depth, long inFlight, long scheduled, long consumers, long dlqDepth) {
    }

    private Figures queue(Running s) {
        JsonNode all = s.api.getJson("/api/v1/queues");
        for (JsonNode q : all) {
            if (SEND_QUEUE.equals(q.path("queue").asText())) {
                return new Figures(q.path("depth").asLong(), q.path("in_flight").asLong(), q.path("scheduled").asLong(),
                        q.path("consumers").asLong(), q.path("dead_letter_depth").asLong());
            }
        }
        throw new IllegalStateException("GET /api/v1/queues does not list " + SEND_QUEUE + ": " + all);
    }

    /**
     * Polling costs the server CPU (GET /api/v1/queues reads the broker through the management model), so it polls
     * rarely while much is left and every POLL near the end: half the estimated remaining time, within [POLL, 2 s].
     */
    private static Duration nextPoll(int total, long depth, long elapsedNanos) {
        long done = total - depth;
        if (done <= 0 || depth <= 0) {
            return POLL;
        }
        double remainingNanos = elapsedNanos * ((double) depth / done);
        long millis = (long) (remainingNanos / 2 / 1e6);
        return Duration.ofMillis(Math.max(POLL.toMillis(), Math.min(2000, millis)));
    }

    /**
     * Reads the timelines of up to {@code samples} jobs evenly spread over the run from GET /api/v1/jobs/{id}; checks
     * each is sent_to_provider after exactly one attempt and one provider call; returns the mean ms from the attempt's
     * start (claim committed next) to its point of no return, and from there to the provider's answer.
     */
    private double[] sampleTimelines(Running s, String label, int n, int samples, List<String> problems) {
        int count = Math.min(samples, n);
        double toIrrevocable = 0;
        double providerCall = 0;
        int measured = 0;
        for (int k = 0; k < count; k++) {
            String id = "bench-" + nonce + "-" + label + "-" + ((long) k * n / count);
            JsonNode job = s.api.getJson("/api/v1/jobs/" + id + "?queue=" + SEND_QUEUE);
            JsonNode attempts = job.path("attempts");
            if (!"sent_to_provider".equals(job.path("state").asText()) || attempts.size() != 1
                    || job.path("provider_calls").asInt(1) != 1) {
                problems.add("job " + id + " is " + job.path("state").asText() + " after " + attempts.size()
                        + " attempts and " + job.path("provider_calls").asText() + " provider calls");
                continue;
            }
            JsonNode a = attempts.get(0);
            try {
                Instant started = Instant.parse(a.path("started_at").asText());
                Instant irrevocable = Instant.parse(a.path("irrevocable_at").asText());
                Instant finished = Instant.parse(a.path("finished_at").asText());
                toIrrevocable += Duration.between(started, irrevocable).toNanos() / 1e6;
                providerCall += Duration.between(irrevocable, finished).toNanos() / 1e6;
                measured++;
            } catch (RuntimeException unreadable) {
                // a timestamp missing or in another format: no timing from this job
            }
        }
        return measured == 0 ? new double[] {Double.NaN, Double.NaN, 0}
                : new double[] {toIrrevocable / measured, providerCall / measured, measured};
    }

    private static void awaitEmpty(String queue, Supplier<Figures> figures, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Figures f = figures.get();
        while ((f.depth != 0 || f.inFlight != 0 || f.scheduled != 0) && System.nanoTime() < deadline) {
            sleep(POLL);
            f = figures.get();
        }
        if (f.depth != 0 || f.inFlight != 0 || f.scheduled != 0) {
            throw new IllegalStateException(queue + " not empty after the warm-up: " + f);
        }
    }

    /** Mailroom's counters for mail.send from Prometheus: {@code jobs|<outcome>} and {@code attempts|<status>}. */
    private Map<String, Double> counters() {
        return countersIn(prometheus());
    }

    /** {@link #counters} read from a Prometheus text: the send queue's, summed over their other labels. */
    static Map<String, Double> countersIn(String prometheusText) {
        Map<String, Double> out = new HashMap<>();
        for (String line : prometheusText.split("\n")) {
            Matcher m = PROM_LINE.matcher(line);
            if (!m.find()) {
                continue;
            }
            Map<String, String> labels = new HashMap<>();
            Matcher l = LABEL.matcher(m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            if (!SEND_QUEUE.equals(labels.get("queue"))) {
                continue;
            }
            String key = m.group(1).equals("mailroom_jobs_total") ? "jobs|" + labels.get("outcome")
                    : "attempts|" + labels.get("status");
            out.merge(key, Double.parseDouble(m.group(3)), Double::sum);
        }
        return out;
    }

    /** Rows retention removed so far, by kind ({@code mailroom_jobs_retention_removed_total{kind}}). */
    private Map<String, Long> retentionRemoved() {
        return RetentionPurge.removed(prometheus());
    }

    /** The management port's Prometheus page. */
    private String prometheus() {
        URI uri = URI.create("http://127.0.0.1:" + (9990 + offset) + "/prometheus");
        HttpResponse<String> r;
        try {
            r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + uri + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + uri + " answered " + r.statusCode());
        }
        return r.body();
    }

    private void awaitCounter(Map<String, Double> before, String kind, String name, long expected, Duration timeout) {
        String key = kind + "|" + name;
        long deadline = System.nanoTime() + timeout.toNanos();
        long got;
        do {
            got = Math.round(counters().getOrDefault(key, 0.0) - before.getOrDefault(key, 0.0));
            if (got >= expected) {
                return;
            }
            sleep(Duration.ofMillis(100));
        } while (System.nanoTime() < deadline);
        log("counter " + key + " reached +" + got + " of +" + expected + " within " + timeout.toSeconds() + " s");
    }

    private static Map<String, Long> delta(Map<String, Double> before, Map<String, Double> after) {
        Map<String, Long> d = new LinkedHashMap<>();
        for (String k : after.keySet()) {
            d.put(k, Math.round(after.get(k) - before.getOrDefault(k, 0.0)));
        }
        return d;
    }

    /**
     * CPU time from /proc: the server JVM's user+system ticks and the whole machine's busy and iowait ticks
     * (USER_HZ, 100 per second on Linux).
     */
    private record Cpu(long serverTicks, long machineTotal, long machineIdle, long machineIowait, long dbTicks) {

        static Cpu sample(WildFlyServer server) {
            long pid = server.javaPid().orElse(-1);
            long serverTicks = pid > 0 ? ProcessCpu.cpuTicks(pid).orElse(-1) : -1; // -1: not on Linux
            // PostgreSQL, when the bench started it: its processes are this JVM's descendants (none on H2)
            long dbTicks = ProcessCpu.descendantTicks("postgres").orElse(-1);
            long total = 0;
            long idle = 0;
            long iowait = 0;
            try {
                String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                for (int i = 1; i < f.length && i <= 8; i++) {
                    total += Long.parseLong(f[i]);
                }
                idle = Long.parseLong(f[4]);
                iowait = Long.parseLong(f[5]);
            } catch (IOException | RuntimeException ignored) {
                // not on Linux
            }
            return new Cpu(serverTicks, total, idle, iowait, dbTicks);
        }

        /** PostgreSQL's CPU ms per item between this and a later sample (NaN with no PostgreSQL). */
        double dbMsPerItem(Cpu later, int items) {
            return dbTicks > 0 && later.dbTicks > 0 ? 10.0 * (later.dbTicks - dbTicks) / items : Double.NaN;
        }

        /** Server CPU ms per item between this and a later sample (NaN when /proc cannot be read). */
        double msPerItem(Cpu later, int items) {
            return serverTicks >= 0 && later.serverTicks >= 0 ? 10.0 * (later.serverTicks - serverTicks) / items
                    : Double.NaN;
        }

        /** "server CPU 12.3 ms/item (87% of 2 cores); machine busy 95%, iowait 2%" between this and a later sample. */
        String until(Cpu later, int items, double seconds) {
            StringBuilder b = new StringBuilder();
            int cpus = Runtime.getRuntime().availableProcessors();
            if (serverTicks >= 0 && later.serverTicks >= 0) {
                double cpuSec = (later.serverTicks - serverTicks) / 100.0;
                b.append(String.format(Locale.ROOT, "server CPU %.1f ms/item (%.0f%% of %d cores)", 1000 * cpuSec / items,
                        100 * cpuSec / seconds / cpus, cpus));
            }
            if (!Double.isNaN(dbMsPerItem(later, items))) {
                b.append(String.format(Locale.ROOT, "; PostgreSQL CPU %.1f ms/item", dbMsPerItem(later, items)));
            }
            long total = later.machineTotal - machineTotal;
            if (total > 0) {
                long idleTicks = later.machineIdle - machineIdle;
                long ioTicks = later.machineIowait - machineIowait;
                b.append(b.length() > 0 ? "; " : "").append(String.format(Locale.ROOT, "machine busy %.0f%%, iowait %.0f%%",
                        100.0 * (total - idleTicks - ioTicks) / total, 100.0 * ioTicks / total));
            }
            return b.toString();
        }
    }

    // ------------------------------------------------------------------ report

    private record Row(String figure, double rate, String unit, double ratio, String params, String details,
                       String problems) {
    }

    private static final class Consumed {
        int received;
        double seconds;
        int duplicates;
        double commitP50Ms;
        double commitP99Ms;
        final List<String> problems = new ArrayList<>();
    }

    private record Running(WildFlyServer server, JbossCli cli, JmsClient jms, ApiClient api, PostgresServer pg,
                           String db) {
    }

    /**
     * One measured run: jobs (messages) per second, server CPU ms per job, peak concurrent requests at the stub, and
     * PostgreSQL's CPU ms per job (its processes together; NaN on H2 or where not measured).
     */
    record Result(double rate, double cpuMs, int peakAtProvider, double dbCpuMs) {

        Result(double rate, double cpuMs, int peakAtProvider) {
            this(rate, cpuMs, peakAtProvider, Double.NaN);
        }

        /**
         * Two runs of the same N as one: the rate of both together (2N over the sum of their times, the harmonic
         * mean), the mean CPU per job (server's and database's), the higher peak.
         */
        static Result combined(Result a, Result b) {
            return new Result(2 / (1 / a.rate + 1 / b.rate), (a.cpuMs + b.cpuMs) / 2,
                    Math.max(a.peakAtProvider, b.peakAtProvider), (a.dbCpuMs + b.dbCpuMs) / 2);
        }
    }

    /** Mailroom and the two plain beans at one provider, concurrency and database, measured on the same server. */
    record Point(String db, String provider, long latencyMs, int consumers, Result mailroom, Result naive,
                 Result guarded) {
        /** Mailroom / naive. */
        double ratio() {
            return mailroom.rate() / naive.rate();
        }

        /** Guarded / naive: what the two rules cost at their cheapest. */
        double guardedRatio() {
            return guarded.rate() / naive.rate();
        }

        /** Mailroom / guarded: what Mailroom costs beyond that floor. */
        double mailroomToGuarded() {
            return mailroom.rate() / guarded.rate();
        }
    }

    private String report(Duration total) {
        StringBuilder b = new StringBuilder();
        b.append('\n').append("=".repeat(110)).append('\n');
        b.append(String.format(Locale.ROOT, "Mailroom send benchmark, N=%d (warm-up %d per run), %s%n", n, warmup,
                Instant.now()));
        b.append(machine()).append('\n');
        b.append(String.format(Locale.ROOT, "%-46s %13s  %6s  %s%n", "figure", "rate", "ratio", "parameters"));
        b.append("-".repeat(110)).append('\n');
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%-46s %6.0f %-6s  %6.3f  %s%n", r.figure, r.rate, r.unit, r.ratio,
                    r.params));
            b.append("      ").append(r.details).append('\n');
            if (!r.problems.isEmpty()) {
                b.append("      PROBLEMS: ").append(r.problems).append('\n');
            }
        }
        b.append("-".repeat(110)).append('\n');
        b.append("ratio = rate / broker ceiling (one-by-one transacted consumption on the same broker, same address "
                + "settings, same run)\n");
        for (String note : notes) {
            b.append("note: ").append(note).append('\n');
        }
        b.append(String.format(Locale.ROOT, "total %.0f s; %s%n", total.toMillis() / 1000.0,
                failures.isEmpty() ? "every job of every run was counted exactly once" : "FAILED: " + failures));
        b.append("=".repeat(110)).append('\n');
        // one figure a line, in a fixed form scripts can read, last in the output
        for (String line : summaryLines(points, checks)) {
            b.append(line).append('\n');
        }
        return b.toString();
    }

    /**
     * {@code CPU per job, sandbox, 4 consumers, H2: 20.3}, {@code Mailroom / naive MDB, ...: 0.45}, the checks, then
     * the plain beans' lines ({@code CPU per job, naive MDB, ...}, {@code CPU per job, guarded MDB, ...}, {@code
     * Guarded MDB / naive MDB, ...}, {@code Mailroom / guarded MDB, ...}): after the older lines, which stay as they
     * were, since scripts read them.
     */
    static List<String> summaryLines(List<Point> points, List<String> checks) {
        List<String> out = new ArrayList<>();
        perPoint(out, points, "CPU per job", "%.1f", p -> p.mailroom().cpuMs());
        perPoint(out, points, "Mailroom / naive MDB", "%.2f", Point::ratio);
        out.addAll(checks);
        perPoint(out, points, "CPU per job, naive MDB", "%.1f", p -> p.naive().cpuMs());
        perPoint(out, points, "CPU per job, guarded MDB", "%.1f", p -> p.guarded().cpuMs());
        perPoint(out, points, "Guarded MDB / naive MDB", "%.2f", Point::guardedRatio);
        perPoint(out, points, "Mailroom / guarded MDB", "%.2f", Point::mailroomToGuarded);
        return out;
    }

    /** One summary line per point: {@code <what>, <provider>, <n> consumers, <database>: <value>}. */
    private static void perPoint(List<String> out, List<Point> points, String what, String valueFormat,
                                 java.util.function.ToDoubleFunction<Point> value) {
        for (Point p : points) {
            out.add(String.format(Locale.ROOT, "%s, %s, %d consumers, %s: " + valueFormat, what, p.provider(),
                    p.consumers(), p.db(), value.applyAsDouble(p)));
        }
    }

    /**
     * The table between the markers in bench/README.md (bench.readme) rewritten from this run, and
     * the chart (bench.chart) beside it.
     */
    private void writeReadmeAndChart(Instant begin) {
        if (points.isEmpty()) {
            return; // a run of the history figure alone: no table, and the chart stays as it was
        }
        String title = String.format(Locale.ROOT, "Mailroom vs a naive and a guarded MDB, N=%d, %s, load avg %s "
                + "(commit %s)", n,
                begin.toString().substring(0, 16).replace('T', ' ') + " UTC", loadAverage(), commit);
        try {
            SendChart.write(chart, points, title);
            log("chart written to " + chart);
        } catch (RuntimeException e) {
            fail("could not write the chart " + chart + ": " + e);
        }
        if (readme == null) {
            return;
        }
        String beginMarker = "<!-- bench/run.sh writes from here -->";
        String endMarker = "<!-- bench/run.sh writes up to here -->";
        try {
            String text = Files.readString(readme);
            int a = text.indexOf(beginMarker);
            int z = text.indexOf(endMarker);
            if (a < 0 || z < a) {
                log("no markers in " + readme + ": table not written");
                return;
            }
            Path dir = readme.getParent();
            String chartRef = chart.startsWith(dir) ? dir.relativize(chart).toString() : chart.toString();
            String block = beginMarker + "\n" + readmeTable(title) + "\n![throughput against concurrency](" + chartRef
                    + ")\n\n";
            Files.writeString(readme, text.substring(0, a) + block + text.substring(z));
            log("table written to " + readme);
        } catch (IOException e) {
            fail("could not write " + readme + ": " + e);
        }
    }

    /**
     * The generated table: per provider, concurrency and database, the rates, the ratios and the CPU per job of
     * Mailroom, the naive MDB and the guarded MDB (the floor of the guarantees).
     */
    static String tableRows(List<Point> points) {
        StringBuilder b = new StringBuilder();
        b.append("| provider | concurrency | database | jobs/s Mailroom / naive / guarded | Mailroom / naive "
                + "| guarded / naive | Mailroom / guarded | CPU ms/job Mailroom / naive / guarded "
                + "| peak calls at the provider, Mailroom / naive / guarded |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---:|---:|\n");
        for (Point p : points) {
            b.append(String.format(Locale.ROOT, "| %s | %d | %s | %.0f / %.0f / %.0f | %.2f | %.2f | %.2f "
                            + "| %.1f / %.1f / %.1f | %s |%n",
                    p.provider(), p.consumers(), p.db(), p.mailroom().rate(), p.naive().rate(), p.guarded().rate(),
                    p.ratio(), p.guardedRatio(), p.mailroomToGuarded(), p.mailroom().cpuMs(), p.naive().cpuMs(),
                    p.guarded().cpuMs(), p.latencyMs() == 0 ? "-" : p.mailroom().peakAtProvider() + " / "
                            + p.naive().peakAtProvider() + " / " + p.guarded().peakAtProvider()));
        }
        return b.toString();
    }

    private String readmeTable(String title) {
        StringBuilder b = new StringBuilder();
        b.append("Generated by `bash bench/run.sh ").append(n).append("`: ").append(title).append(". ")
                .append(failures.isEmpty() ? "Every job of every run was counted exactly once."
                        : "**FAILED**: " + String.join("; ", failures)).append("\n\n");
        b.append(tableRows(points));
        if (!Double.isNaN(baselineRate)) {
            b.append(String.format(Locale.ROOT, "%nBroker ceiling (one transacted consumer, commit per message, same "
                    + "address settings): %.0f msg/s.%n", baselineRate));
        }
        for (String note : notes) {
            if (note.startsWith("permanent failures")) {
                b.append("\n").append(note).append('.').append("\n");
            }
        }
        b.append("\nSummary lines (the end of the output):\n\n");
        for (String line : summaryLines(points, checks)) {
            b.append("    ").append(line).append('\n');
        }
        return b.toString();
    }

    private void printMachine() {
        log(machine());
    }

    private String machine() {
        String cpu = firstMatching(Path.of("/proc/cpuinfo"), "model name").replaceFirst("^[^:]*:\\s*", "");
        String mem = firstMatching(Path.of("/proc/meminfo"), "MemTotal").replaceFirst("^[^:]*:\\s*", "");
        String disk;
        try {
            FileStore store = Files.getFileStore(work);
            disk = store.name() + " (" + store.type() + ", " + store.getTotalSpace() / (1L << 30) + " GiB)";
        } catch (IOException e) {
            disk = "?";
        }
        return String.format(Locale.ROOT, "machine: %d cpus (%s), memory %s, disk %s, Java %s (%s), %s %s; "
                        + "load avg %s", Runtime.getRuntime().availableProcessors(), cpu, mem, disk,
                System.getProperty("java.version"), System.getProperty("java.vm.name"), System.getProperty("os.name"),
                System.getProperty("os.version"), loadAverage());
    }


    private static String firstMatching(Path file, String prefix) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.filter(l -> l.startsWith(prefix)).findFirst().orElse("?");
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    // ------------------------------------------------------------------ small things

    private void fail(String what) {
        failures.add(what);
        log("FAILURE: " + what);
    }

    private static List<Integer> ints(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(Integer.parseInt(s.trim()));
            }
        }
        return out;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static String abbreviate(String s) {
        return s == null ? "null" : s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void log(String msg) {
        System.out.println("[bench] " + msg);
        System.out.flush();
    }
}
