package dev.mailroom.it.send;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.testsupport.SmtpTestServer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code send_at} on the real server and SMTP relay: a job waits on the broker as a scheduled message, shows
 * {@code scheduled} with its time, and reaches the relay within 2 s after that time; one cancelled by an operator
 * before its time is never sent (its copy comes and is ignored, recorded); and a restart of the server while jobs
 * wait loses none of them. H2 (crash execution: it restarts the server).
 */
@Tag("crash")
class ScheduledSendIT {

    private static final String QUEUE = "mail.send";
    /** How late a scheduled job may go out: within 2 s after its send time. */
    private static final Duration ON_TIME = Duration.ofSeconds(2);

    private static String job(String messageId, Instant sendAt) {
        return """
                {"schema_version": 2, "message_id": "%s", "from": "Shop <noreply@example.com>",
                 "to": ["alice@example.com"], "subject": "Reminder: tomorrow at 9:00", "text": "See you.",
                 "send_at": "%s"}""".formatted(messageId, sendAt);
    }

    @Test
    void aJobThirtySecondsAheadIsScheduledThenSentWithinTwoSecondsOfItsTimeAndACancelledOneNever() {
        ItEnvironment env = ItEnvironment.get();
        ApiClient api = env.api();
        SmtpTestServer smtp = env.smtp();
        Pair pair = scheduled(env, "send-at", 30);
        String sent = pair.sent();
        String cancelled = pair.cancelled();
        Instant sendAt = pair.sendAt();
        // the list finds them by state, with their time
        JsonNode listed = api.getJson("/api/v1/jobs?state=scheduled&message_id=" + sent).path("items");
        assertThat(listed).singleElement().satisfies(row ->
                assertThat(Instant.parse(row.path("send_at").asText())).isEqualTo(sendAt));
        assertThat(Instant.now()).as("both were seen scheduled before their time").isBefore(sendAt);

        JsonNode after = api.postJson("/api/v1/jobs/" + cancelled + "/cancel",
                "{\"reason\": \"the customer cancelled the appointment\"}", 200);
        assertThat(after.path("state").asText()).isEqualTo("cancelled");
        JsonNode last = after.path("timeline").get(after.path("timeline").size() - 1);
        assertThat(last.path("type").asText()).isEqualTo("cancelled");
        assertThat(last.path("actor").asText()).isEqualTo(ApiClient.OPERATOR_USER);
        assertThat(last.path("detail").asText()).contains("the customer cancelled the appointment");
        // a second cancellation is refused with its reason, not a 500
        assertThat(api.post("/api/v1/jobs/" + cancelled + "/cancel", "{\"reason\": \"again\"}").statusCode())
                .isEqualTo(409);

        SmtpTestServer.ReceivedMail got = Awaitility.await("the scheduled job at the relay")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> smtp.received().stream().filter(m -> Jobs.smtpMessageId(sent).equals(m.messageId()))
                        .findFirst().orElse(null), Objects::nonNull);
        Duration late = Duration.between(sendAt, got.at());
        System.out.printf("send_at %s, at the relay %s: %d ms after its time%n", sendAt, got.at(), late.toMillis());
        assertThat(got.at()).as("not before its time").isAfterOrEqualTo(sendAt);
        assertThat(late).as("within 2 s after its time").isLessThanOrEqualTo(ON_TIME);
        assertThat(awaitState(api, sent, "sent_to_provider").path("attempts")).hasSize(1);

        // the cancelled one's copy came at the same time and was ignored: no attempt, nothing at the relay
        JsonNode ignored = awaitTimeline(api, cancelled, "redelivery_ignored");
        assertThat(ignored.path("state").asText()).isEqualTo("cancelled");
        assertThat(ignored.path("attempts")).isEmpty();
        assertThat(smtp.countsByMessageId()).doesNotContainKey(Jobs.smtpMessageId(cancelled));
    }

    @Test
    void jobsWaitingForTheirTimeOutliveARestartOfTheServer() {
        ItEnvironment env = ItEnvironment.get();
        ApiClient api = env.api();
        SmtpTestServer smtp = env.smtp();
        Pair pair = scheduled(env, "send-at-restart", 45);
        String kept = pair.sent();
        String cancelled = pair.cancelled();
        Instant sendAt = pair.sendAt();
        api.postJson("/api/v1/jobs/" + cancelled + "/cancel", "{\"reason\": \"no longer wanted\"}", 200);

        env.server().restart();

        SmtpTestServer.ReceivedMail got = Awaitility.await("the scheduled job at the relay after the restart")
                .atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> smtp.received().stream().filter(m -> Jobs.smtpMessageId(kept).equals(m.messageId()))
                        .findFirst().orElse(null), Objects::nonNull);
        assertThat(got.at()).as("not before its time").isAfterOrEqualTo(sendAt);
        JsonNode job = awaitState(api, kept, "sent_to_provider");
        assertThat(Jobs.types(job)).containsSubsequence("received", "scheduled", "attempt_started", "sent");
        assertThat(job.path("attempts")).hasSize(1);
        JsonNode ignored = awaitTimeline(api, cancelled, "redelivery_ignored");
        assertThat(ignored.path("state").asText()).isEqualTo("cancelled");
        assertThat(smtp.countsByMessageId()).containsEntry(Jobs.smtpMessageId(kept), 1)
                .doesNotContainKey(Jobs.smtpMessageId(cancelled));
    }

    /** Two jobs due {@code seconds} from now: one to be sent, one to be cancelled. */
    private record Pair(String sent, String cancelled, Instant sendAt) { }

    /** Publishes a {@link Pair} and waits until both are scheduled with their time and no attempt. */
    private static Pair scheduled(ItEnvironment env, String name, int seconds) {
        String prefix = Jobs.runPrefix(name);
        Pair pair = new Pair(prefix + "sent", prefix + "cancelled",
                Instant.now().plusSeconds(seconds).truncatedTo(ChronoUnit.MILLIS));
        env.jms().sendText(QUEUE, job(pair.sent(), pair.sendAt()));
        env.jms().sendText(QUEUE, job(pair.cancelled(), pair.sendAt()));
        for (String id : new String[] {pair.sent(), pair.cancelled()}) {
            JsonNode scheduled = awaitState(env.api(), id, "scheduled");
            assertThat(Instant.parse(scheduled.path("send_at").asText())).isEqualTo(pair.sendAt());
            assertThat(scheduled.path("attempts")).isEmpty();
        }
        return pair;
    }

    private static JsonNode awaitState(ApiClient api, String messageId, String state) {
        return Awaitility.await(messageId + " " + state).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> Jobs.state(api, messageId) == null ? null : api.getJson("/api/v1/jobs/" + messageId),
                        j -> j != null && state.equals(j.path("state").asText()));
    }

    private static JsonNode awaitTimeline(ApiClient api, String messageId, String type) {
        return Awaitility.await(messageId + " " + type).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> api.getJson("/api/v1/jobs/" + messageId), j -> Jobs.types(j).contains(type));
    }
}
