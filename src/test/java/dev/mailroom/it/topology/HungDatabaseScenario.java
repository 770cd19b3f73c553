package dev.mailroom.it.topology;

import dev.mailroom.it.support.ChaosLedger;
import java.time.Duration;

/**
 * ChaosIT's hung database, on its topology: {@code chaos.load} jobs under way, then the proxy between the nodes and
 * PostgreSQL ({@link ChaosIT#dbProxy}) stops forwarding in both directions for {@code chaos.db-outage-seconds}
 * without closing a connection (a dropped firewall state): every thread reading from the database waits, neither
 * answered nor refused. Then it forwards again. Nothing may be dead-lettered or lost, and every job finishes
 * afterwards; the fault must be seen: a node's health check not answering within 5 s.
 */
final class HungDatabaseScenario {

    private HungDatabaseScenario() {
    }

    static ChaosLedger.Line run() throws Exception {
        return ChaosIT.outageWithoutDeadLetters("chaos-hungdb", "database hung " + ChaosIT.DB_OUTAGE.toSeconds()
                        + " s (blackhole)", ChaosIT.DB_OUTAGE, () -> ChaosIT.dbProxy.blackhole(true),
                () -> ChaosIT.dbProxy.blackhole(false), "a health check not answering within 5 s",
                HungDatabaseScenario::healthHangs, false);
    }

    /** Whether a running node's health check (which reads the database) took 5 s or more, failed or said 503. */
    private static boolean healthHangs() {
        return ChaosIT.NODES.entrySet().stream().filter(n -> n.getValue().isRunning()).anyMatch(n -> {
            java.time.Instant start = java.time.Instant.now();
            try {
                int status = ChaosIT.APIS.get(n.getKey()).get("/api/v1/health").statusCode();
                return status == 503 || Duration.between(start, java.time.Instant.now()).toSeconds() >= 5;
            } catch (RuntimeException e) {
                return true; // no answer within the client's timeout
            }
        });
    }
}
