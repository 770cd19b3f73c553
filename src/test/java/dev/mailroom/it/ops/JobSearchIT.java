package dev.mailroom.it.ops;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Finding a person and reading her jobs over REST on the real server (tag smtp: H2, and PostgreSQL with its trigram
 * index): a part of her address finds the job to her own address and the one to a list's alias of it; a job's page
 * says its subject, when its producer queued it and when Mailroom took it, what became of a refused recipient,
 * which attempts used a retry, and links its dead letter; and the jobs waiting on a paused queue are listed without
 * being taken off it.
 */
@Tag("smtp")
class JobSearchIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String BULK = "mail.send.bulk";

    private final ItEnvironment env = ItEnvironment.get();
    private final ApiClient api = env.api();

    private static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String jobTo(String messageId, String recipient, String subject) {
        return """
                {"schema_version": 1, "message_id": "%s", "tenant": "it", "campaign_id": "it-person",
                 "unsubscribe": {"url": "https://example.com/unsubscribe/it"},
                 "from": "Mailroom IT <noreply@example.com>", "to": ["%s"], "subject": "%s", "text": "Hi."}"""
                .formatted(messageId, recipient, subject);
    }

    private static List<String> messageIds(JsonNode page) {
        List<String> ids = new ArrayList<>();
        page.path("items").forEach(i -> ids.add(i.path("message_id").asText()));
        return ids;
    }

    /**
     * A person of this run ({@code person}: letters and digits, ending in "alice") with two jobs: {@code refused}
     * to a list's alias of her address ({@code policy571-<person>@example.net}, refused 550 5.7.1 by the relay:
     * dead-lettered) and then {@code sent} to her own address ({@code <person>@example.com}, accepted).
     */
    record Person(String person, String refused, String sent) {

        static Person withTwoJobs(String prefix, String refusedSubject, String sentSubject, Duration wait) {
            ItEnvironment env = ItEnvironment.get();
            Person p = new Person(prefix.replace("-", "") + "alice", prefix + "refused", prefix + "sent");
            env.smtp().enqueueReply(550, "5.7.1 Message rejected: content violates policy");
            env.jms().sendText("mail.send", jobTo(p.refused, "policy571-" + p.person + "@example.net", refusedSubject));
            env.api().awaitJson("/api/v1/jobs/" + p.refused, j -> "dead_lettered".equals(j.path("state").asText()), wait);
            env.jms().sendText("mail.send", jobTo(p.sent, p.person + "@example.com", sentSubject));
            env.api().awaitJson("/api/v1/jobs/" + p.sent, j -> "sent_to_provider".equals(j.path("state").asText()), wait);
            return p;
        }
    }

    @Test
    void aPartOfHerAddressFindsBothOfHerJobsAndTheRefusedOnesPageSaysWhatHappened() {
        String prefix = Jobs.runPrefix("person");
        Instant before = Instant.now();
        Person her = Person.withTwoJobs(prefix, "Your invoice " + prefix, "Welcome " + prefix, WAIT);
        String person = her.person();
        String refused = her.refused();
        String sent = her.sent();

        for (String typed : List.of(person, "*" + person + "*", person.toUpperCase(java.util.Locale.ROOT))) {
            assertThat(messageIds(api.getJson("/api/v1/jobs?recipient=" + q(typed)))).as(typed)
                    .containsExactly(sent, refused);
        }
        assertThat(messageIds(api.getJson("/api/v1/jobs?recipient=" + q("-" + person + "@")))).containsExactly(refused);
        assertThat(messageIds(api.getJson("/api/v1/jobs?recipient=" + q(person + "*")))).as("a prefix stays a prefix")
                .containsExactly(sent);
        HttpAnswer tooShort = HttpAnswer.of(api.get("/api/v1/jobs?recipient=" + q("al")));
        assertThat(tooShort.status).isEqualTo(400);
        assertThat(tooShort.body).contains("invalid_recipient").contains("alice or *alice*");

        JsonNode job = api.getJson("/api/v1/jobs/" + refused);
        assertThat(job.path("subject").asText()).isEqualTo("Your invoice " + prefix);
        assertThat(job.path("template_id").isNull()).isTrue();
        Instant queued = Instant.parse(job.path("queued_at").asText());
        assertThat(queued).isAfterOrEqualTo(before.minusSeconds(5))
                .isBeforeOrEqualTo(Instant.parse(job.path("received_at").asText()));
        assertThat(job.path("recipients").get(0).path("delivery").asText()).as("refused, not 'not yet known'")
                .isEqualTo("refused");
        assertThat(job.path("attempts").get(0).path("used_retry").asBoolean()).isFalse();
        JsonNode deadLetters = job.path("dead_letters");
        assertThat(deadLetters).hasSize(1);
        assertThat(deadLetters.get(0).path("reason").asText()).isEqualTo("manual_review");
        JsonNode deadLetter = api.getJson("/api/v1/dead-letters/" + deadLetters.get(0).path("id").asLong());
        assertThat(deadLetter.path("message_id").asText()).isEqualTo(refused);

        JsonNode accepted = api.getJson("/api/v1/jobs/" + sent);
        assertThat(accepted.path("attempts").get(0).path("outcome").asText()).isEqualTo("accepted");
        assertThat(accepted.path("attempts").get(0).path("used_retry").asBoolean()).as("accepted at its first call")
                .isFalse();
        assertThat(accepted.path("retries_used").asInt()).isZero();
        assertThat(accepted.path("recipients").get(0).path("delivery").asText()).isEqualTo("not_yet_known");
        assertThat(accepted.path("dead_letters")).isEmpty();
    }

    @Test
    void theJobsWaitingOnAPausedQueueAreListedAndStayThereUntilItResumes() {
        String prefix = Jobs.runPrefix("waiting");
        List<String> ids = Jobs.ids(prefix, 3);
        try {
            assertThat(api.post("/api/v1/queues/" + BULK + "/pause", null).statusCode()).isEqualTo(200);
            for (String id : ids) {
                env.jms().sendText(BULK, jobTo(id, prefix + "waiter@example.com", "Waiting " + id));
            }
            JsonNode first = api.awaitJson("/api/v1/queues/" + BULK + "/waiting",
                    w -> waitingIds(w).containsAll(ids), WAIT);
            assertThat(first.path("paused").asBoolean()).isTrue();
            JsonNode mine = mine(first, ids.get(0));
            assertThat(mine.path("recipients").get(0).asText()).isEqualTo(prefix + "waiter@example.com");
            assertThat(mine.path("subject").asText()).isEqualTo("Waiting " + ids.get(0));
            assertThat(mine.path("queued_at").asText()).isNotBlank();
            assertThat(mine.path("retry_of").isNull()).isTrue();
            long depth = first.path("depth").asLong();
            assertThat(depth).isGreaterThanOrEqualTo(3);
            int browsable = env.jms().depth(BULK);

            // looked at again: still every one of them, and the queue holds as many as before
            JsonNode again = api.getJson("/api/v1/queues/" + BULK + "/waiting?limit=100");
            assertThat(waitingIds(again)).containsAll(ids);
            assertThat(again.path("depth").asLong()).isEqualTo(depth);
            assertThat(env.jms().depth(BULK)).isEqualTo(browsable);
            for (String id : ids) {
                assertThat(HttpAnswer.of(api.get("/api/v1/jobs/" + id)).status).as(id + ": not taken, so no job yet")
                        .isEqualTo(404);
            }
            assertThat(HttpAnswer.of(api.asViewer().get("/api/v1/queues/" + BULK + "/waiting")).status).isEqualTo(200);
            assertThat(HttpAnswer.of(api.get("/api/v1/queues/nope/waiting")).status).isEqualTo(404);
            assertThat(HttpAnswer.of(api.get("/api/v1/queues/" + BULK + "/waiting?limit=101")).status).isEqualTo(400);
        } finally {
            api.post("/api/v1/queues/" + BULK + "/resume", null);
        }
        // browsed, never consumed: once resumed each one is delivered, exactly as if nobody had looked
        for (String id : ids) {
            api.awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()), WAIT);
        }
    }

    private static List<String> waitingIds(JsonNode waiting) {
        List<String> ids = new ArrayList<>();
        waiting.path("items").forEach(i -> ids.add(i.path("message_id").asText()));
        return ids;
    }

    private static JsonNode mine(JsonNode waiting, String id) {
        for (JsonNode i : waiting.path("items")) {
            if (id.equals(i.path("message_id").asText())) {
                return i;
            }
        }
        throw new AssertionError(id + " not in " + waiting);
    }

    private record HttpAnswer(int status, String body) {
        static HttpAnswer of(java.net.http.HttpResponse<String> r) {
            return new HttpAnswer(r.statusCode(), r.body());
        }
    }
}
