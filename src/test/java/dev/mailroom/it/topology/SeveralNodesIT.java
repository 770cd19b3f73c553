package dev.mailroom.it.topology;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.AlertReceiver;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.MailroomNodes;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.WildFlyServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two Mailroom nodes on one PostgreSQL (each still on its embedded broker until a shared remote broker can be
 * configured): the work that must happen once runs on the lease holder only, a pause set on one node applies
 * on the other, a redrive run left by a node that is gone is resumed on a live one, and {@code kill -9} of the
 * holder moves its work to the other node within the lease time. Its own failsafe execution ({@code nodes}):
 * it boots two servers of its own.
 */
@Tag("nodes")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SeveralNodesIT {

    /** Short, so a takeover costs seconds; the heartbeat a third of it. */
    private static final Duration TTL = Duration.ofSeconds(6);
    private static final List<String> ONCE = List.of("dlq-sweeper", "reconciler", "dead-letter-monitor", "alert-delivery");
    private static final String BULK = "mail.send.bulk";

    private static PostgresServer postgres;
    /** Both nodes' alert webhook: what reaches it is counted, so an alert delivered by both nodes shows. */
    private static AlertReceiver receiver;
    private static MailroomNodes nodes;
    private static WildFlyServer nodeA;
    private static WildFlyServer nodeB;
    private static Map<String, WildFlyServer> servers = Map.of();
    private static Map<String, ApiClient> apis = Map.of();

    @BeforeAll
    static void start() {
        Path work = ItEnvironment.workDir().resolve("nodes");
        postgres = PostgresServer.start(work);
        receiver = AlertReceiver.start();
        nodes = MailroomNodes.builder(work)
                .env("MAILROOM_DB_URL", postgres.jdbcUrl())
                .env("MAILROOM_DB_USER", postgres.user())
                .env("MAILROOM_DB_PASSWORD", postgres.password())
                .env("MAILROOM_DB_DRIVER", "postgresql")
                .env("MAILROOM_LEASE_TTL", TTL.toString())
                .env("MAILROOM_LEASE_HEARTBEAT", "PT2S")
                .env("MAILROOM_DEADLETTER_SWEEP_INTERVAL", "PT1S")
                .env("MAILROOM_DEADLETTER_MONITOR_INTERVAL", "PT1S")
                .env("MAILROOM_RECONCILE_INTERVAL", "PT1S")
                .env("MAILROOM_STOP_THE_LINE_PROBE_INTERVAL", "PT1S")
                .env("MAILROOM_ALERTS_WEBHOOK_URL", receiver.url())
                .env("MAILROOM_ALERTS_GROUP_WAIT", "1s")
                .env("MAILROOM_ALERTS_GROUP_INTERVAL", "1s")
                .env("MAILROOM_ALERTS_RETRY_INITIAL_BACKOFF", "500ms")
                .env("MAILROOM_ALERTS_RETRY_MAX_BACKOFF", "2s")
                .build();
        servers = nodes.servers();
        apis = nodes.apis();
        nodeA = nodes.server("node-a");
        nodeB = nodes.server("node-b");
        // side by side: each node has a server base directory of its own (MailroomNodes), nothing of one is the other's
        nodes.startSideBySide();
    }

    @AfterAll
    static void stop() {
        if (nodes != null) {
            nodes.stopAll(Duration.ofSeconds(20));
        }
        if (postgres != null) {
            postgres.close();
        }
        if (receiver != null) {
            receiver.close();
        }
    }

    @Test
    @Order(1)
    void theWorkThatMustHappenOnceRunsOnOneNodeOnly() {
        String holder = awaitOneHolder();
        String other = holder.equals("node-a") ? "node-b" : "node-a";
        Map<String, Long> holderBefore = turns(holder);
        Map<String, Long> otherBefore = turns(other);

        // several ticks of every job (1 s each) on both nodes
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                ONCE.stream().allMatch(n -> turns(holder).get(n) >= holderBefore.get(n) + 4));

        Map<String, Long> otherAfter = turns(other);
        for (String name : ONCE) {
            assertThat(otherAfter.get(name)).as(name + " on " + other + " while " + holder + " holds it")
                    .isEqualTo(otherBefore.get(name));
            JsonNode onOther = lease(other, name);
            assertThat(onOther.path("holder").asText()).isEqualTo(holder);
            assertThat(onOther.path("held_here").asBoolean()).isFalse();
        }
        System.err.println("[nodes] " + holder + " turns " + turns(holder) + ", " + other + " turns " + otherAfter);
    }

    @Test
    @Order(2)
    void aPauseSetOnOneNodeAppliesOnTheOtherAndAResumeThereStartsBoth() {
        ApiClient a = apis.get("node-a");
        ApiClient b = apis.get("node-b");
        assertThat(queue(b, BULK).path("paused").asBoolean()).isFalse();

        assertThat(a.post("/api/v1/queues/" + BULK + "/pause", null).statusCode()).isEqualTo(200);
        Instant set = Instant.now();
        // the line stops within a probe tick (1 s); "paused" is its consumers, which stop when their deliveries
        // end: slow on a loaded machine
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> queue(b, BULK).path("paused").asBoolean());
        System.err.println("[nodes] pause on node-a applied on node-b after "
                + Duration.between(set, Instant.now()).toMillis() + " ms");
        assertThat(queue(b, BULK).path("paused_reason").asText()).isEqualTo("operator");
        assertThat(queue(b, "mail.send").path("paused").asBoolean()).isFalse();

        assertThat(b.post("/api/v1/queues/" + BULK + "/resume", null).statusCode()).isEqualTo(200);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !queue(a, BULK).path("paused").asBoolean());
        assertThat(queue(a, BULK).hasNonNull("paused_reason")).isFalse();
    }

    /** A run recorded as running on a node that is gone (no liveness lease) is taken over and finished here. */
    @Test
    @Order(3)
    void aRedriveRunOfANodeThatIsGoneIsResumedOnALiveNode() throws Exception {
        ApiClient a = apis.get("node-a");
        JsonNode plan = a.postJson("/api/v1/redrives",
                "{\"filter\": {\"queue\": \"mail.send\", \"ids\": [987654321]}, \"reason\": \"takeover test\"}", 201);
        String id = plan.path("id").asText();
        // as if node-gone had started it and died before publishing anything
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement s = c.prepareStatement("update redrive set status = 'running', node = 'node-gone' where id = ?")) {
            s.setString(1, id);
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                "completed".equals(a.getJson("/api/v1/redrives/" + id).path("status").asText()));
        JsonNode record = a.getJson("/api/v1/redrives/" + id);
        assertThat(record.path("started_by").asText()).isEqualTo("redrive-takeover");
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement s = c.prepareStatement("select node from redrive where id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                assertThat(r.next()).isTrue();
                assertThat(r.getString(1)).isIn("node-a", "node-b");
            }
        }
    }

    /**
     * Alerts raised on either node are kept in alert_outbox and delivered by the holder of alert-delivery only:
     * two dead letters, one on each node, reach the receiver counted twice in all, not four times.
     */
    @Test
    @Order(4)
    void eachAlertRaisedOnEitherNodeIsDeliveredOnceByTheHolder() throws Exception {
        String holder = awaitOneHolder();
        String prefix = Jobs.runPrefix("nodes-alert");
        Instant start = Instant.now();
        List<String> ids = List.of(prefix + "on-a", prefix + "on-b");
        poison(nodeA, ids.get(0));
        poison(nodeB, ids.get(1));
        Awaitility.await("both dead letters' alerts delivered and marked").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250)).until(() -> alertCount(start, prefix) >= 2
                        && outbox(prefix).values().stream().allMatch(by -> by != null));
        // a second node delivering them too would do so in its ticks, which run beside the holder's: let 3 pass
        awaitAlertTicks(holder, 3);
        assertThat(alertCount(start, prefix)).as("each alert once, by one node").isEqualTo(2);
        Map<String, String> deliveredBy = outbox(prefix);
        assertThat(deliveredBy).hasSize(2);
        assertThat(deliveredBy.values()).as("delivered by the lease holder").containsOnly(holder);
        System.err.println("[nodes] alerts raised on node-a and node-b delivered once each by " + holder
                + " (raised by " + deliveredBy.keySet() + ")");
    }

    @Test
    @Order(5)
    void killingTheHolderMovesItsWorkToTheOtherNodeWithinTheLeaseTime() {
        String holder = awaitOneHolder();
        String survivor = holder.equals("node-a") ? "node-b" : "node-a";
        Map<String, Long> before = turns(survivor);

        servers.get(holder).killHard();
        Instant killed = Instant.now();

        Awaitility.await().atMost(TTL.plusSeconds(20)).pollInterval(Duration.ofMillis(250)).until(() ->
                ONCE.stream().allMatch(n -> turns(survivor).get(n) > before.get(n)));
        Duration takeover = Duration.between(killed, Instant.now());
        System.err.println("[nodes] kill -9 of " + holder + ": " + survivor + " took over every lease after "
                + takeover.toMillis() + " ms (lease ttl " + TTL + ")");
        // the lease could not be taken before it ran out; the survivor's next tick (1 s) or heartbeat (2 s) takes it; slack for a loaded machine
        assertThat(takeover).isLessThan(TTL.plusSeconds(10));
        for (String name : ONCE) {
            assertThat(lease(survivor, name).path("holder").asText()).isEqualTo(survivor);
        }
    }

    /**
     * Alerts not yet delivered survive a kill -9: the receiver is down, the last node raises an alert (its row is
     * in alert_outbox, undelivered), is killed, the receiver comes back and the other node is started again:
     * it takes alert-delivery when the dead holder's lease runs out and delivers the alert, once.
     */
    @Test
    @Order(6)
    void anAlertUndeliveredWhenItsNodeIsKilledIsDeliveredOnceAfterTheRestart() throws Exception {
        String last = liveNode();
        String other = last.equals("node-a") ? "node-b" : "node-a";
        String prefix = Jobs.runPrefix("nodes-kept");
        Instant start = Instant.now();
        receiver.down();
        poison(servers.get(last), prefix + "kept");
        Awaitility.await("the alert in alert_outbox, undelivered").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250)).until(() -> outbox(prefix).size() == 1);
        // the holder offers it to the receiver (down) at its next ticks
        awaitAlertTicks(last, 3);
        assertThat(outbox(prefix).values()).as("not delivered while the receiver is down").containsOnlyNulls();
        servers.get(last).killHard();
        receiver.up();
        Instant restart = Instant.now();
        servers.get(other).start();
        Awaitility.await("the kept alert delivered after the restart").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250)).until(() -> alertCount(start, prefix) >= 1
                        && outbox(prefix).values().stream().allMatch(by -> by != null));
        System.err.println("[nodes] alert kept over the kill -9 of " + last + " delivered by " + other + " "
                + Duration.between(restart, Instant.now()).toMillis() + " ms after its start began");
        assertThat(alertCount(start, prefix)).as("delivered once").isEqualTo(1);
        assertThat(outbox(prefix).values()).containsOnly(other);
    }

    // ------------------------------------------------------------------ helpers

    /** Waits until {@code node} has taken {@code n} more turns of alert delivery (a turn a second). */
    private static void awaitAlertTicks(String node, int n) {
        long before = turns(node).get("alert-delivery");
        Awaitility.await(n + " alert-delivery turns on " + node).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250)).until(() -> turns(node).get("alert-delivery") >= before + n);
    }

    /** A job without recipients on {@code node}'s own broker: dead-lettered as poison, which raises an alert. */
    private static void poison(WildFlyServer node, String messageId) {
        try (JmsClient jms = JmsClient.forPort(node.artemisPort())) {
            jms.sendText("mail.send", "{\"schema_version\":1,\"message_id\":\"" + messageId
                    + "\",\"from\":\"a@example.com\",\"subject\":\"s\",\"text\":\"t\"}");
        }
    }

    /** The occurrences counted in DeadLetterArrived alerts received since {@code start} about this run's jobs. */
    private static long alertCount(Instant start, String prefix) {
        return receiver.since(start).stream()
                .filter(a -> "DeadLetterArrived".equals(a.label("alertname")))
                .filter(a -> a.alert().path("annotations").path("examples").asText().contains(prefix))
                .mapToLong(AlertReceiver.Received::count).sum();
    }

    /** This run's alert_outbox rows (by the job they are about): who delivered each, null while undelivered. */
    private static Map<String, String> outbox(String prefix) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement s = c.prepareStatement("select raised_by, labels, delivered_by from alert_outbox"
                     + " where kind = 'DEAD_LETTER_ARRIVAL' and labels like ? order by id")) {
            s.setString(1, "%" + prefix + "%");
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.put(r.getString(1) + " " + r.getString(2), r.getString(3));
                }
            }
        }
        return out;
    }

    /** Waits until one node holds every lease of {@link #ONCE}; returns it. */
    private static String awaitOneHolder() {
        return Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            java.util.Set<String> holders = new java.util.HashSet<>();
            for (String name : ONCE) {
                JsonNode l = lease(liveNode(), name);
                holders.add(l == null || !l.path("holder").isTextual() ? null : l.path("holder").asText());
            }
            return holders.size() == 1 ? holders.iterator().next() : null;
        }, h -> h != null);
    }

    private static String liveNode() {
        return nodes.liveNode();
    }

    private static Map<String, Long> turns(String node) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String name : ONCE) {
            JsonNode l = lease(node, name);
            out.put(name, l == null ? 0 : l.path("turns_here").asLong());
        }
        return out;
    }

    private static JsonNode lease(String node, String name) {
        JsonNode answer = apis.get(node).getJson("/api/v1/leases");
        assertThat(answer.path("node").asText()).isEqualTo(node);
        for (JsonNode l : answer.path("leases")) {
            if (name.equals(l.path("name").asText())) {
                return l;
            }
        }
        return null;
    }

    private static JsonNode queue(ApiClient api, String name) {
        for (JsonNode q : api.getJson("/api/v1/queues")) {
            if (name.equals(q.path("queue").asText())) {
                return q;
            }
        }
        throw new AssertionError("no queue " + name);
    }
}
