package dev.mailroom.it.redrive;

import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.RedriveScenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redrive on the real server: jobs dead-letter during an SMTP outage on mail.send.bulk, then
 * a plan of the outage's dead-letter group replays them: sample, wait, rest at the set rate, each mail once
 * ({@link RedriveScenario}, which LibertyIT runs too); a run during the outage, overlapping runs, expired and edited
 * entries, the lap cap, bad plans, a discard.
 */
@Tag("redrive")
class RedriveIT {

    private final ItEnvironment env = ItEnvironment.get();
    private final ApiClient api = env.api();
    private final RedriveScenario scenario = new RedriveScenario(env);

    @BeforeEach
    @AfterEach
    void noOutage() {
        scenario.outage(false);
    }

    @Test
    void afterTheOutageAPlanOfItsGroupSendsTheSampleThenTheRestAtTheSetRate() {
        scenario.afterTheOutageAPlanOfItsGroupSendsTheSampleThenTheRestAtTheSetRate(); // LibertyIT runs it too
    }

    @Test
    void withTheOutageStillOnTheRunStopsAtTheSamplesFirstFailureAndTheRestStaysOpen() {
        String prefix = Jobs.runPrefix("redrive-down");
        List<String> jobs = Jobs.ids(prefix, 40);
        Instant outageStart = Instant.now();
        scenario.outage(true);
        Map<String, Long> dead = scenario.deadLetterJobs(jobs, "retries_exhausted", outageStart);
        Instant windowEnd = Instant.now();

        ObjectNode filter = scenario.filter().put("queue", RedriveScenario.QUEUE).put("reason", "retries_exhausted")
                .put("from", outageStart.toString()).put("to", windowEnd.toString());
        JsonNode plan = scenario.plan(filter, null, null);
        assertThat(plan.path("cohort").path("count").asInt()).isEqualTo(40);
        String id = plan.path("id").asText();
        scenario.run(id);
        JsonNode record = scenario.await(id, RedriveScenario.status("stopped", "completed"), Duration.ofSeconds(120));
        assertThat(record.path("status").asText()).isEqualTo("stopped");
        assertThat(record.path("stop_reason").asText()).startsWith("the sample failed:");
        // the sample stops at its first failure (at 1/s, its first re-failure is seen long before the tenth send):
        // the sample entries it did not send and the whole remainder are not run, and open again
        List<JsonNode> sent = RedriveScenario.entries(record, "sample").stream()
                .filter(e -> !e.path("published_at").isNull() && !e.path("published_at").isMissingNode()).toList();
        assertThat(sent).as("sample entries published before the sample failed").isNotEmpty().hasSizeLessThan(10);
        List<JsonNode> unsent = RedriveScenario.entries(record, null).stream().filter(e -> !sent.contains(e)).toList();
        assertThat(unsent).hasSize(40 - sent.size())
                .allSatisfy(e -> assertThat(e.path("outcome").asText()).isEqualTo("not_run"));
        for (JsonNode e : unsent) {
            assertThat(api.getJson("/api/v1/dead-letters/" + e.path("dead_letter_id").asLong()).path("status").asText())
                    .isEqualTo("open");
        }
        // what the sample sent dead-letters again: each its next lap, linked to the replayed entry
        JsonNode settled = scenario.await(id, r -> RedriveScenario.entries(r, "sample").stream()
                .filter(e -> !e.path("outcome").asText().equals("not_run"))
                .allMatch(e -> e.path("outcome").asText().equals("dead_lettered_again")), Duration.ofSeconds(60));
        List<JsonNode> sampleSent = RedriveScenario.entries(settled, "sample").stream()
                .filter(e -> !e.path("outcome").asText().equals("not_run")).toList();
        assertThat(sampleSent).hasSize(sent.size());
        JsonNode laps = api.getJson("/api/v1/dead-letters?queue=" + RedriveScenario.QUEUE + "&status=open&from="
                + windowEnd + "&limit=1000");
        Set<Long> sampleIds = new HashSet<>();
        sampleSent.forEach(e -> sampleIds.add(e.path("dead_letter_id").asLong()));
        long linked = 0;
        for (JsonNode d : laps.path("items")) {
            JsonNode full = api.getJson("/api/v1/dead-letters/" + d.path("id").asLong());
            if (sampleIds.contains(full.path("previous_dead_letter_id").asLong())) {
                assertThat(full.path("lap").asInt()).isEqualTo(2);
                linked++;
            }
        }
        assertThat(linked).isEqualTo(sent.size());
        assertThat(dead).hasSize(40);
        for (String smtpId : RedriveScenario.smtpIds(jobs)) {
            assertThat(env.smtp().countsByMessageId()).doesNotContainKey(smtpId);
        }
    }

