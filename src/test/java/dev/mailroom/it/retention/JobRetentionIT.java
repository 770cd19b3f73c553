package dev.mailroom.it.retention;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.Prometheus;
import dev.mailroom.it.support.StoredRows;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Retention of finished jobs on a running server, its clock moved forward (no sleeping): 1,000 jobs of mixed outcomes
 * (sent, discarded as expired, refused as duplicates) and a few left waiting on a retry; past the 30-day retention
 * every finished one is gone, found by no search (its campaign, its recipient in any column of the schema), nothing
 * points at it any more in any column the schema says points at a job (its foreign keys, and the columns named
 * {@code ...job_id}) but its claim, every unfinished one is still there, and a late copy of a removed job, inside the
 * claim window, is still refused as a duplicate and not sent.
 *
 * <p>Runs on H2 (execution {@code it-time-travel}, tag {@code time-travel}) and on PostgreSQL in the {@code it-postgres}
 * boot (tag {@code retention}), last in each ({@link Order}, the executions order classes by it): it moves the clock
 * for good, and its retention pass removes every finished job of the tests before it, which by then are done.
 */
@Tag("time-travel")
@Tag("retention")
@Order(Integer.MAX_VALUE)
class JobRetentionIT {

    private static final int SENT = 800;
    private static final int EXPIRED = 100;
    private static final int DUPLICATES = 100;
    private static final int WAITING = 10;
    /** How long the jobs take to be sent or refused, and a retention pass over them to run. */
    private static final Duration SETTLE = Duration.ofMinutes(4);

