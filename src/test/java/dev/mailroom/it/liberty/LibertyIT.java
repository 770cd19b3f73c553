package dev.mailroom.it.liberty;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.LibertyServer;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.jms.Message;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The same mailroom.war on Open Liberty (server-config/liberty, laid out by the build), against a standalone Artemis
 * broker and a real SMTP server on loopback: what a job goes through, and who may do what.
 */
@Tag("liberty")
class LibertyIT {

    static ArtemisBroker broker;
    static SmtpTestServer smtp;
    static LibertyServer server;
    static JmsClient jms;
    static ApiClient api;

    @BeforeAll
    static void start() {
        Path work = Path.of(System.getProperty("mailroom.it.work-dir", "target/it-work"));
        int offset = Integer.getInteger("mailroom.it.port-offset", 100);
        broker = ArtemisBroker.startSingle(work, offset);
        smtp = SmtpTestServer.start();
        server = LibertyServer.start(work, offset, broker.port(), broker.consoleUrl(), Map.of(
                "MAILROOM_PROVIDER", "smtp",
                "MAILROOM_SMTP_HOST", "127.0.0.1",
                "MAILROOM_SMTP_PORT", Integer.toString(smtp.port()),
                "MAILROOM_BREAKER_REQUEST_VOLUME", "1000000"));
        jms = new JmsClient("tcp://127.0.0.1:" + broker.port(), ArtemisBroker.MAILROOM_USER,
                ArtemisBroker.MAILROOM_PASSWORD);
        api = new ApiClient(server.apiBase());
    }

    @AfterAll
    static void stop() {
        if (jms != null) {
            jms.close();
        }
        if (server != null) {
            server.close();
        }
        if (smtp != null) {
            smtp.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void threeHundredJobsAreEachSentOnceThroughSmtp() {
        List<String> ids = Jobs.ids(Jobs.runPrefix("liberty-300"), 300);
        int before = smtp.receivedCount();
        jms.sendAll("mail.send", Jobs.jobs(ids));

        assertThat(smtp.awaitReceived(before + 300, Duration.ofMinutes(5)))
                .as("300 mails at the relay; messages.log:%n%s", tail(server.messagesLog())).isTrue();
        Map<String, Integer> counts = smtp.countsByMessageId();
        for (String id : ids) {
            assertThat(counts.get(Jobs.smtpMessageId(id))).as(id).isEqualTo(1);
        }
        Awaitility.await().atMost(Duration.ofMinutes(1))
                .until(() -> ids.stream().allMatch(id -> "sent_to_provider".equals(Jobs.state(api, id))));
    }

    @Test
    void aPoisonJobIsDeadLetteredOnItsQueuesDeadLetterQueueWithItsEnvelopeAndRow() throws Exception {
        String id = Jobs.runPrefix("liberty-poison");
        jms.sendText("mail.send", Jobs.job(id).replace("\"schema_version\": 1", "\"schema_version\": 99"));

        JsonNode deadLetter = Jobs.awaitDeadLetter(api, "mail.send", id, Duration.ofMinutes(2));
        assertThat(deadLetter.path("reason").asText()).isEqualTo("poison");
        assertThat(deadLetter.path("error_type").asText()).isEqualTo("unsupported_schema_version");
        Message copy = jms.browse("DLQ.mail.send", "mr_message_id = '" + id + "'").stream().findFirst().orElseThrow();
        assertThat(copy.getStringProperty("mr_reason")).isEqualTo("poison");
        assertThat(copy.getStringProperty("mr_source_queue")).isEqualTo("mail.send");
        assertThat(copy.getStringProperty("mr_error")).isNotBlank();
    }

    @Test
    void anOperatorPausesAndResumesAQueueAViewerMayNotAndAStrangerIsNotLetIn() {
        assertThat(api.as("viewer", "wrong").get("/api/v1/queues").statusCode()).isEqualTo(401);
        assertThat(api.asViewer().post("/api/v1/queues/mail.send.bulk/pause?reason=it", "").statusCode())
                .isEqualTo(403);

        JsonNode paused = api.postJson("/api/v1/queues/mail.send.bulk/pause?reason=it", "", 200);
        assertThat(paused.path("paused").asBoolean()).isTrue();
        assertThat(paused.path("consumers")).allSatisfy(c -> assertThat(c.path("delivery_active").asBoolean()).isFalse());
        JsonNode resumed = api.postJson("/api/v1/queues/mail.send.bulk/resume", "", 200);
        assertThat(resumed.path("paused").asBoolean()).isFalse();

        assertThat(api.anonymous().get("/console/login.html").statusCode()).isEqualTo(200);
    }

    private static String tail(String log) {
        return log.length() <= 4000 ? log : log.substring(log.length() - 4000);
    }
}