    @Test
    void twoRunsStartedAtOnceOnOverlappingCohortsNeverPublishAnEntryTwice() {
        String prefix = Jobs.runPrefix("redrive-race");
        List<String> jobs = Jobs.ids(prefix, 20);
        Instant start = Instant.now();
        scenario.outage(true);
        Map<String, Long> dead = scenario.deadLetterJobs(jobs, "retries_exhausted", start);
        scenario.outage(false);
        List<Long> ids = jobs.stream().map(dead::get).toList();

        JsonNode a = scenario.plan(withIds(ids.subList(0, 15)), 2, 10.0);
        JsonNode b = scenario.plan(withIds(ids.subList(5, 20)), 2, 10.0);
        CompletableFuture<JsonNode> runA = CompletableFuture.supplyAsync(() -> scenario.run(a.path("id").asText()));
        CompletableFuture<JsonNode> runB = CompletableFuture.supplyAsync(() -> scenario.run(b.path("id").asText()));
        runA.join();
        runB.join();
        JsonNode ra = scenario.await(a.path("id").asText(), RedriveScenario.status("completed", "stopped")
                .and(RedriveScenario.allOutcomes("sent", "skipped_changed")), Duration.ofSeconds(90));
        JsonNode rb = scenario.await(b.path("id").asText(), RedriveScenario.status("completed", "stopped")
                .and(RedriveScenario.allOutcomes("sent", "skipped_changed")), Duration.ofSeconds(90));
        Set<Long> sentByA = sentIds(ra);
        Set<Long> sentByB = sentIds(rb);
        assertThat(sentByA).doesNotContainAnyElementsOf(sentByB);
        Set<Long> all = new HashSet<>(sentByA);
        all.addAll(sentByB);
        assertThat(all).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(ra.path("outcomes").path("skipped_changed").asInt() + rb.path("outcomes").path("skipped_changed").asInt())
                .as("the 10 overlapping entries are skipped by one of the runs").isEqualTo(10);
        Map<String, Integer> counts = env.smtp().countsByMessageId();
        for (String id : RedriveScenario.smtpIds(jobs)) {
            assertThat(counts.get(id)).as("mails with Message-ID %s", id).isEqualTo(1);
        }
    }

    @Test
    void anExpiredEntryIsDiscardedNotSent() {
        String messageId = Jobs.runPrefix("redrive-expired") + "0";
        Instant start = Instant.now();
        scenario.outage(true);
        String job = """
                {"schema_version": 1, "message_id": "%s", "expires_at": "%s", "unsubscribe": {"url": "https://example.com/unsubscribe/it"},
                 "from": "noreply@example.com", "to": ["alice@example.com"], "subject": "Your code", "text": "1234"}"""
                .formatted(messageId, Instant.now().plusSeconds(8));
        env.jms().sendText(RedriveScenario.QUEUE, job);
        long id = scenario.awaitDeadLetters(List.of(messageId), "retries_exhausted", start).get(messageId);
        scenario.outage(false);
        Jobs.sleep(Math.max(0, Duration.between(Instant.now(), start.plusSeconds(9)).toMillis()));

        JsonNode run = api.postJson("/api/v1/dead-letters/" + id + "/replay", "{\"reason\": \"retry it\"}", 202);
        JsonNode record = scenario.await(run.path("id").asText(), RedriveScenario.status("completed", "stopped"),
                Duration.ofSeconds(60));
        assertThat(RedriveScenario.entries(record, null)).singleElement()
                .satisfies(e -> assertThat(e.path("outcome").asText()).isEqualTo("discarded_expired"));
        assertThat(api.getJson("/api/v1/dead-letters/" + id).path("status").asText()).isEqualTo("discarded");
        Jobs.sleep(1000);
        assertThat(env.smtp().countsByMessageId()).doesNotContainKey(Jobs.smtpMessageId(messageId));
    }

