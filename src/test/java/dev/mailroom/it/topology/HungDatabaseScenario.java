package dev.mailroom.it.topology;

import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.Jobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
        String prefix = Jobs.runPrefix("chaos-hungdb");
        List<String> ids = Jobs.ids(prefix, ChaosIT.LOAD);
        List<String> broken = new ArrayList<>();
        double recovery = ChaosIT.outage(prefix, ids, ChaosIT.DB_OUTAGE, () -> ChaosIT.dbProxy.blackhole(true),
                () -> ChaosIT.dbProxy.blackhole(false), "a health check not answering within 5 s",
                HungDatabaseScenario::healthHangs, broken);
        int dead = ChaosIT.ledger.deadLetters(prefix).size();
        if (dead > 0) {
            broken.add(dead + " jobs dead-lettered while the database hung");
        }
        return ChaosIT.ledger.count("database hung " + ChaosIT.DB_OUTAGE.toSeconds() + " s (blackhole)", prefix, ids,
                recovery, broken);
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
