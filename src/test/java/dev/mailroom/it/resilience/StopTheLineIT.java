package dev.mailroom.it.resilience;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.AlertReceiver;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.StopTheLineScenario;
import dev.mailroom.testsupport.SmtpTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Stop the line on the real server: revoked credentials pause the queue and a probe
 * resumes it once they work; a burst of systemic-looking dead letters trips the dead-letter-rate breaker and a
 * burst of poison does not; a 60 s PostgreSQL outage under load ends in sends, not in dead letters.
 * The first two run on H2 only, the outage on PostgreSQL only (one boot each, in the existing executions).
 */
@Tag("smtp")
class StopTheLineIT {

    private static final String SEND = "mail.send";
    private static final String BULK = "mail.send.bulk";

    private final ItEnvironment env = ItEnvironment.get();
    private final SmtpTestServer smtp = env.smtp();
    private final AlertReceiver alerts = env.alerts();
    private final StopTheLineScenario line = new StopTheLineScenario(env);

    @Test
    void revokedCredentialsStopTheLineWithoutDeadLettersAndEveryJobIsSentOnceWhenTheyWorkAgain() {
        assumeFalse(env.isPostgres(), "H2 only: the send path is the same on PostgreSQL");
        line.revokedCredentialsStopTheLineUntilTheyWorkAgain(); // LibertyIT runs the same body
    }

    @Test
    void theDeadLetterRateBreakerTripsOnABurstOfHandlerErrorsAndNotOnABurstOfPoison() {
        assumeFalse(env.isPostgres(), "H2 only");
        // the IT server's bulk queue: activation 20 deliveries, 10 %, 1 minute, restart after 3 s
        Instant start = Instant.now();
        String poison = Jobs.runPrefix("dlr-poison");
        List<String> poisonIds = Jobs.ids(poison, 30);
        env.jms().sendAll(BULK, poisonIds.stream()
                .map(id -> "{\"schema_version\": 1, \"message_id\": \"" + id + "\"}").toList());
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                env.jms().browse("DLQ." + BULK, "mr_message_id LIKE '" + poison + "%'").size() == poisonIds.size());
        assertThat(queue(BULK).path("paused").asBoolean()).as("30 poison dead letters of 30 deliveries").isFalse();
        assertThat(alerts.since(start)).noneMatch(a -> "QueuePaused".equals(a.label("alertname"))
                && BULK.equals(a.label("queue")));

        String broken = Jobs.runPrefix("dlr-handler");
        List<String> brokenIds = Jobs.ids(broken, 15);
        // the schema takes a display name with an unbalanced quote, the SMTP provider's address parser throws: an
        // exception in our own code, internal, one retry, then handler_error (see DeadLetterEnvelopeIT)
        env.jms().sendAll(BULK, brokenIds.stream().map(id -> """
                {"schema_version": 1, "message_id": "%s", "from": "noreply@example.com",
                 "to": ["\\"Alice <alice@example.com>"], "subject": "x", "text": "x",
                 "unsubscribe": {"url": "https://example.com/unsubscribe/it"}}""".formatted(id)).toList());
        JsonNode paused = awaitQueue(BULK, q -> "dead_letter_rate".equals(q.path("paused_reason").asText()),
                Duration.ofSeconds(60));
        assertThat(paused.path("paused_detail").asText()).contains("dead-lettered");
        List<AlertReceiver.Received> pages = awaitAlerts(start, a -> "QueuePaused".equals(a.label("alertname"))
                && BULK.equals(a.label("queue")) && "dead_letter_rate".equals(a.label("reason")));
        assertThat(pages.get(0).label("severity")).isEqualTo("page");

