package dev.mailroom.it.topology;

import dev.mailroom.it.support.ChaosLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * ChaosIT's slow database, on its topology: {@code chaos.load} jobs under way, then every answer of PostgreSQL to
 * both nodes held back {@link #LATENCY} by the proxy between them ({@link ChaosIT#dbProxy}) for
 * {@code chaos.db-outage-seconds}: every round trip, every lease renewal, every two-phase commit that much slower.
 * The line may slow or stop; nothing may be dead-lettered (a slow database is no reason to give a job up) and nothing
 * lost, and every job finishes afterwards. The fault must be seen: a node's health check answering only after the
 * latency.
 */
final class SlowDatabaseScenario {

    static final Duration LATENCY = Duration.ofSeconds(2);

    private SlowDatabaseScenario() {
    }

    static ChaosLedger.Line run() throws Exception {
        return ChaosIT.outageWithoutDeadLetters("chaos-slowdb", "database " + LATENCY.toSeconds() + " s late for "
                        + ChaosIT.DB_OUTAGE.toSeconds() + " s", ChaosIT.DB_OUTAGE, () -> ChaosIT.dbProxy.latency(LATENCY),
                () -> ChaosIT.dbProxy.latency(Duration.ZERO), "a health check answering " + LATENCY + " late",
                SlowDatabaseScenario::healthIsSlow, false);
    }

    /** Whether a running node's health check (which reads the database) took the latency or longer. */
    private static boolean healthIsSlow() {
        for (Map.Entry<String, dev.mailroom.it.support.WildFlyServer> n : ChaosIT.NODES.entrySet()) {
            if (n.getValue().isRunning()) {
                Instant start = Instant.now();
                ChaosIT.APIS.get(n.getKey()).get("/api/v1/health");
                if (Duration.between(start, Instant.now()).compareTo(LATENCY) >= 0) {
                    return true;
                }
            }
        }
        return false;
    }
}