    @Test
    void anEditedPayloadIsValidatedRecordedWithItsDiffAndSentWithTheOriginalKey() {
        String messageId = Jobs.runPrefix("redrive-edit") + "0";
        String key = "order-" + messageId;
        Instant start = Instant.now();
        // no "to": poison (schema_violation), dead-lettered at once with its bytes
        env.jms().sendText(RedriveScenario.QUEUE, """
                {"schema_version": 1, "message_id": "%s", "idempotency_key": "%s", "unsubscribe": {"url": "https://example.com/unsubscribe/it"},
                 "from": "noreply@example.com", "subject": "Receipt", "text": "Thanks"}""".formatted(messageId, key));
        long id = scenario.awaitDeadLetters(List.of(messageId), "poison", start).get(messageId);
        String fixed = """
                {"schema_version": 1, "message_id": "%s", "idempotency_key": "%s", "unsubscribe": {"url": "https://example.com/unsubscribe/it"},
                 "from": "noreply@example.com", "to": ["bob@example.com"], "subject": "Receipt", "text": "Thanks"}"""
                .formatted(messageId, key);

        HttpResponse<String> broken = api.post("/api/v1/dead-letters/" + id + "/revisions",
                revision(fixed.replace("\"from\": \"noreply@example.com\",", ""), false));
        assertThat(broken.statusCode()).isEqualTo(400);
        assertThat(broken.body()).contains("invalid_payload");
        HttpResponse<String> newKey = api.post("/api/v1/dead-letters/" + id + "/revisions",
                revision(fixed.replace(key, key + "-2"), false));
        assertThat(newKey.statusCode()).isEqualTo(400);
        assertThat(newKey.body()).contains("idempotency_key_changed");
        assertThat(api.post("/api/v1/dead-letters/999999999/revisions", revision(fixed, false)).statusCode())
                .isEqualTo(404);

        JsonNode rev = api.postJson("/api/v1/dead-letters/" + id + "/revisions", revision(fixed, false), 201);
        assertThat(rev.path("revision").asInt()).isEqualTo(1);
        assertThat(rev.path("idempotency_key").asText()).isEqualTo(key);
        assertThat(rev.path("diff").asText()).contains("+  \"to\" : [ \"bob@example.com\" ]");
        assertThat(api.getJson("/api/v1/dead-letters/" + id + "/revisions").get(0).path("created_by").asText())
                .isNotBlank();

        JsonNode run = api.postJson("/api/v1/dead-letters/" + id + "/replay", "{\"reason\": \"recipient added\"}", 202);
        JsonNode record = scenario.await(run.path("id").asText(),
                RedriveScenario.status("completed").and(RedriveScenario.allOutcomes("sent")), Duration.ofSeconds(60));
        JsonNode entry = RedriveScenario.entries(record, null).get(0);
        assertThat(entry.path("revision").asInt()).isEqualTo(1);
        assertThat(entry.path("idempotency_key").asText()).isEqualTo(key);
        assertThat(entry.path("diff").asText()).contains("+  \"to\" : [ \"bob@example.com\" ]");
        assertThat(env.smtp().countsByMessageId().get(Jobs.smtpMessageId(key))).isEqualTo(1);
        // the original stays byte-for-byte on the dead letter
        assertThat(new String(java.util.Base64.getDecoder().decode(
                api.getJson("/api/v1/dead-letters/" + id).path("payload_base64").asText()))).doesNotContain("bob@");
    }