    @Test
    void finishedJobsGoWithEverythingOfTheirsUnfinishedOnesStayAndALateDuplicateIsStillRefused() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String prefix = Jobs.runPrefix("retention");
        String campaign = prefix + "campaign";
        String finishedTo = "r" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        String waitingTo = "w" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        Instant past = Instant.now().minus(Duration.ofHours(1));
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < SENT; i++) {
            bodies.add(job(prefix + "sent-" + i, prefix + "key-" + i, campaign, finishedTo, null));
        }
        for (int i = 0; i < EXPIRED; i++) {
            bodies.add(job(prefix + "expired-" + i, prefix + "expired-key-" + i, campaign, finishedTo, past));
        }
        for (int i = 0; i < DUPLICATES; i++) {
            bodies.add(job(prefix + "dup-" + i, prefix + "key-" + i, campaign, finishedTo, null));
        }
        env.jms().sendAll("mail.send", bodies.subList(0, SENT));
        awaitCounts(env, campaign, Map.of("sent_to_provider", SENT));
        env.jms().sendAll("mail.send", bodies.subList(SENT, bodies.size()));
        awaitCounts(env, campaign, Map.of("sent_to_provider", SENT, "discarded", EXPIRED,
                "duplicate_suppressed", DUPLICATES));

        List<String> waiting = new ArrayList<>();
        env.smtp().setOutage(451, "4.3.0 try again later");
        try {
            for (int i = 0; i < WAITING; i++) {
                waiting.add(prefix + "waiting-" + i);
                env.jms().sendText("mail.send", job(prefix + "waiting-" + i, prefix + "waiting-key-" + i, campaign,
                        waitingTo, null));
            }
            awaitCounts(env, campaign, Map.of("sent_to_provider", SENT, "discarded", EXPIRED,
                    "duplicate_suppressed", DUPLICATES, "retry_scheduled", WAITING));
            double removedBefore = removed(env);
            List<Long> finished = search(env, "campaign_id=" + campaign).stream()
                    .filter(j -> !j.path("message_id").asText().startsWith(prefix + "waiting-"))
                    .map(j -> j.path("id").asLong()).toList();
            assertThat(finished).hasSize(SENT + EXPIRED + DUPLICATES);
            Map<String, Long> pointing = StoredRows.pointingAt(env.api(), "mail_job", "job_id", finished);
            assertThat(pointing).as("the columns the schema says point at a job")
                    .containsKeys(CHILDREN.toArray(String[]::new)).containsKeys(CLAIM, "dead_letter.job_id");
            assertThat(pointing).as("rows of the finished jobs before retention").allSatisfy((column, n) -> {
                if (CHILDREN.contains(column)) {
                    assertThat(n).as(column).isPositive();
                }
            });
            assertThat(StoredRows.where(env.api(), finishedTo)).as("where the finished jobs' recipient is before retention")
                    .containsKey("job_recipient.address");

            Duration offset = Duration.parse(env.api().getJson("/api/v1/testing/clock").path("offset").asText());
            HttpResponse<String> moved = env.api().put("/api/v1/testing/clock?offset="
                    + offset.plus(Duration.ofDays(31)), null);
            assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);

            // every finished job goes; the waiting ones stay, whatever they became meanwhile (a retry past its
            // validity is discarded now, too recently to be removed)
            Map<String, Integer> left = awaitStates(env, campaign, states -> states.values().stream()
                    .mapToInt(Integer::intValue).sum() == WAITING);
            assertThat(left.keySet()).as("what is left of the campaign").doesNotContain("sent_to_provider");
            for (String id : waiting) {
                assertThat(Jobs.state(env.api(), id)).as(id).isNotNull();
            }
            assertThat(Jobs.state(env.api(), prefix + "sent-0")).isNull();
            assertThat(Jobs.state(env.api(), prefix + "expired-0")).isNull();
            assertThat(Jobs.state(env.api(), prefix + "dup-0")).isNull();
            assertThat(search(env, "recipient=" + finishedTo)).as("recipient rows of the removed jobs").isEmpty();
            assertThat(StoredRows.where(env.api(), finishedTo)).as("where their recipient is, in any column of any table").isEmpty();
            assertThat(StoredRows.pointingAt(env.api(), "mail_job", "job_id", finished)).as("rows pointing at the removed jobs: only their claims")
                    .allSatisfy((column, n) -> assertThat(n > 0).as(column + ": " + n).isEqualTo(column.equals(CLAIM)));
            assertThat(search(env, "recipient=" + waitingTo)).as("the waiting jobs' recipients").hasSize(WAITING);
            assertThat(removed(env) - removedBefore).as("jobs removed, counted")
                    .isGreaterThanOrEqualTo(SENT + EXPIRED + DUPLICATES);
        } finally {
            env.smtp().setOutage(null, null);
        }

        // a late copy of a removed job (its message id and key), inside the claim window: a duplicate, not sent
        String late = prefix + "sent-0";
        int sentBefore = env.smtp().countsByMessageId().getOrDefault(Jobs.smtpMessageId(prefix + "key-0"), 0);
        assertThat(sentBefore).isEqualTo(1);
        env.jms().sendText("mail.send", bodies.get(0));
        JsonNode copy = env.api().awaitJson("/api/v1/jobs/" + late, j -> !j.path("state").isMissingNode()
                && !j.path("state").asText().equals("received"), Duration.ofSeconds(60));
        assertThat(copy.path("state").asText()).isEqualTo("duplicate_suppressed");
        assertThat(copy.toString()).contains("removed by retention");
        Jobs.awaitSendQueuesDrained(env.api(), Duration.ofSeconds(60));
        assertThat(env.smtp().countsByMessageId().get(Jobs.smtpMessageId(prefix + "key-0"))).isEqualTo(1);
        assertThat(Prometheus.scrape(env).get("mailroom_jobs_finished_oldest_age_seconds|")).isNotNull();
    }

    /** What hangs off a job, by the schema's foreign keys: every job of this test has each. */
    private static final List<String> CHILDREN = List.of("job_attempt.job_id", "job_event.job_id",
            "job_recipient.job_id");
    /** What points at a removed job and stays for the claim window. */
    private static final String CLAIM = "send_claim.job_id";

    private static String job(String messageId, String key, String campaign, String to, Instant expiresAt) {
        return """
                {"schema_version": 1, "message_id": "%s", "idempotency_key": "%s", "tenant": "it",
                 "campaign_id": "%s", "from": "Mailroom IT <noreply@example.com>", "to": ["%s"],
                 "subject": "Retention %s", "text": "Kept for a while."%s}""".formatted(messageId, key, campaign, to,
                messageId, expiresAt == null ? "" : ", \"expires_at\": \"" + expiresAt + "\"");
    }

    private static void awaitCounts(ItEnvironment env, String campaign, Map<String, Integer> expected) {
        awaitStates(env, campaign, states -> states.equals(new TreeMap<>(expected)));
    }

    private static Map<String, Integer> awaitStates(ItEnvironment env, String campaign,
                                                    java.util.function.Predicate<Map<String, Integer>> until) {
        List<Map<String, Integer>> last = new ArrayList<>(List.of(Map.of()));
        Awaitility.await("states of " + campaign).atMost(SETTLE).pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    Map<String, Integer> states = new TreeMap<>();
                    search(env, "campaign_id=" + campaign).forEach(j -> states.merge(j.path("state").asText(), 1,
                            Integer::sum));
                    last.set(0, states);
                    return until.test(states);
                });
        return last.get(0);
    }

    /** Every job the search finds, page by page. */
    private static List<JsonNode> search(ItEnvironment env, String query) {
        List<JsonNode> found = new ArrayList<>();
        String cursor = "";
        do {
            JsonNode page = env.api().getJson("/api/v1/jobs?" + query + "&limit=200" + cursor);
            page.path("items").forEach(found::add);
            cursor = page.path("next").isNull() || page.path("next").isMissingNode() ? null
                    : "&cursor=" + page.path("next").asText();
        } while (cursor != null);
        return found;
    }

    private static double removed(ItEnvironment env) throws Exception {
        return Prometheus.scrape(env).getOrDefault("mailroom_jobs_retention_removed_total|kind=job", 0.0);
    }
}
