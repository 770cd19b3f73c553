package dev.mailroom.it.topology;

import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.Jobs;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * ChaosIT's clock steps, on its topology: {@code chaos.load} jobs, a tenth of them answered 451 by the relay first (so
 * their retries are scheduled while the clocks move); then each node's Mailroom clock in turn (the testing WAR's movable
 * clock, {@code PUT /api/v1/testing/clock}: the JVM's cannot be moved) stepped {@link #STEP} forward and, after
 * {@link #RENEWALS} renewals of every held lease (several lease TTLs), back again. Leases run on the database's time
 * and the node's monotonic clock, so no step may move one: every lease keeps its holder and its token (no takeover,
 * no "lost" on either node), every retry is sent, every job once.
 */
final class ClockStepScenario {

    static final Duration STEP = Duration.ofMinutes(10);
    static final int RENEWALS = 9;

    private ClockStepScenario() {
    }

    /** A lease row as the table holds it: who, with which token, at which version. */
    private record Lease(String holder, long token, long version) { }

    static ChaosLedger.Line run() throws Exception {
        String prefix = Jobs.runPrefix("chaos-clock");
        List<String> ids = Jobs.ids(prefix, ChaosIT.LOAD);
        List<String> broken = new ArrayList<>();
        Map<String, Long> logs = ChaosIT.logOffsets();
        Map<String, Lease> before = leases();
        int bounced = Math.max(1, ids.size() / 10);
        for (int i = 0; i < bounced; i++) {
            ChaosIT.smtp.enqueueReply(451, "4.3.0 try again later");
        }
        java.time.Instant start = java.time.Instant.now();
        ChaosIT.producer.sendAll(ChaosIT.SEND, Jobs.jobs(ids));
        for (String node : List.of("node-a", "node-b")) {
            step(node, STEP, broken);
            awaitRenewals(RENEWALS);
            step(node, Duration.ZERO, broken);
            awaitRenewals(RENEWALS);
        }
        ChaosIT.awaitFinished(prefix, ids, Duration.ofMinutes(3));
        double recovery = ChaosIT.since(start);
        if (ChaosIT.ledger.finished(prefix, ids) < ids.size()) {
            broken.add("jobs left unfinished 3 min after the steps (threads and broker state: "
                    + ChaosIT.saveStallEvidence(prefix, ids) + ")");
        }
        if (ChaosIT.smtp.queuedReplies() > 0) {
            broken.add(ChaosIT.smtp.queuedReplies() + " of the " + bounced + " soft bounces were never used: no retry");
        }
        Map<String, Lease> after = leases();
        before.forEach((name, was) -> {
            Lease now = after.get(name);
            if (was.holder() != null && (now == null || !was.holder().equals(now.holder()) || was.token() != now.token())) {
                broken.add("lease " + name + " moved during the clock steps: " + was + " -> " + now);
            }
        });
        for (String text : List.of("takes the lease over", "lost by")) {
            ChaosIT.logLines(logs, text).forEach(l -> broken.add("a lease moved: " + l));
        }
        System.err.printf("[chaos] clock steps: %d leases kept their holder and token (%s)%n", before.size(), after);
        return ChaosIT.ledger.count("clock stepped +" + STEP.toMinutes() + " min and back on each node", prefix, ids,
                recovery, broken);
    }

    /** Sets {@code node}'s clock offset; the answer must show it. */
    private static void step(String node, Duration offset, List<String> broken) {
        ApiClient api = ChaosIT.APIS.get(node);
        int status = api.put("/api/v1/testing/clock?offset=" + offset, "").statusCode();
        if (status != 200) {
            broken.add("PUT /api/v1/testing/clock?offset=" + offset + " on " + node + " answered " + status);
        }
        System.err.printf("[chaos] %s's clock offset %s%n", node, offset);
    }

    /**
     * Waits until every held lease was renewed {@code n} times (its version moved that far): lease time has passed
     * while a clock was stepped, counted in the leases' own heartbeats rather than in a sleep.
     */
    private static void awaitRenewals(int n) throws Exception {
        Map<String, Lease> from = leases();
        Awaitility.await("every held lease renewed " + n + " times").atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    Map<String, Lease> now = leases();
                    return from.entrySet().stream().filter(e -> e.getValue().holder() != null).allMatch(e ->
                            now.containsKey(e.getKey()) && now.get(e.getKey()).version() >= e.getValue().version() + n);
                });
    }

    private static Map<String, Lease> leases() throws Exception {
        Map<String, Lease> out = new LinkedHashMap<>();
        try (Connection c = ChaosIT.postgres.connect();
             PreparedStatement s = c.prepareStatement("select name, holder, token, version from lease order by name");
             ResultSet r = s.executeQuery()) {
            while (r.next()) {
                out.put(r.getString(1), new Lease(r.getString(2), r.getLong(3), r.getLong(4)));
            }
        }
        return out;
    }
}