    @Test
    void aDeadLetterThatKeepsFailingAfterReplayStopsAtTheLapCap() {
        Instant start = Instant.now();
        String marker = Jobs.runPrefix("redrive-laps");
        env.jms().sendText(RedriveScenario.QUEUE, "still not a job " + marker);
        long id = api.awaitJson("/api/v1/dead-letters?queue=" + RedriveScenario.QUEUE + "&reason=poison&from=" + start,
                page -> page.path("items").size() == 1, Duration.ofSeconds(30)).path("items").get(0).path("id").asLong();
        for (int lap = 2; lap <= 3; lap++) {
            JsonNode run = api.postJson("/api/v1/dead-letters/" + id + "/replay", "{\"reason\": \"try again\"}", 202);
            JsonNode record = scenario.await(run.path("id").asText(), RedriveScenario.status("stopped", "completed")
                    .and(RedriveScenario.allOutcomes("dead_lettered_again")), Duration.ofSeconds(60));
            assertThat(record.path("status").asText()).isEqualTo("stopped");
            long previous = id;
            JsonNode next = api.awaitJson("/api/v1/dead-letters?queue=" + RedriveScenario.QUEUE + "&reason=poison&status=open"
                    + "&from=" + start, page -> findPrevious(page, previous) != null, Duration.ofSeconds(30));
            id = findPrevious(next, previous);
            JsonNode d = api.getJson("/api/v1/dead-letters/" + id);
            assertThat(d.path("lap").asInt()).isEqualTo(lap);
            assertThat(d.path("previous_dead_letter_id").asLong()).isEqualTo(previous);
            assertThat(api.getJson("/api/v1/dead-letters/" + previous).path("status").asText()).isEqualTo("replayed");
        }
        HttpResponse<String> capped = api.post("/api/v1/dead-letters/" + id + "/replay", "{\"reason\": \"once more\"}");
        assertThat(capped.statusCode()).isEqualTo(409);
        assertThat(capped.body()).contains("lap_cap");
    }

    private Long findPrevious(JsonNode page, long previous) {
        for (JsonNode item : page.path("items")) {
            JsonNode d = api.getJson("/api/v1/dead-letters/" + item.path("id").asLong());
            if (d.path("previous_dead_letter_id").asLong() == previous) {
                return d.path("id").asLong();
            }
        }
        return null;
    }

    @Test
    void aReplayWithoutASampleIsAskedForByNameAndABouncedReplayIsCountedAsBounced() {
        String prefix = Jobs.runPrefix("redrive-nosample");
        List<String> jobs = Jobs.ids(prefix, 2);
        Instant start = Instant.now();
        Map<String, Long> dead = new java.util.HashMap<>();
        for (String id : jobs) {
            env.smtp().enqueueReply(554, "5.9.99 something nobody has seen");
            env.jms().sendText(RedriveScenario.QUEUE, Jobs.job(id));
            dead.putAll(scenario.awaitDeadLetters(List.of(id), "unmapped_error", start));
        }
        ObjectNode filter = withIds(new ArrayList<>(dead.values()));

        HttpResponse<String> implicit = api.post("/api/v1/redrives", "{\"filter\": " + filter + ", \"sample_size\": 0}");
        assertThat(implicit.statusCode()).as(implicit.body()).isEqualTo(400);
        assertThat(implicit.body()).contains("skip_sample");

        JsonNode plan = api.postJson("/api/v1/redrives", "{\"filter\": " + filter + ", \"skip_sample\": true}", 201);
        assertThat(plan.path("options").path("skip_sample").asBoolean()).isTrue();
        assertThat(plan.path("options").path("sample_size").asInt()).isZero();
        assertThat(RedriveScenario.entries(plan, "sample")).isEmpty();
        assertThat(scenario.record(plan.path("id").asText()).path("options").path("skip_sample").asBoolean())
                .as("kept in its record").isTrue();

        // the first replay's recipient is refused for good: a failed provider call, so the run stops there
        env.smtp().enqueueReply(550, "5.1.1 <alice@example.com>: Recipient address rejected: User unknown");
        scenario.run(plan.path("id").asText());
        JsonNode record = scenario.await(plan.path("id").asText(), RedriveScenario.status("completed", "stopped")
                .and(r -> r.path("outcomes").path("bounced_permanent").asInt() == 1), Duration.ofSeconds(60));
        assertThat(record.path("outcomes").path("sent").asInt()).as("the bounced replay is not counted as sent: %s",
                record.path("outcomes")).isLessThanOrEqualTo(1);
        for (JsonNode e : record.path("entries")) {
            String state = api.getJson("/api/v1/jobs/" + e.path("message_id").asText() + "?queue="
                    + RedriveScenario.QUEUE).path("state").asText();
            if ("bounced_permanent".equals(e.path("outcome").asText())) {
                assertThat(state).isEqualTo("bounced_permanent");
            } else if ("sent".equals(e.path("outcome").asText())) {
                assertThat(state).isEqualTo("sent_to_provider");
            }
        }
    }

