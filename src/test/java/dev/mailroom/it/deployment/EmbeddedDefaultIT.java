package dev.mailroom.it.deployment;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The embedded default exactly as {@code mvn -Prun package} runs it (sandbox provider, H2, embedded
 * broker, no MAILROOM_* environment): the README's first experience, automated.
 */
@Tag("default-config")
class EmbeddedDefaultIT {

    private static ItEnvironment env;
    private static ApiClient api;

    @BeforeAll
    static void boot() {
        env = ItEnvironment.get();
        api = env.api();
    }

    @Test
    void healthIsUpOnTheSandbox() {
        JsonNode health = api.getJson("/api/v1/health");
        assertThat(health.path("status").asText()).isEqualTo("UP");
        assertThat(health.path("checks").path("database").asText()).isEqualTo("UP");
        assertThat(health.path("checks").path("broker").asText()).isEqualTo("UP");
        assertThat(health.path("provider").asText()).isEqualTo("sandbox");
    }

    @Test
    void theReadmeProducerExampleIsSentBySandboxWithExactlyOneAttempt() {
        String id = Jobs.runPrefix("readme") + "hello-1";
        // The README's Java example, with a unique message_id
        String job = """
                {"schema_version": 1, "message_id": "%s",
                 "from": "Mailroom <noreply@example.com>", "to": ["alice@example.com"],
                 "subject": "Hello", "text": "Hi Alice"}""".formatted(id);
        env.jms().sendText("mail.send", job);

        JsonNode sent = api.awaitJson("/api/v1/jobs/" + id,
                j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(60));
        assertThat(sent.path("provider").asText()).isEqualTo("sandbox");
        assertThat(sent.path("attempt_count").asInt()).isEqualTo(1);
        assertThat(sent.path("attempts")).hasSize(1);
        assertThat(sent.path("attempts").get(0).path("outcome").asText()).isEqualTo("accepted");
        assertThat(sent.path("attempts").get(0).path("irrevocable_at").isNull()).isFalse();
        assertThat(types(sent.path("timeline"))).containsExactly("received", "attempt_started", "sent");

        JsonNode outbox = api.getJson("/api/v1/sandbox/messages?limit=1000");
        List<JsonNode> mine = StreamSupport.stream(outbox.spliterator(), false)
                .filter(m -> id.equals(m.path("message_id").asText())).toList();
        assertThat(mine).hasSize(1);
        assertThat(mine.get(0).path("subject").asText()).isEqualTo("Hello");
        assertThat(mine.get(0).path("recipients").asText()).isEqualTo("alice@example.com");
    }

