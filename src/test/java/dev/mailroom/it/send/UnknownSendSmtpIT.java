package dev.mailroom.it.send;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.AlertReceiver;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A relay that takes the mail but answers the final "." of DATA only after the provider's read timeout:
 * SMTP cannot drop a duplicate, so the job ends {@code unknown} with an alert and is never resent by
 * itself; an operator's "send again" sends exactly one more copy with the same Message-ID, "mark as
 * sent" closes the other job.
 */
@Tag("smtp")
class UnknownSendSmtpIT {

    @Test
    void aRelayAnsweringAfterTheReadTimeoutGetsEachJobOnceUntilAnOperatorDecides() {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        AlertReceiver alerts = env.alerts();
        Instant start = Instant.now();
        String prefix = Jobs.runPrefix("unknown");
        String again = prefix + "again";
        String marked = prefix + "marked";
        try {
            smtp.setDelayBeforeReply(ItEnvironment.SMTP_READ_TIMEOUT.plusMillis(1500));
            env.jms().sendText("mail.send", Jobs.job(again));
            env.jms().sendText("mail.send", Jobs.job(marked));
            for (String id : List.of(again, marked)) {
                JsonNode job = env.api().awaitJson("/api/v1/jobs/" + id, j -> "unknown".equals(j.path("state").asText()),
                        Duration.ofSeconds(60));
                assertThat(job.path("attempts")).as("one call, never resent by itself").hasSize(1);
                assertThat(job.path("attempts").get(0).path("failure_class").asText()).isEqualTo("ambiguous");
                assertThat(Jobs.types(job)).contains("ambiguous_not_resent");
            }
            // the relay did take each mail (after the client stopped waiting): exactly once each
            assertThat(smtp.awaitReceived(2, Duration.ofSeconds(30))).isTrue();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(smtp.countsByMessageId().get(Jobs.smtpMessageId(again))).isEqualTo(1);
                assertThat(smtp.countsByMessageId().get(Jobs.smtpMessageId(marked))).isEqualTo(1);
            });
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(alerts.since(start))
                    .filteredOn(a -> "SendOutcomeUnknown".equals(a.label("alertname")))
                    .isNotEmpty());
        } finally {
            smtp.setDelayBeforeReply(Duration.ZERO);
        }

        // "send again": one more copy, same Message-ID (same bytes, same idempotency key)
        JsonNode accepted = env.api().postJson("/api/v1/jobs/" + again + "/send-again",
                "{\"reason\": \"relay log shows no delivery\"}", 202);
        // re-opened: received again, or already taken by a consumer (the answer reads the job after the copy was
        // published, and under load the consumer can begin, even finish, its attempt first)
        assertThat(accepted.path("state").asText()).isIn("received", "sending", "sent_to_provider");
        JsonNode sent = env.api().awaitJson("/api/v1/jobs/" + again,
                j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(60));
        assertThat(smtp.countsByMessageId().get(Jobs.smtpMessageId(again))).isEqualTo(2);
        assertThat(sent.path("attempts")).hasSize(2);
        assertThat(events(sent, "send_again")).singleElement().satisfies(e -> {
            assertThat(e.path("actor").asText()).isEqualTo("operator");
            assertThat(e.path("detail").asText()).contains("relay log shows no delivery");
        });

        // "mark as sent": closed without another copy
        JsonNode closed = env.api().postJson("/api/v1/jobs/" + marked + "/mark-sent",
                "{\"reason\": \"found in the relay's log\"}", 200);
        assertThat(closed.path("state").asText()).isEqualTo("sent_to_provider");
        assertThat(events(closed, "marked_sent")).singleElement()
                .satisfies(e -> assertThat(e.path("actor").asText()).isEqualTo("operator"));
        assertThat(smtp.countsByMessageId().get(Jobs.smtpMessageId(marked))).isEqualTo(1);

        // only an unknown job takes these actions; a reason is required; a viewer may not
        assertThat(env.api().post("/api/v1/jobs/" + marked + "/send-again", "{\"reason\": \"twice\"}").statusCode())
                .isEqualTo(409);
        assertThat(env.api().post("/api/v1/jobs/" + marked + "/mark-sent", "{}").statusCode()).isEqualTo(400);
        assertThat(env.api().asViewer().post("/api/v1/jobs/" + marked + "/mark-sent", "{\"reason\": \"x\"}")
                .statusCode()).isEqualTo(403);
    }

    private static List<JsonNode> events(JsonNode job, String type) {
        List<JsonNode> out = new ArrayList<>();
        job.path("timeline").forEach(e -> {
            if (type.equals(e.path("type").asText())) {
                out.add(e);
            }
        });
        return out;
    }
}
