package dev.mailroom.it.topology;

import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.SmallDisk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assumptions;

/**
 * ChaosIT's database disk full, on its topology: PostgreSQL's data directory (its tables and its WAL, on one disk as
 * most deployments have them) is a small filesystem of its own ({@link SmallDisk}, {@link #MEGABYTES} MiB, from
 * {@code initdb} on), which a filler file fills to the brim under {@code chaos.load} jobs for
 * {@code chaos.db-disk-full-seconds}; then the filler goes. PostgreSQL then refuses every write that needs a new page
 * ({@code ERROR 53100 could not extend file}) while it still answers reads, and a write that needs a new WAL segment
 * makes it PANIC and restart; a restart that finds no space for its recovery stops it. The harness, as an
 * orchestrator would, starts a stopped PostgreSQL again once the space is back. Either way the line must stop as for a
 * database outage (no job dead-lettered, none lost, none sent twice), a node's health check must say the database is
 * down, and sending must resume when space returns.
 */
final class DatabaseDiskScenario {

    /** Room for the whole suite's data and WAL before the scenario (max_wal_size is 1 GB, checkpoints every 5 min). */
    static final int MEGABYTES = 1024;
    static final Duration FULL = Duration.ofSeconds(Integer.getInteger("mailroom.chaos.db-disk-full-seconds", 30));

    private DatabaseDiskScenario() {
    }

    static ChaosLedger.Line run() throws Exception {
        PostgresServer pg = ChaosIT.postgres;
        Assumptions.assumeTrue(pg.dataDisk().isPresent(),
                () -> "PostgreSQL's data directory has no small filesystem: " + pg.dataDiskUnavailable());
        SmallDisk disk = pg.dataDisk().orElseThrow();
        long pgLog = Files.size(pg.logFile());
        Map<String, Long> logs = ChaosIT.logOffsets();
        List<String> health = new CopyOnWriteArrayList<>();
        boolean[] restarted = {false};
        System.err.printf("[chaos] database disk: %s, %.1f%% used before the fill%n", disk, disk.usage() * 100);
        String what = "PostgreSQL's data filesystem";
        ChaosLedger.Line line = ChaosIT.outageWithoutDeadLetters("chaos-dbdisk", "database disk full "
                        + FULL.toSeconds() + " s", FULL, () -> FullDiskScenario.fill(disk, 1.0, what), () -> {
                    FullDiskScenario.free(disk, what);
                    if (!pg.isRunning()) { // it PANICked and could not recover without space: as an orchestrator does
                        pg.startAgain();
                        restarted[0] = true;
                    }
                }, "a node's health saying the database is down", () -> healthSaysTheDatabaseIsDown(health), false);
        String log = new String(Files.readAllBytes(pg.logFile()), StandardCharsets.UTF_8).substring((int) pgLog);
        System.err.printf("[chaos] database disk full: a node's health said: %s; PostgreSQL logged %d 'No space left"
                        + " on device', %d PANIC; started again by the harness: %s; e.g. %s%n",
                health.isEmpty() ? "nothing" : health.get(0), count(log, "No space left on device"),
                count(log, "PANIC"), restarted[0], log.lines().filter(l -> l.contains("No space left")).findFirst()
                        .orElse("-"));
        ChaosIT.logLines(logs, "refuses writes").stream().limit(2).forEach(l -> System.err.println("[chaos] " + l));
        // each delivery rolled back used one of its job's attempts: a stopped line must keep them few
        System.err.printf("[chaos] deliveries rolled back during the database's full disk: %d%n",
                rolledBack(logs));
        return line;
    }

    /** The deliveries the nodes' resource adapter saw fail since {@code offsets} ({@code AMQ154004}: rolled back). */
    private static long rolledBack(Map<String, Long> offsets) throws IOException {
        long n = 0;
        for (Map.Entry<String, dev.mailroom.it.support.WildFlyServer> e : ChaosIT.NODES.entrySet()) {
            byte[] all = Files.readAllBytes(e.getValue().serverLog());
            int from = (int) Math.min(all.length, offsets.getOrDefault(e.getKey(), 0L));
            n += count(new String(all, from, all.length - from, StandardCharsets.UTF_8), "AMQ154004");
        }
        return n;
    }

    private static long count(String log, String text) {
        return log.lines().filter(l -> l.contains(text)).count();
    }

    /** Whether a running node's health check says the database is down (the first answer kept). */
    private static boolean healthSaysTheDatabaseIsDown(List<String> seen) {
        return ChaosIT.NODES.entrySet().stream().filter(n -> n.getValue().isRunning()).anyMatch(n -> {
            ApiClient api = ChaosIT.APIS.get(n.getKey());
            String database;
            try { // 503 while a part is down: the body says which
                database = api.mapper().readTree(api.get("/api/v1/health").body()).path("checks").path("database")
                        .asText();
            } catch (IOException | RuntimeException e) {
                return false;
            }
            if (database.startsWith("DOWN")) {
                seen.add(n.getKey() + ": " + database);
                return true;
            }
            return false;
        });
    }
}