    @Test
    void theSandboxShowsAJobsAttachmentsWithTheirBytes() {
        String id = Jobs.runPrefix("sandbox-files") + "invoice";
        byte[] pdf = {'%', 'P', 'D', 'F', '-', '1', '.', '4', 10, 0, (byte) 0xFF};
        String content = java.util.Base64.getEncoder().encodeToString(pdf);
        env.jms().sendText("mail.send", """
                {"schema_version": 2, "message_id": "%s", "from": "Shop <noreply@example.com>", "to": ["alice@example.com"],
                 "subject": "Your invoice", "text": "Attached.",
                 "attachments": [{"filename": "invoice.pdf", "content_type": "application/pdf", "content_base64": "%s"}]}"""
                .formatted(id, content));

        api.awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()),
                Duration.ofSeconds(60));
        JsonNode outbox = api.getJson("/api/v1/sandbox/messages?limit=1000");
        JsonNode mine = StreamSupport.stream(outbox.spliterator(), false)
                .filter(m -> id.equals(m.path("message_id").asText())).findFirst().orElseThrow();
        assertThat(mine.path("attachments")).hasSize(1);
        JsonNode file = mine.path("attachments").get(0);
        assertThat(file.path("filename").asText()).isEqualTo("invoice.pdf");
        assertThat(file.path("content_type").asText()).isEqualTo("application/pdf");
        assertThat(file.path("size").asInt()).isEqualTo(pdf.length);
        assertThat(file.path("sha256").asText()).isEqualTo(dev.mailroom.provider.MailAttachment.sha256Of(pdf));
        assertThat(file.path("content_base64").asText()).isEqualTo(content);
    }

    @Test
    void theBulkQueueHasItsOwnConsumer() {
        String id = Jobs.runPrefix("bulk") + "one";
        env.jms().sendText("mail.send.bulk", Jobs.job(id));
        JsonNode job = api.awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()),
                Duration.ofSeconds(60));
        assertThat(job.path("queue").asText()).isEqualTo("mail.send.bulk");
    }

    @Test
    void aResentMessageIdIsNotSentTwice() {
        String id = Jobs.runPrefix("resend") + "dup";
        env.jms().sendText("mail.send", Jobs.job(id));
        api.awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()),
                Duration.ofSeconds(60));
        env.jms().sendText("mail.send", Jobs.job(id));
        JsonNode job = api.awaitJson("/api/v1/jobs/" + id,
                j -> types(j.path("timeline")).contains("redelivery_ignored"), Duration.ofSeconds(60));
        assertThat(job.path("attempt_count").asInt()).isEqualTo(1);
        JsonNode outbox = api.getJson("/api/v1/sandbox/messages?limit=1000");
        assertThat(StreamSupport.stream(outbox.spliterator(), false)
                .filter(m -> id.equals(m.path("message_id").asText())).count()).isEqualTo(1);
    }

    @Test
    void anotherJobWithAnAlreadySentIdempotencyKeyIsSuppressed() {
        String prefix = Jobs.runPrefix("key");
        String first = """
                {"schema_version": 1, "message_id": "%sa", "idempotency_key": "%skey",
                 "from": "noreply@example.com", "to": ["bob@example.com"], "subject": "Once", "text": "once"}"""
                .formatted(prefix, prefix);
        String second = first.replace(prefix + "a\"", prefix + "b\"");
        env.jms().sendText("mail.send", first);
        api.awaitJson("/api/v1/jobs/" + prefix + "a", j -> "sent_to_provider".equals(j.path("state").asText()),
                Duration.ofSeconds(60));
        env.jms().sendText("mail.send", second);
        JsonNode b = api.awaitJson("/api/v1/jobs/" + prefix + "b",
                j -> "duplicate_suppressed".equals(j.path("state").asText()), Duration.ofSeconds(60));
        assertThat(b.path("attempts")).isEmpty();
    }

    @Test
    void queuesReportTheSendQueueAndItsDeadLetterQueue() {
        JsonNode queues = api.getJson("/api/v1/queues");
        assertThat(queues).hasSize(2);
        assertThat(queues.get(0).path("queue").asText()).isEqualTo("mail.send");
        assertThat(queues.get(0).path("dead_letter_queue").asText()).isEqualTo("DLQ.mail.send");
        assertThat(queues.get(0).path("consumers").asLong()).isEqualTo(4);
        assertThat(queues.get(1).path("queue").asText()).isEqualTo("mail.send.bulk");
        assertThat(queues.get(1).path("dead_letter_queue").asText()).isEqualTo("DLQ.mail.send.bulk");
        assertThat(queues.get(1).path("consumers").asLong()).isEqualTo(2);
    }

    @Test
    void queueFiguresFollowTheBroker() {
        long before = api.getJson("/api/v1/queues").get(0).path("dead_letter_depth").asLong();
        env.jms().sendText("mail.send", "this is not a job " + Jobs.runPrefix("dlq"));
        JsonNode after = api.awaitJson("/api/v1/queues",
                q -> q.get(0).path("dead_letter_depth").asLong() == before + 1, Duration.ofSeconds(60));
        assertThat(after.get(0).path("dead_letter_depth").asLong()).isEqualTo(before + 1);
    }

    @Test
    void errorsAreJsonWithAReasonNeverAStackTrace() throws Exception {
        HttpResponse<String> missing = api.get("/api/v1/jobs/no-such-job");
        assertThat(missing.statusCode()).isEqualTo(404);
        JsonNode body = api.mapper().readTree(missing.body());
        assertThat(body.path("error").asText()).isEqualTo("job_not_found");
        assertThat(body.path("reason").asText()).contains("no-such-job");

        HttpResponse<String> badLimit = api.get("/api/v1/sandbox/messages?limit=lots");
        assertThat(badLimit.statusCode()).isEqualTo(400);
        assertThat(api.mapper().readTree(badLimit.body()).path("error").asText()).isEqualTo("invalid_limit");

        HttpResponse<String> tooLong = api.get("/api/v1/jobs/" + "x".repeat(300));
        assertThat(tooLong.statusCode()).isEqualTo(400);

        HttpResponse<String> noRoute = api.get("/api/v1/nothing-here");
        assertThat(noRoute.statusCode()).isEqualTo(404);
        assertThat(api.mapper().readTree(noRoute.body()).has("reason")).isTrue();

        HttpResponse<String> badId = api.get("/api/v1/dead-letters/abc");
        assertThat(badId.statusCode()).isEqualTo(400);

        HttpResponse<String> wrongMethod = api.delete("/api/v1/jobs/x");
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(wrongMethod.body()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void prometheusShowsMailroomMeters() throws Exception {
        String id = Jobs.runPrefix("metrics") + "m";
        env.jms().sendText("mail.send", Jobs.job(id));
        api.awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()),
                Duration.ofSeconds(60));
        HttpClient http = HttpClient.newHttpClient();
        URI prometheus = URI.create("http://127.0.0.1:" + env.server().managementPort() + "/prometheus");
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(prometheus).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        List<String> sentLines = r.body().lines()
                .filter(l -> l.startsWith("mailroom_jobs_total") && l.contains("outcome=\"sent_to_provider\""))
                .toList();
        assertThat(sentLines).hasSize(1);
        double count = Double.parseDouble(sentLines.get(0).substring(sentLines.get(0).lastIndexOf(' ') + 1));
        assertThat(count).isGreaterThanOrEqualTo(1.0);
        // the provider call really runs under MicroProfile Fault Tolerance (@Retry, @Timeout)
        assertThat(r.body().lines().filter(l -> l.startsWith("ft_invocations_total")
                && l.contains("dev.mailroom.provider.ProviderCalls.guarded") && l.contains("valueReturned")))
                .isNotEmpty();
    }

    private static List<String> types(JsonNode timeline) {
        List<String> types = new ArrayList<>();
        timeline.forEach(e -> types.add(e.path("type").asText()));
        return types;
    }
}
