package dev.mailroom.it.send;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.jms.BytesMessage;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Malformed jobs are never sent, are dead-lettered with their bytes and reason (on the DLQ message
 * byte-for-byte, in the dead_letter row bounded), and do not hold up the jobs behind them.
 */
@Tag("smtp")
class MalformedJobsIT {

    record Bad(String name, byte[] body, boolean text, String reason, String messageId) { }

    @Test
    void malformedJobsAreRecordedWithTheirBytesAndTheJobsBehindThemGoOn() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        String prefix = Jobs.runPrefix("malformed-" + env.profile());
        String nonce = UUID.randomUUID().toString();

        byte[] huge = new byte[20 * 1024 * 1024];
        Arrays.fill(huge, (byte) 'x');
        byte[] hugeHead = ("{\"schema_version\":1,\"message_id\":\"" + prefix + "huge\",\"text\":\"").getBytes(StandardCharsets.UTF_8);
        System.arraycopy(hugeHead, 0, huge, 0, hugeHead.length);

        List<Bad> bad = List.of(
                new Bad("not json", ("%PDF-1.7 not json at all " + nonce).getBytes(StandardCharsets.UTF_8), false,
                        "not_json", null),
                new Bad("not utf-8", new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}', ' ',
                        (byte) 0xFF, (byte) nonce.charAt(0), (byte) nonce.charAt(1), (byte) nonce.charAt(2)}, false,
                        "not_json", null),
                new Bad("no to", ("{\"schema_version\":1,\"message_id\":\"" + prefix + "no-to\","
                        + "\"from\":\"a@example.com\",\"subject\":\"s\",\"text\":\"t\"}").getBytes(StandardCharsets.UTF_8),
                        true, "schema_violation", prefix + "no-to"),
                new Bad("unknown schema_version", ("{\"schema_version\":99,\"message_id\":\"" + prefix + "v99\","
                        + "\"from\":\"a@example.com\",\"to\":[\"b@example.com\"],\"subject\":\"s\",\"text\":\"t\"}")
                        .getBytes(StandardCharsets.UTF_8), true, "unsupported_schema_version", prefix + "v99"),
                new Bad("20 MB body", huge, true, "too_large", null),
                // a header Mailroom writes itself: refused at receipt, not retried and dead-lettered as a
                // handler error after the SMTP provider refuses it
                new Bad("owned header", ("{\"schema_version\":1,\"message_id\":\"" + prefix + "owned-header\","
                        + "\"from\":\"a@example.com\",\"to\":[\"b@example.com\"],\"subject\":\"s\",\"text\":\"t\","
                        + "\"headers\":{\"X-Order\":\"7\",\"bcc\":\"hidden@example.net\"}}")
                        .getBytes(StandardCharsets.UTF_8), true, "schema_violation", prefix + "owned-header"));

        List<String> good = new java.util.ArrayList<>(Jobs.ids(prefix + "good-", bad.size() - 1));
        good.add(prefix + "good-template"); // rendered by mustache.java inside the WAR

        int before = smtp.receivedCount();
        for (int i = 0; i < bad.size(); i++) {
            Bad b = bad.get(i);
            if (b.text()) {
                env.jms().sendText("mail.send", new String(b.body(), StandardCharsets.UTF_8));
            } else {
                env.jms().sendBytes("mail.send", b.body());
            }
            env.jms().sendText("mail.send", good.get(i).endsWith("-template") ? templateJob(good.get(i)) : Jobs.job(good.get(i)));
        }

        // the jobs behind the malformed ones are sent, and nothing else is
        assertThat(smtp.awaitReceived(before + good.size(), Duration.ofMinutes(2))).isTrue();
        Map<String, Integer> counts = smtp.countsByMessageId();
        assertThat(good).allMatch(id -> counts.getOrDefault(Jobs.smtpMessageId(id), 0) == 1);

        // every malformed job has a dead_letter row with its reason and its bytes (bounded), and a DLQ copy
        for (Bad b : bad) {
            String sha = Jobs.sha256(b.body());
            JsonNode row = awaitDeadLetter(env, sha);
            assertThat(row.path("reason").asText()).as(b.name()).isEqualTo("poison");
            assertThat(row.path("failure_class").asText()).as(b.name()).isEqualTo("poison");
            assertThat(row.path("error_type").asText()).as(b.name()).isEqualTo(b.reason());
            assertThat(row.path("source_queue").asText()).isEqualTo("mail.send");
            assertThat(row.path("status").asText()).isEqualTo("open");
            assertThat(row.path("payload_size").asLong()).as(b.name()).isEqualTo(b.body().length);
            byte[] stored = Base64.getDecoder().decode(row.path("payload_base64").asText());
            int kept = Math.min(b.body().length, 64 * 1024);
            assertThat(stored).as(b.name()).isEqualTo(Arrays.copyOf(b.body(), kept));
            assertThat(row.path("payload_truncated").asBoolean()).isEqualTo(b.body().length > kept);
            assertThat(row.path("consumer_version").asText()).startsWith("0.1.0-SNAPSHOT+");
            if (b.messageId() != null) {
                assertThat(row.path("message_id").asText()).isEqualTo(b.messageId());
                JsonNode job = env.api().getJson("/api/v1/jobs/" + b.messageId());
                assertThat(job.path("state").asText()).isEqualTo("dead_lettered");
                assertThat(job.path("attempts")).isEmpty();
            } else {
                assertThat(row.path("message_id").asText()).startsWith("jms:ID:");
            }

            // the row and the DLQ copy commit together, so the copy is there once the row is
            Message copy = env.jms().browse("DLQ.mail.send", "mr_payload_sha256 = '" + sha + "'").stream()
                    .findFirst().orElseThrow(() -> new AssertionError("no DLQ copy of " + b.name()));
            assertThat(copy.getStringProperty("mr_reason")).isEqualTo("poison");
            assertThat(copy.getStringProperty("mr_error_type")).isEqualTo(b.reason());
            assertThat(copy.getStringProperty("mr_source_queue")).isEqualTo("mail.send");
            assertThat(copy.getStringProperty("mr_error")).isNotBlank();
            assertThat(bodyOf(copy)).as(b.name() + " byte-for-byte").isEqualTo(b.body());
        }
        JsonNode owned = env.api().getJson("/api/v1/dead-letters?message_id=" + prefix + "owned-header").path("items");
        assertThat(owned).hasSize(1);
        assertThat(owned.get(0).path("error").asText()).contains("/headers/bcc: is a header Mailroom sets itself");

        // every malformed job is dead-lettered (terminal) and nothing is left on the queues that could still be
        // sent: only the good jobs reached the SMTP server
        Jobs.awaitSendQueuesDrained(env.api(), Duration.ofSeconds(60));
        assertThat(smtp.receivedCount()).isEqualTo(before + good.size());
        assertThat(env.api().getJson("/api/v1/jobs/" + prefix + "good-template").path("state").asText())
                .isEqualTo("sent_to_provider");
    }

    private static String templateJob(String messageId) {
        return """
                {"schema_version": 1, "message_id": "%s", "from": "noreply@example.com", "to": ["alice@example.com"],
                 "template_id": "password-reset",
                 "variables": {"product": "Mailroom", "user": {"name": "Alice"}, "expires_in_minutes": 30,
                               "reset_url": "https://example.com/reset?t=1&u=2"}}""".formatted(messageId);
    }

    private static JsonNode awaitDeadLetter(ItEnvironment env, String sha) {
        return Awaitility.await("a dead_letter row with payload sha256 " + sha)
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> deadLetterWithSha(env, sha), java.util.Objects::nonNull);
    }

    private static JsonNode deadLetterWithSha(ItEnvironment env, String sha) {
        for (JsonNode s : env.api().getJson("/api/v1/dead-letters?queue=mail.send&reason=poison&limit=1000").path("items")) {
            JsonNode full = env.api().getJson("/api/v1/dead-letters/" + s.path("id").asLong() + "?reveal=true");
            if (sha.equals(full.path("payload_sha256").asText())) {
                return full;
            }
        }
        return null;
    }

    private static String property(Message m, String name) {
        try {
            return m.getStringProperty(name);
        } catch (Exception e) {
            return null;
        }
    }

    private static byte[] bodyOf(Message m) throws Exception {
        if (m instanceof TextMessage t) {
            return t.getText().getBytes(StandardCharsets.UTF_8);
        }
        BytesMessage b = (BytesMessage) m;
        b.reset();
        byte[] out = new byte[(int) b.getBodyLength()];
        b.readBytes(out);
        return out;
    }


}
