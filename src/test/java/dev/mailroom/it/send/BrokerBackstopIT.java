package dev.mailroom.it.send;

import dev.mailroom.it.support.DlqSweeps;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import dev.mailroom.it.support.AlertReceiver;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The broker backstop of server-config's address-setting, for what the handler did not foresee: a job
 * whose handling throws on every delivery (here: its template file is broken, a deployment fault) is
 * redelivered with the configured delays up to max-delivery-attempts (5) and then moved to its own
 * DLQ.mail.send — not lost, not circulating, not sent. The sweeper records it and puts it back with its
 * envelope, so the DLQ and the dead_letter table stay one truth.
 */
@Tag("smtp")
class BrokerBackstopIT {

    /** redelivery-delay 1 s, multiplier 2, four redeliveries: at least 1 + 2 + 4 + 8 s. */
    static final Duration MIN_BACKSTOP_TIME = Duration.ofSeconds(14);

    private final ItEnvironment env = ItEnvironment.get();

    @Test
    void aJobWhoseHandlingAlwaysThrowsEndsInItsOwnDeadLetterQueue() throws Exception {
        SmtpTestServer smtp = env.smtp();
        String id = Jobs.runPrefix("backstop") + "broken-template";
        String job = brokenTemplateJob(id);
        int before = smtp.receivedCount();
        long start = System.nanoTime();
        env.jms().sendText("mail.send", job);

        Message dead = awaitOnDlq(env, id);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("redelivered with the configured delays first").isGreaterThanOrEqualTo(MIN_BACKSTOP_TIME);
        assertThat(((TextMessage) dead).getText()).isEqualTo(job);
        assertThat(smtp.receivedCount()).as("nothing was sent").isEqualTo(before);
        assertThat(env.api().getJson("/api/v1/queues").get(0).path("depth").asLong())
                .as("it left mail.send").isZero();

        // the DLQ sweeper (every 2 s on the IT server) gives it exactly one dead_letter row
        JsonNode rows = env.api().awaitJson("/api/v1/dead-letters?message_id=" + id, l -> l.path("items").size() == 1,
                Duration.ofSeconds(30));
        JsonNode row = env.api().getJson("/api/v1/dead-letters/" + rows.path("items").get(0).path("id").asLong());
        assertThat(row.path("routed_by").asText()).isEqualTo("broker");
        assertThat(row.path("reason").asText()).isEqualTo("redelivery_limit");
        assertThat(row.path("source_queue").asText()).isEqualTo("mail.send");
        // ... and put it back on the DLQ with its envelope, once: the row points at that copy
        List<Message> copies = DlqSweeps.copies(env, "mail.send", id);
        assertThat(copies).hasSize(1);
        Message copy = copies.get(0);
        // polled, not read once: twice (H2 once, PostgreSQL once) a read right after the sweep still showed the bare
        // message's id; the final state is what is asserted here (the cause is an open question, see the closing note)
        String copyId = copy.getJMSMessageID();
        env.api().awaitJson("/api/v1/dead-letters/" + row.path("id").asLong(),
                r -> copyId.equals(r.path("dlq_jms_message_id").asText()), Duration.ofSeconds(30));
        assertThat(((TextMessage) copy).getText()).isEqualTo(job);
        assertThat(copy.getStringProperty("mr_reason")).isEqualTo("redelivery_limit");
        assertThat(copy.getStringProperty("mr_routed_by")).isEqualTo("broker");
        assertThat(copy.getStringProperty("mr_source_queue")).isEqualTo("mail.send");
        // the copy names the bare message it replaced; the message browsed above is that bare one, unless the sweep
        // (every 2 s) was quicker than the browse and it already saw the enveloped copy
        String original = copy.getStringProperty("mr_original_jms_message_id");
        assertThat(original).isNotBlank().isNotEqualTo(copyId);
        if (!dead.getJMSMessageID().equals(copyId)) {
            assertThat(original).isEqualTo(dead.getJMSMessageID());
        }
        assertThat(copy.getIntProperty("mr_lap")).isEqualTo(1);

        // a second (and third) sweep changes nothing
        DlqSweeps.awaitMore(env, 2);
        assertThat(DlqSweeps.copies(env, "mail.send", id)).extracting(Message::getJMSMessageID)
                .containsExactly(copy.getJMSMessageID());
        JsonNode again = env.api().getJson("/api/v1/dead-letters?message_id=" + id).path("items");
        assertThat(again).hasSize(1);
        JsonNode same = env.api().getJson("/api/v1/dead-letters/" + again.get(0).path("id").asLong());
        assertThat(same.path("id").asLong()).isEqualTo(row.path("id").asLong());
        assertThat(same.path("failed_at").asText()).isEqualTo(row.path("failed_at").asText());
        assertThat(same.path("history")).hasSize(1);
        // the payload as it came, for an operator who asks (the reveal is recorded: it is read last)
        JsonNode revealed = env.api().getJson("/api/v1/dead-letters/" + row.path("id").asLong() + "?reveal=true");
        assertThat(new String(java.util.Base64.getDecoder().decode(revealed.path("payload_base64").asText()),
                java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(job);
    }

    @Test
    void twoBrokerRoutedCopiesOfOneMessageAreOneDeadLetterAnnouncedOnceAndDiscardedTogether() throws Exception {
        Instant start = Instant.now();
        String id = Jobs.runPrefix("backstop") + "two-copies";
        String job = brokenTemplateJob(id);
        double arrivalsBefore = DlqSweeps.arrivals(env, "mail.send", "redelivery_limit");
        // what the broker leaves after two copies of one job each ran out of deliveries: two bare DLQ messages
        env.jms().sendText("DLQ.mail.send", job);
        env.jms().sendText("DLQ.mail.send", job);

        JsonNode rows = env.api().awaitJson("/api/v1/dead-letters?message_id=" + id, l -> l.path("items").size() == 1,
                Duration.ofSeconds(30));
        long rowId = rows.path("items").get(0).path("id").asLong();
        Awaitility.await("both copies enveloped").atMost(Duration.ofSeconds(30))
                .until(() -> DlqSweeps.copies(env, "mail.send", id).size() == 2);
        DlqSweeps.awaitMore(env, 3);

        assertThat(env.api().getJson("/api/v1/dead-letters?message_id=" + id).path("items")).hasSize(1);
        JsonNode row = env.api().getJson("/api/v1/dead-letters/" + rowId);
        assertThat(row.path("routed_by").asText()).isEqualTo("broker");
        assertThat(row.path("history")).as("recorded once, never re-opened").hasSize(1);
        assertThat(DlqSweeps.arrivals(env, "mail.send", "redelivery_limit") - arrivalsBefore)
                .as("one arrival counted").isEqualTo(1.0);
        List<AlertReceiver.Received> alerts = Awaitility.await("its alert").atMost(Duration.ofSeconds(30))
                .until(() -> arrivalAlerts(env, start), a -> !a.isEmpty());
        assertThat(alerts.stream().mapToLong(AlertReceiver.Received::count).sum()).as("announced once").isEqualTo(1);
        for (Message copy : DlqSweeps.copies(env, "mail.send", id)) {
            assertThat(copy.getStringProperty("mr_reason")).isEqualTo("redelivery_limit");
            assertThat(copy.getIntProperty("mr_lap")).isEqualTo(1);
        }
        // every DLQ message carries the envelope after a sweep
        DlqSweeps.assertEveryMessageEnveloped(env, "mail.send");
        DlqSweeps.assertEveryMessageEnveloped(env, "mail.send.bulk");

        // discarding it takes both copies off the DLQ with it
        HttpResponse<String> discard = env.api().post("/api/v1/dead-letters/" + rowId + "/discard",
                "{\"reason\": \"a test's copies\"}");
        assertThat(discard.statusCode()).as(discard.body()).isEqualTo(200);
        assertThat(DlqSweeps.copies(env, "mail.send", id)).isEmpty();
        DlqSweeps.awaitMore(env, 2);
        assertThat(env.api().getJson("/api/v1/dead-letters/" + rowId).path("status").asText()).isEqualTo("discarded");
        assertThat(env.api().getJson("/api/v1/dead-letters?message_id=" + id).path("items")).hasSize(1);
    }

    /** A job whose handling throws on every delivery: its template file is broken. */
    private static String brokenTemplateJob(String id) {
        return """
                {"schema_version": 1, "message_id": "%s", "from": "noreply@example.com", "to": ["a@example.com"],
                 "template_id": "%s", "variables": {}}""".formatted(id, ItEnvironment.BROKEN_TEMPLATE_ID);
    }

    private static List<AlertReceiver.Received> arrivalAlerts(ItEnvironment env, Instant since) {
        return env.alerts().since(since).stream()
                .filter(a -> "DeadLetterArrived".equals(a.label("alertname")))
                .filter(a -> "redelivery_limit".equals(a.label("reason")))
                .toList();
    }

    private static Message awaitOnDlq(ItEnvironment env, String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Message> m = env.jms().browse("DLQ.mail.send").stream().filter(x -> {
                try {
                    return x instanceof TextMessage t && t.getText() != null && t.getText().contains(id);
                } catch (Exception e) {
                    return false;
                }
            }).findFirst();
            if (m.isPresent()) {
                return m.get();
            }
            Thread.sleep(500);
        }
        throw new AssertionError("job " + id + " never reached DLQ.mail.send");
    }
}
