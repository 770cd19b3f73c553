package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/** Stop the line on a real server, and reading a queue's paused state, its pages and its jobs' calls for the ITs. */
public final class StopTheLineScenario {

    public static final String SEND = "mail.send";

    private final Mailroom m;
    private final ApiClient api;

    public StopTheLineScenario(Mailroom m) {
        this.m = m;
        this.api = m.api();
    }

    /**
     * The relay answers 535 (revoked credentials) to every call: the queue pauses as {@code systemic} after a few
     * calls, pages, and while paused the probe retries the head job without using up a retry or dead-lettering
     * anything; once the relay accepts again the probe resumes the queue and every job is sent exactly once.
     */
    public void revokedCredentialsStopTheLineUntilTheyWorkAgain() {
        String prefix = Jobs.runPrefix("revoked");
        List<String> ids = Jobs.ids(prefix, 30);
        Instant start = Instant.now();
        m.smtp().setOutage(535, "5.7.8 Authentication credentials invalid");
        try {
            m.jms().sendAll(SEND, Jobs.jobs(ids));
            JsonNode paused = awaitQueue(SEND, q -> q.path("paused").asBoolean()
                    && "systemic".equals(q.path("paused_reason").asText()), Duration.ofSeconds(30));
            int callsAtPause = providerCalls(ids);
            assertThat(callsAtPause).as("provider calls until the line stopped").isBetween(1, 25);
            assertThat(paused.path("paused_since").asText()).isNotBlank();
            assertThat(paused.path("paused_detail").asText()).contains("535");

            List<AlertReceiver.Received> pages = awaitAlerts(start, a -> "QueuePaused".equals(a.label("alertname"))
                    && SEND.equals(a.label("queue")) && "systemic".equals(a.label("reason")));
            assertThat(pages.get(0).label("severity")).isEqualTo("page");

            // while stopped, the probe keeps trying the head job; nothing ends, nothing uses up a retry
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> providerCalls(ids) >= callsAtPause + 2);
            for (String id : ids) {
                JsonNode job = jobOrNull(id);
                if (job != null) {
                    assertThat(job.path("state").asText()).as(id).isIn("received", "sending", "retry_scheduled");
                    assertNoRetryUsedBySystemicAnswers(id, job);
                }
            }
            System.err.printf("[stop-the-line] paused after %d provider calls for %d jobs%n", callsAtPause, ids.size());
        } finally {
            m.smtp().setOutage(null, null); // the credentials are fixed
        }

        // the next probe is accepted and starts the line again; every job is sent exactly once
        awaitQueue(SEND, q -> !q.path("paused").asBoolean() && !q.hasNonNull("paused_reason"), Duration.ofSeconds(20));
        Map<String, String> smtpIds = smtpIds(ids);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> m.smtp().countsByMessageId().keySet()
                .containsAll(smtpIds.values()));
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream()
                .allMatch(id -> "sent_to_provider".equals(Jobs.state(api, id))));
        Map<String, Integer> counts = m.smtp().countsByMessageId();
        smtpIds.values().forEach(id -> assertThat(counts.get(id)).as("copies of " + id).isEqualTo(1));
        assertThat(m.jms().browse("DLQ." + SEND, "mr_message_id LIKE '" + prefix + "%'")).as("dead letters").isEmpty();
        int systemic = 0;
        for (String id : ids) {
            JsonNode job = jobOrNull(id);
            systemic += assertNoRetryUsedBySystemicAnswers(id, job);
            assertThat(job.path("attempt_count").asInt()).as("retries used by " + id + " (its accepted attempt only)")
                    .isLessThanOrEqualTo(1);
        }
        assertThat(systemic).as("attempts answered 535").isPositive();
    }

    /** Every finished attempt answered {@code systemic} used no retry and was put back; returns how many. */
    private static int assertNoRetryUsedBySystemicAnswers(String id, JsonNode job) {
        int n = 0;
        for (JsonNode a : job.path("attempts")) {
            if ("systemic".equals(a.path("failure_class").asText())) {
                assertThat(a.path("consumed_attempt").asBoolean()).as("a 535 attempt of " + id + " used a retry").isFalse();
                assertThat(a.path("decision").asText()).as(id).startsWith("pause");
                n++;
            }
        }
        return n;
    }

    /** The queue's entry in {@code GET /api/v1/queues}. */
    public JsonNode queue(String name) {
        for (JsonNode q : api.getJson("/api/v1/queues")) {
            if (name.equals(q.path("queue").asText())) {
                return q;
            }
        }
        throw new AssertionError("no queue " + name + " in GET /api/v1/queues");
    }

    public JsonNode awaitQueue(String name, Predicate<JsonNode> until, Duration timeout) {
        JsonNode[] last = new JsonNode[1];
        Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
            last[0] = queue(name);
            return until.test(last[0]);
        });
        return last[0];
    }

    public List<AlertReceiver.Received> awaitAlerts(Instant since, Predicate<AlertReceiver.Received> which) {
        List<AlertReceiver.Received> found = new ArrayList<>();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            found.clear();
            found.addAll(m.alerts().since(since).stream().filter(which).toList());
            return !found.isEmpty();
        });
        return found;
    }

    public JsonNode jobOrNull(String id) {
        return api.get("/api/v1/jobs/" + id).statusCode() == 404 ? null : api.getJson("/api/v1/jobs/" + id);
    }

    public int providerCalls(List<String> ids) {
        int calls = 0;
        for (String id : ids) {
            JsonNode job = jobOrNull(id);
            calls += job == null ? 0 : job.path("provider_calls").asInt();
        }
        return calls;
    }

    /** Job id to the Message-ID its mail carries at the relay. */
    public static Map<String, String> smtpIds(List<String> ids) {
        Map<String, String> out = new HashMap<>();
        ids.forEach(id -> out.put(id, Jobs.smtpMessageId(id)));
        return out;
    }
}
