package dev.mailroom.bench;

import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.LibertyServer;
import dev.mailroom.it.support.ProcessCpu;
import dev.mailroom.it.support.WildFlyServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The same {@code mailroom.war} on WildFly and on Open Liberty, side by side in one run: CPU per job with the sandbox
 * provider, 4 consumers, each server on H2 (its default), {@code N} jobs after a warm-up of {@code N/5}. WildFly's
 * figure is its process, its embedded broker included; Open Liberty's is its process plus the standalone Artemis
 * broker it needs ({@code create-broker.sh}'s single role), so both are the cost of the same work with a broker.
 * Started by {@code bench/run.sh} when {@code BENCH_SERVERS} names both (bench/README.md); every job must be counted
 * sent once by the server's own metrics, else the exit code is 1.
 */
public final class ServerCpuBench {

    static final String QUEUE = "mail.send";
    static final int CONSUMERS = 4;
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(15);

    /** One server's run: jobs measured, CPU seconds by process kind, wall seconds. */
    record Figure(String server, int jobs, double cpuSeconds, String byKind, double wallSeconds) {
        double msPerJob() {
            return 1000 * cpuSeconds / jobs;
        }

        String line() {
            return String.format(Locale.ROOT, "CPU per job, sandbox, %d consumers, H2, %s: %.1f ms (%s; %.0f jobs/s)",
                    CONSUMERS, server, msPerJob(), byKind, jobs / wallSeconds);
        }
    }

    private final int n;
    private final int offset = Integer.getInteger("bench.port-offset", 300);
    private final Path work = Path.of(System.getProperty("bench.work-dir", "target-bench/bench-work")).resolve("servers");
    private final ProcessCpu cpu = ProcessCpu.start();

    private ServerCpuBench(int n) {
        this.n = n;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        List<String> servers = List.of(System.getProperty("bench.servers", "wildfly,liberty").split(","));
        ServerCpuBench bench = new ServerCpuBench(n);
        List<Figure> figures = new ArrayList<>();
        try {
            for (String s : servers) {
                figures.add(switch (s.trim()) {
                    case "wildfly" -> bench.onWildFly();
                    case "liberty" -> bench.onLiberty();
                    default -> throw new IllegalArgumentException("bench.servers: unknown server '" + s
                            + "' (wildfly, liberty)");
                });
            }
        } catch (RuntimeException e) {
            System.err.println("[servers] failed: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.out.println();
        System.out.println("[servers] load average at the end: " + ProcessCpu.loadAverage());
        figures.forEach(f -> System.out.println(f.line()));
        if (figures.size() == 2) {
            System.out.printf(Locale.ROOT, "CPU per job, %s / %s, sandbox, %d consumers, H2: %.2f%n",
                    figures.get(1).server(), figures.get(0).server(), CONSUMERS,
                    figures.get(1).msPerJob() / figures.get(0).msPerJob());
        }
        System.exit(0);
    }

    private Figure onWildFly() {
        Path home = Path.of(System.getProperty("bench.server-home"));
        WildFlyServer server = WildFlyServer.builder(home)
                .config("standalone-mailroom.xml")
                .portOffset(offset)
                .baseDir(work.resolve("wildfly"))
                .contextRoot("/mailroom")
                .readinessUrl("http://127.0.0.1:" + (8080 + offset) + "/mailroom/api/v1/health")
                .bootTimeout(Duration.ofSeconds(600))
                .javaOpts("-Xms256m -Xmx768m")
                .environment(Map.of("MAILROOM_PROVIDER", "sandbox", "MAILROOM_CONSUMERS", Integer.toString(CONSUMERS)))
                .build();
        log("starting WildFly (embedded broker, H2)");
        server.start();
        try (JmsClient jms = JmsClient.forPort(server.artemisPort())) {
            ApiClient metrics = new ApiClient("http://127.0.0.1:" + server.managementPort());
            return measure("WildFly", jms, () -> sent(metrics.get("/prometheus")), "wildfly");
        } finally {
            server.stop();
        }
    }

    private Figure onLiberty() {
        log("starting Artemis (single) and Open Liberty (H2)");
        try (ArtemisBroker broker = ArtemisBroker.startSingle(work, offset);
             LibertyServer server = LibertyServer.start(work, offset, broker.port(), broker.consoleUrl(),
                     Map.of("MAILROOM_PROVIDER", "sandbox", "MAILROOM_CONSUMERS", Integer.toString(CONSUMERS)));
             JmsClient jms = new JmsClient("tcp://127.0.0.1:" + broker.port(), ArtemisBroker.MAILROOM_USER,
                     ArtemisBroker.MAILROOM_PASSWORD)) {
            ApiClient api = new ApiClient(server.apiBase()).asViewer();
            return measure("Open Liberty", jms, () -> sent(api.get("/api/v1/metrics")), "liberty", "artemis");
        }
    }

    /** A warm-up of N/5, then N jobs timed and their CPU taken from the named process kinds. */
    private Figure measure(String server, JmsClient jms, Supplier<Long> sent, String... kinds) {
        String prefix = Jobs.runPrefix("servers");
        int warm = Math.max(50, n / 5);
        long before = sent.get();
        jms.sendAll(QUEUE, Jobs.jobs(Jobs.ids(prefix + "warm-", warm)));
        await(sent, before + warm, server + " warm-up");
        Map<Long, Double> mark = cpu.mark();
        long start = System.nanoTime();
        jms.sendAll(QUEUE, Jobs.jobs(Jobs.ids(prefix, n)));
        await(sent, before + warm + n, server);
        double wall = (System.nanoTime() - start) / 1e9;
        Map<String, Double> used = cpu.since(mark);
        double total = 0;
        StringBuilder byKind = new StringBuilder();
        for (String k : kinds) {
            double s = used.getOrDefault(k, 0.0);
            total += s;
            byKind.append(byKind.length() == 0 ? "" : " + ").append(String.format(Locale.ROOT, "%s %.1f s", k, s));
        }
        Figure f = new Figure(server, n, total, byKind.toString(), wall);
        log(f.line() + "; load average " + ProcessCpu.loadAverage());
        return f;
    }

    /** Waits until the server counts {@code expected} jobs sent; fails past it (a job counted twice) or on time. */
    private static void await(Supplier<Long> sent, long expected, String what) {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        long got;
        do {
            got = sent.get();
            if (got > expected) {
                throw new IllegalStateException(what + ": " + got + " jobs counted sent, more than the " + expected
                        + " sent to it");
            }
            if (got == expected) {
                return;
            }
            Jobs.sleep(500);
        } while (System.nanoTime() < deadline);
        throw new IllegalStateException(what + ": " + got + " of " + expected + " jobs sent within " + DRAIN_TIMEOUT);
    }

    /** The send queue's {@code mailroom_jobs_total} that ended {@code sent_to_provider}, from a Prometheus scrape. */
    static long sent(HttpResponse<String> scrape) {
        if (scrape.statusCode() != 200) {
            throw new IllegalStateException("metrics answered " + scrape.statusCode() + ": " + scrape.body());
        }
        return sentIn(scrape.body());
    }

    static long sentIn(String prometheusText) {
        return Math.round(SendBench.countersIn(prometheusText).getOrDefault("jobs|sent_to_provider", 0.0));
    }

    private static void log(String msg) {
        System.out.println("[servers] " + msg);
    }
}
