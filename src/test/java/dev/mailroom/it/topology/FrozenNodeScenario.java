package dev.mailroom.it.topology;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.RedriveScenario;
import dev.mailroom.it.support.WildFlyServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * ChaosIT's frozen node, on its topology: the node holding the work leases starts a redrive of
 * {@code chaos.redrive} dead letters and is stopped with SIGSTOP for {@link #FREEZE} (four lease TTLs: a long GC
 * pause, a VM migration) a fifth of the way in. Its sockets and database sessions stay open; the other node sees its
 * liveness lease run out, takes the work leases and the run over. Then SIGCONT: the thawed node's threads go on
 * where they stopped, its runner in the middle of the run. Counted: every job mailed once (the ledger), each dead
 * letter replayed once, no replay by the thawed node's runner after the takeover beyond the one publish it may have
 * had under way at the freeze, and the leases the other node took stay with it (the thawed node keeps away).
 */
final class FrozenNodeScenario {

    static final Duration FREEZE = ChaosIT.LEASE_TTL.multipliedBy(4);
    /** The other node's runner is {@code redrive-takeover}; the frozen node's, the operator who started the run. */
    private static final String TAKEOVER_ACTOR = "redrive-takeover";

    private FrozenNodeScenario() {
    }

    static ChaosLedger.Line run() throws Exception {
        String prefix = Jobs.runPrefix("chaos-frozen");
        List<String> ids = Jobs.ids(prefix, ChaosIT.REDRIVE);
        List<Long> deadLetterIds = ChaosIT.deadLettersToRedrive(prefix, ids);
        String frozen = holderOfTheWork();
        String other = frozen.equals("node-a") ? "node-b" : "node-a";
        ApiClient api = ChaosIT.APIS.get(frozen);
        ApiClient survivor = ChaosIT.APIS.get(other);
        // about 40 s of publishing whatever the size, so the run is still going when the node thaws
        String id = ChaosIT.startRedrive(api, deadLetterIds, Math.max(1.0, ids.size() / 40.0));
        Awaitility.await("a fifth of the run published").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                .until(() -> ChaosIT.published(api.getJson("/api/v1/redrives/" + id)) >= ids.size() / 5);
        List<String> held = leasesHeldBy(survivor, frozen);
        long publishedAtFreeze = ChaosIT.published(survivor.getJson("/api/v1/redrives/" + id));
        WildFlyServer node = ChaosIT.NODES.get(frozen);
        node.freeze();
        Instant frozenAt = Instant.now();
        Instant takenOver;
        try {
            survivor.awaitJson("/api/v1/redrives/" + id, r -> quietly(() -> ChaosIT.redriveNode(id)).equals(other),
                    FREEZE);
            takenOver = Instant.now();
            long rest = FREEZE.minus(Duration.between(frozenAt, takenOver)).toMillis();
            if (rest > 0) {
                Thread.sleep(rest); // the fault's length: the node stays stopped this long whatever the other does
            }
        } finally {
            node.thaw();
        }
        Instant thawed = Instant.now();
        List<String> movedAtThaw = leasesHeldBy(survivor, other).stream().filter(held::contains).toList();
        System.err.printf("[chaos] %s frozen %.0f s with %d of run %s published and the leases %s; %s took the run over"
                        + " after %.0f s, had published %d of %d at the thaw and held %s%n", frozen,
                ChaosIT.since(frozenAt), publishedAtFreeze, id, held, other,
                Duration.between(frozenAt, takenOver).toMillis() / 1000.0,
                ChaosIT.published(survivor.getJson("/api/v1/redrives/" + id)), ids.size(), movedAtThaw);
        JsonNode record = survivor.awaitJson("/api/v1/redrives/" + id,
                RedriveScenario.status("completed", "stopped").and(RedriveScenario.allOutcomes("sent", "unknown")),
                Duration.ofMinutes(3));
        ChaosIT.awaitFinished(prefix, ids, Duration.ofMinutes(2));
        ChaosIT.awaitDrained();
        List<String> broken = new ArrayList<>();
        if (!"completed".equals(record.path("status").asText())) {
            broken.add("redrive " + id + " ended " + record.path("status").asText());
        }
        if (!ChaosIT.redriveNode(id).equals(other)) {
            broken.add("redrive " + id + " was not finished by the node that took it over (" + ChaosIT.redriveNode(id) + ")");
        }
        Map<Long, Integer> replays = replays(prefix, null);
        replays.forEach((deadLetter, n) -> {
            if (n != 1) {
                broken.add("dead letter " + deadLetter + " replayed " + n + " times");
            }
        });
        // the one publish the freeze may have cut in the middle ends after the thaw; none may start after it
        int late = replays(prefix, takenOver).values().stream().mapToInt(Integer::intValue).sum();
        if (late > 1) {
            broken.add(frozen + " replayed " + late + " dead letters of run " + id + " after " + other + " took it over");
        }
        List<String> regained = leasesHeldBy(survivor, frozen).stream().filter(movedAtThaw::contains).toList();
        if (!regained.isEmpty()) {
            broken.add(frozen + " holds " + regained + " again after the thaw, which " + other + " held");
        }
        int settled = ChaosIT.settleUnknownAsAnOperator(prefix, ids, broken);
        System.err.printf("[chaos] after the thaw: %d replays by %s's runner, leases with %s: %s%n", late, frozen, other,
                leasesHeldBy(survivor, other));
        return ChaosIT.ledger.count("node frozen past its leases", prefix, ids,
                Duration.between(frozenAt, takenOver).toMillis() / 1000.0, broken, settled);
    }

    /** The node holding the most work leases now (the liveness leases {@code node:*} aside). */
    private static String holderOfTheWork() {
        ApiClient api = ChaosIT.APIS.get("node-a");
        Map<String, Integer> by = new LinkedHashMap<>();
        for (JsonNode l : api.getJson("/api/v1/leases").path("leases")) {
            if (!l.path("name").asText().startsWith("node:") && l.path("holder").isTextual()) {
                by.merge(l.path("holder").asText(), 1, Integer::sum);
            }
        }
        return by.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("node-a");
    }

    /** The work leases {@code holder} holds, as {@code api}'s node reads the lease table. */
    private static List<String> leasesHeldBy(ApiClient api, String holder) {
        List<String> out = new ArrayList<>();
        for (JsonNode l : api.getJson("/api/v1/leases").path("leases")) {
            String name = l.path("name").asText();
            if (!name.startsWith("node:") && holder.equals(l.path("holder").asText())) {
                out.add(name);
            }
        }
        return out;
    }

    /**
     * Replays of the run's dead letters, by dead letter: every one, or (with {@code after}) those by the runner that
     * started the run (not the takeover's) recorded after that instant.
     */
    private static Map<Long, Integer> replays(String prefix, Instant after) throws Exception {
        String sql = "select d.id, count(*) from dead_letter_event e join dead_letter d on d.id = e.dead_letter_id"
                + " where d.message_id like ? and e.to_status = 'replayed'"
                + (after == null ? "" : " and e.actor <> ? and e.at > ?") + " group by d.id";
        Map<Long, Integer> out = new LinkedHashMap<>();
        try (Connection c = ChaosIT.postgres.connect(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, prefix + "%");
            if (after != null) {
                s.setString(2, TAKEOVER_ACTOR);
                s.setTimestamp(3, Timestamp.from(after));
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.put(r.getLong(1), r.getInt(2));
                }
            }
        }
        return out;
    }

    private static String quietly(java.util.concurrent.Callable<String> c) {
        try {
            return c.call();
        } catch (Exception e) {
            return "";
        }
    }
}
