package dev.mailroom.bench;

import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.WildFlyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scale-out, side by side: the production topology on loopback (a replicated Artemis pair
 * made by server-config/artemis, one PostgreSQL, Mailroom nodes configured by configure.sh with
 * {@code MAILROOM_BROKER_URL}, 4 consumers each) sends N jobs with one node, then N jobs with two nodes, and the
 * rates are compared. First with the HTTP provider against a stub that answers after 200 ms (so the nodes wait
 * on the provider, not on this machine's two cores: the target is two nodes at 1.7 times one node's rate), then
 * with the sandbox provider (no latency: what a node's CPU and the shared broker and database allow), reported as
 * it is.
 *
 * <p>A rate is N divided by the time from the first job sent to the broker until the database holds all N as
 * {@code sent_to_provider}; each measured run follows an untimed warm-up of {@value #WARMUP} jobs through the same
 * nodes. Every run checks every job was sent exactly once (the stub saw N distinct idempotency keys in N
 * requests; the database N jobs {@code sent_to_provider}). Exit code 0: every job counted once and the 200 ms
 * figure at least {@value #TARGET}; 1: not; 2: the bench itself broke. Run by {@code bash bench/scaleout.sh}.
 */
public final class ScaleOutBench {

    static final int WARMUP = 40;
    static final double TARGET = 1.7;
    static final int CONSUMERS = 4;
    static final long LATENCY_MS = Long.getLong("bench.latency-ms", 200);

    private final Path serverHome;
    private final Path work;
    private final int offset;
    private final int n;
    private ArtemisBroker.Pair pair;
    private PostgresServer postgres;
    private final List<WildFlyServer> running = new ArrayList<>();
    private int run;

    private ScaleOutBench(Path serverHome, Path work, int offset, int n) {
        this.serverHome = serverHome;
        this.work = work;
        this.offset = offset;
        this.n = n;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 600;
        ScaleOutBench bench = new ScaleOutBench(Path.of(System.getProperty("bench.server-home")),
                Path.of(System.getProperty("bench.work-dir")), Integer.getInteger("bench.port-offset", 400), n);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            bench.stopAll();
            bench.closeInfrastructure();
        }, "scaleout-stop"));
        int rc;
        try {
            rc = bench.measure();
        } catch (Exception | Error e) {
            e.printStackTrace();
            rc = 2;
        } finally {
            bench.stopAll();
            bench.closeInfrastructure();
        }
        System.exit(rc);
    }

    private int measure() throws Exception {
        Files.createDirectories(work);
        System.setProperty("mailroom.it.work-dir", work.toString());
        log("N=" + n + " jobs per run, " + CONSUMERS + " consumers per node, stub latency " + LATENCY_MS + " ms, port offset "
                + offset + "; starting the Artemis pair and PostgreSQL");
        pair = ArtemisBroker.startPair(work, offset);
        postgres = PostgresServer.start(work, false);
        ItEnvironment.configureRemote(serverHome, pair.brokerUrl());
        List<String> table = new ArrayList<>();
        boolean ok = true;
        double httpRatio;
        try (ProviderStub stub = new ProviderStub(LATENCY_MS, 256)) {
            double[] self = stub.selfCheck(20);
            log(String.format(Locale.ROOT, "stub latency as a client sees it: p50 %.1f ms, max %.1f ms", self[0], self[1]));
            Map<String, String> http = new LinkedHashMap<>();
            http.put("MAILROOM_PROVIDER", "http");
            http.put("MAILROOM_HTTP_PROFILE", "generic");
            http.put("MAILROOM_HTTP_BASE_URL", stub.baseUrl());
            double[] rates = scaleOut("http " + LATENCY_MS + " ms", http, stub);
            httpRatio = rates[1] / rates[0];
            ok &= rates[2] == 0;
            table.add(row("HTTP provider, stub " + LATENCY_MS + " ms", rates, httpRatio >= TARGET ? "pass (>= " + TARGET + ")"
                    : "FAIL (< " + TARGET + ")"));
        }
        double[] sandbox = scaleOut("sandbox", Map.of("MAILROOM_PROVIDER", "sandbox"), null);
        ok &= sandbox[2] == 0;
        table.add(row("sandbox provider (0 ms)", sandbox, "reported as it is"));
        String header = String.format(Locale.ROOT, "%-28s %12s %12s %7s  %s", "provider", "1 node /s", "2 nodes /s", "ratio", "");
        System.out.println();
        System.out.println(header);
        table.forEach(System.out::println);
        Files.writeString(work.resolve("results.txt"), header + "\n" + String.join("\n", table) + "\n");
        return ok && httpRatio >= TARGET ? 0 : 1;
    }

    private static String row(String what, double[] rates, String verdict) {
        return String.format(Locale.ROOT, "%-28s %12.1f %12.1f %7.2f  %s", what, rates[0], rates[1], rates[1] / rates[0],
                verdict);
    }

    /** One node's rate, then two nodes' (the first node and a second one), and how many jobs were not counted once. */
    private double[] scaleOut(String label, Map<String, String> providerEnv, ProviderStub stub) throws Exception {
        WildFlyServer a = node(label.replace(' ', '-') + "-a", offset, providerEnv);
        a.start();
        running.add(a);
        runJobs(label + " warm-up", WARMUP, stub);
        double[] one = runJobs(label + ", 1 node", n, stub);
        WildFlyServer b = node(label.replace(' ', '-') + "-b", offset + 50, providerEnv);
        b.start();
        running.add(b);
        runJobs(label + " warm-up", WARMUP, stub);
        double[] two = runJobs(label + ", 2 nodes", n, stub);
        stopAll();
        return new double[] {one[0], two[0], one[1] + two[1]};
    }

    /** Sends {@code count} jobs and waits until all are sent: {jobs/s, jobs not counted exactly once}. */
    private double[] runJobs(String label, int count, ProviderStub stub) throws Exception {
        String prefix = "scaleout-" + (++run) + "-" + System.currentTimeMillis() + "-";
        if (stub != null) {
            stub.reset();
        }
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = prefix + i;
            bodies.add("{\"schema_version\":1,\"message_id\":\"" + id + "\",\"idempotency_key\":\"" + id
                    + "\",\"from\":\"noreply@example.com\",\"to\":[\"rcpt-" + i + "@example.com\"],\"subject\":\"s " + id
                    + "\",\"text\":\"" + "x".repeat(900) + "\"}");
        }
        long t0 = System.nanoTime();
        try (JmsClient producer = pair.producerClient()) {
            producer.sendAll("mail.send", bodies);
        }
        long deadline = t0 + Duration.ofSeconds(Math.max(120, count)).toNanos();
        long sent;
        while ((sent = sentToProvider(prefix)) < count && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double rate = sent / seconds;
        long notOnce = count - sent;
        String detail = "";
        if (stub != null) {
            notOnce += Math.abs(stub.requests() - stub.distinctKeys()) + Math.abs(count - stub.distinctKeys());
            detail = ", stub " + stub.requests() + " requests / " + stub.distinctKeys() + " keys, peak concurrency "
                    + stub.peakConcurrency();
        }
        log(String.format(Locale.ROOT, "%s: %d of %d sent in %.1f s = %.1f jobs/s%s", label, sent, count, seconds, rate, detail));
        return new double[] {rate, notOnce};
    }

    private long sentToProvider(String prefix) throws Exception {
        try (Connection c = postgres.connect();
             PreparedStatement s = c.prepareStatement(
                     "select count(*) from mail_job where message_id like ? and state = 'sent_to_provider'")) {
            s.setString(1, prefix + "%");
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    private WildFlyServer node(String id, int nodeOffset, Map<String, String> providerEnv) {
        Map<String, String> env = new LinkedHashMap<>(providerEnv);
        env.put("MAILROOM_NODE_ID", id);
        env.put("MAILROOM_CONSUMERS", Integer.toString(CONSUMERS));
        env.put("MAILROOM_DB_URL", postgres.jdbcUrl());
        env.put("MAILROOM_DB_USER", postgres.user());
        env.put("MAILROOM_DB_PASSWORD", postgres.password());
        env.put("MAILROOM_DB_DRIVER", "postgresql");
        env.put("MAILROOM_BROKER_USER", ArtemisBroker.MAILROOM_USER);
        env.put("MAILROOM_BROKER_PASSWORD", ArtemisBroker.MAILROOM_PASSWORD);
        env.put("MAILROOM_BROKER_CONSOLE_URLS", pair.consoleUrls());
        return WildFlyServer.builder(serverHome)
                .config(ItEnvironment.REMOTE_CONFIG)
                .portOffset(nodeOffset)
                .baseDir(work.resolve(id))
                .contextRoot("/mailroom")
                .readinessUrl("http://127.0.0.1:" + (8080 + nodeOffset) + "/mailroom" + ItEnvironment.HEALTH_PATH)
                .bootTimeout(Duration.ofSeconds(600))
                .environment(env)
                .build();
    }

    private synchronized void stopAll() {
        for (WildFlyServer s : running) {
            try {
                s.stop(Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                log("stopping " + s + " failed: " + e);
            }
        }
        running.clear();
    }

    private synchronized void closeInfrastructure() {
        if (postgres != null) {
            postgres.close();
            postgres = null;
        }
        if (pair != null) {
            pair.close();
            pair = null;
        }
    }

    private static void log(String line) {
        System.err.println("[scaleout] " + line);
    }
}