    @Test
    void badPlansAndUnknownIdsGetA4xxWithAReason() {
        assertThat(api.post("/api/v1/redrives", "{\"filter\": {}}").statusCode()).isEqualTo(400);
        assertThat(api.post("/api/v1/redrives", "{\"filter\": {\"queue\": \"nope\"}}").body()).contains("unknown queue");
        assertThat(api.post("/api/v1/redrives", "{\"filter\": {\"reason\": \"x\"}, \"sample_size\": -1}").statusCode())
                .isEqualTo(400);
        assertThat(api.post("/api/v1/redrives", "{\"filter\": {\"from\": \"yesterday\"}}").statusCode()).isEqualTo(400);
        assertThat(api.post("/api/v1/redrives", "{\"filter\": {\"colour\": \"red\"}}").statusCode()).isEqualTo(400);
        assertThat(api.post("/api/v1/redrives", "{\"action\": \"discard\", \"filter\": {\"reason\": \"x\"}}").body())
                .contains("needs a reason");
        assertThat(api.get("/api/v1/redrives/no-such-plan").statusCode()).isEqualTo(404);
        assertThat(api.post("/api/v1/redrives/no-such-plan/run", "").statusCode()).isEqualTo(404);
    }

    @Test
    void aFilteredCohortIsDiscardedWithARecordAfterADryRun() {
        String prefix = Jobs.runPrefix("redrive-discard");
        Instant start = Instant.now();
        for (int i = 0; i < 4; i++) {
            env.jms().sendText(RedriveScenario.QUEUE, "{\"schema_version\": 1, \"message_id\": \"" + prefix + i + "\"}");
        }
        Map<String, Long> dead = scenario.awaitDeadLetters(Jobs.ids(prefix, 4), "poison", start);
        ObjectNode body = api.mapper().createObjectNode().put("action", "discard").put("reason", "test data");
        body.set("filter", withIds(new ArrayList<>(dead.values())));
        JsonNode plan = api.postJson("/api/v1/redrives", body.toString(), 201);
        assertThat(plan.path("cohort").path("count").asInt()).isEqualTo(4);
        for (long id : dead.values()) {
            assertThat(api.getJson("/api/v1/dead-letters/" + id).path("status").asText()).isEqualTo("open");
        }
        JsonNode record = api.postJson("/api/v1/redrives/" + plan.path("id").asText() + "/run", "", 200);
        assertThat(record.path("status").asText()).isEqualTo("completed");
        assertThat(record.path("outcomes").path("discarded").asInt()).isEqualTo(4);
        for (long id : dead.values()) {
            JsonNode d = api.getJson("/api/v1/dead-letters/" + id);
            assertThat(d.path("status").asText()).isEqualTo("discarded");
            JsonNode last = d.path("history").get(d.path("history").size() - 1);
            assertThat(last.path("reason").asText()).contains("test data");
            assertThat(last.path("actor").asText()).isNotBlank();
            assertThat(d.path("payload_base64").isNull()).isFalse();
        }
    }

    private ObjectNode withIds(List<Long> ids) {
        ObjectNode f = scenario.filter();
        RedriveScenario.ids(f, ids);
        return f;
    }

    private String revision(String payload, boolean newKey) {
        ObjectNode body = api.mapper().createObjectNode().put("payload", payload).put("reason", "add the recipient")
                .put("new_idempotency_key", newKey);
        return body.toString();
    }

    private static Set<Long> sentIds(JsonNode record) {
        Set<Long> ids = new HashSet<>();
        record.path("entries").forEach(e -> {
            if ("sent".equals(e.path("outcome").asText())) {
                ids.add(e.path("dead_letter_id").asLong());
            }
        });
        return ids;
    }
}