        // it restarts by itself after its restart time; the rest of the burst ends where the policy sends it
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                env.jms().browse("DLQ." + BULK, "mr_message_id LIKE '" + broken + "%'").size() == brokenIds.size());
        awaitQueue(BULK, q -> !q.path("paused").asBoolean(), Duration.ofSeconds(30));
        assertThat(env.jms().browse("DLQ." + BULK, "mr_message_id LIKE '" + broken + "%'"))
                .allMatch(m -> "handler_error".equals(property(m, "mr_reason")));
    }

    @Test
    void aSixtySecondDatabaseOutageUnderLoadEndsInSendsNotInDeadLetters() throws Exception {
        assumeTrue(env.isPostgres(), "needs a database that can be stopped");
        String prefix = Jobs.runPrefix("pg-outage");
        List<String> ids = Jobs.ids(prefix, 300);
        Map<String, String> smtpIds = smtpIds(ids);
        smtp.setDelayBeforeReply(Duration.ofMillis(40)); // a relay that takes a moment: the load is still going
        try {
            env.jms().sendAll(SEND, Jobs.jobs(ids));
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> received(smtpIds) >= 30);
            env.postgres().stopForOutage();
            Instant down = Instant.now();
            int atOutage = received(smtpIds);
            try {
                JsonNode paused = awaitQueue(SEND, q -> "database".equals(q.path("paused_reason").asText()),
                        Duration.ofSeconds(20));
                // the broker's figures stay readable; the database's are unknown, not 0
                assertThat(paused.path("depth").isNumber()).as("depth during the outage: %s", paused).isTrue();
                assertThat(paused.path("accepted_last_hour").isNull()).as("accepted_last_hour during the outage: %s", paused)
                        .isTrue();
                assertThat(paused.path("sent_per_minute").isNull()).as("sent_per_minute during the outage: %s", paused)
                        .isTrue();
                long left = Duration.ofSeconds(60).minus(Duration.between(down, Instant.now())).toMillis();
                if (left > 0) {
                    Thread.sleep(left); // the outage lasts 60 s
                }
                assertThat(env.jms().browse("DLQ." + SEND, "mr_message_id LIKE '" + prefix + "%'"))
                        .as("dead letters during the outage").isEmpty();
            } finally {
                env.postgres().startAgain();
            }
            System.err.printf("[stop-the-line] %d of %d received when PostgreSQL stopped, %d when it came back%n",
                    atOutage, ids.size(), received(smtpIds));
            awaitQueue(SEND, q -> !q.path("paused").asBoolean(), Duration.ofSeconds(30));
            Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> received(smtpIds) == ids.size());
        } finally {
            smtp.setDelayBeforeReply(Duration.ZERO);
        }
        Map<String, Integer> counts = smtp.countsByMessageId();
        smtpIds.values().forEach(m -> assertThat(counts.get(m)).as("copies of " + m + " at the SMTP server").isEqualTo(1));

        // the database: every job once, sent (or unknown: its send passed the point of no return just as the
        // database went away; the mail arrived once, above), no dead letter
        Map<String, Integer> states = new HashMap<>();
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            states.clear();
            states.putAll(statesInDatabase(prefix));
            return states.values().stream().mapToInt(Integer::intValue).sum() == ids.size()
                    && states.keySet().stream().allMatch(s -> s.equals("sent_to_provider") || s.equals("unknown"));
        });
        System.err.printf("[stop-the-line] job states after the outage: %s%n", states);
        try (Connection c = env.postgres().connect();
             PreparedStatement s = c.prepareStatement("select count(*) from dead_letter where message_id like ?")) {
            s.setString(1, prefix + "%");
            try (ResultSet r = s.executeQuery()) {
                r.next();
                assertThat(r.getInt(1)).as("dead_letter rows").isZero();
            }
        }
        assertThat(env.jms().browse("DLQ." + SEND, "mr_message_id LIKE '" + prefix + "%'")).as("dead letters").isEmpty();
    }

    // ------------------------------------------------------------------ helpers

    private JsonNode queue(String name) {
        return line.queue(name);
    }

    private JsonNode awaitQueue(String name, Predicate<JsonNode> until, Duration timeout) {
        return line.awaitQueue(name, until, timeout);
    }

    private List<AlertReceiver.Received> awaitAlerts(Instant since, Predicate<AlertReceiver.Received> which) {
        return line.awaitAlerts(since, which);
    }

    private static Map<String, String> smtpIds(List<String> ids) {
        return StopTheLineScenario.smtpIds(ids);
    }

    private int received(Map<String, String> smtpIds) {
        Map<String, Integer> counts = smtp.countsByMessageId();
        return (int) smtpIds.values().stream().filter(counts::containsKey).count();
    }

    private Map<String, Integer> statesInDatabase(String prefix) throws Exception {
        return Jobs.statesInDatabase(env.postgres(), prefix);
    }

    private static String property(jakarta.jms.Message m, String name) {
        try {
            return m.getStringProperty(name);
        } catch (jakarta.jms.JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
