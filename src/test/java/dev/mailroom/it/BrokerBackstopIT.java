package dev.mailroom.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The broker backstop of server-config's address-setting, for what the handler did not foresee: a job
 * whose handling throws on every delivery (here: its template file is broken, a deployment fault) is
 * redelivered with the configured delays up to max-delivery-attempts (5) and then moved to its own
 * DLQ.mail.send — not lost, not circulating, not sent.
 */
@Tag("smtp")
class BrokerBackstopIT {

    /** redelivery-delay 1 s, multiplier 2, four redeliveries: at least 1 + 2 + 4 + 8 s. */
    static final Duration MIN_BACKSTOP_TIME = Duration.ofSeconds(14);

    @Test
    void aJobWhoseHandlingAlwaysThrowsEndsInItsOwnDeadLetterQueue() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        String id = Jobs.runPrefix("backstop") + "broken-template";
        String job = """
                {"schema_version": 1, "message_id": "%s", "from": "noreply@example.com", "to": ["a@example.com"],
                 "template_id": "%s", "variables": {}}""".formatted(id, ItEnvironment.BROKEN_TEMPLATE_ID);
        int before = smtp.receivedCount();
        long start = System.nanoTime();
        env.jms().sendText("mail.send", job);

        Message dead = awaitOnDlq(env, id);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("redelivered with the configured delays first").isGreaterThanOrEqualTo(MIN_BACKSTOP_TIME);
        assertThat(dead.getStringProperty("_AMQ_ORIG_ADDRESS")).isEqualTo("mail.send");
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
        assertThat(row.path("dlq_jms_message_id").asText()).isEqualTo(dead.getJMSMessageID());

        // a second (and third) sweep changes nothing
        Jobs.sleep(5000);
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
