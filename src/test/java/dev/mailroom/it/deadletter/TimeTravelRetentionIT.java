package dev.mailroom.it.deadletter;

import dev.mailroom.it.support.DlqSweeps;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Retention with the server's clock moved forward (no sleeping): a resolved dead letter is purged
 * after its retention, an open one is announced before it and then expires with its envelope kept
 * and only its payload dropped; the broker's copies go with them, and a broker-routed dead letter that
 * was discarded and purged does not come back through the sweeper. Moves the clock for good, so it has a
 * server of its own (tag {@code time-travel}, execution {@code it-time-travel}).
 */
@Tag("time-travel")
class TimeTravelRetentionIT {

    /** How long a retention pass of the dead-letter monitor may take over a suite's worth of dead letters. */
    private static final Duration RETENTION_PASS = Duration.ofSeconds(180);

    @Test
    void resolvedEntriesArePurgedOpenOnesAlertedThenExpiredWithTheirEnvelopeKept() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String prefix = Jobs.runPrefix("retention");
        String open = prefix + "open";
        String resolved = prefix + "resolved";
        String brokerRouted = prefix + "broker-routed";
        env.jms().sendText("mail.send", "{\"schema_version\":1,\"message_id\":\"" + open + "\"}");
        env.jms().sendText("mail.send", "{\"schema_version\":1,\"message_id\":\"" + resolved + "\"}");
        // a bare message on the DLQ, as the broker leaves one after its delivery limit: the sweeper records it
        env.jms().sendText("DLQ.mail.send", "{\"schema_version\":1,\"message_id\":\"" + brokerRouted + "\"}");
        long openId = idOf(env, open);
        long resolvedId = idOf(env, resolved);
        long brokerRoutedId = idOf(env, brokerRouted);
        assertThat(DlqSweeps.copies(env, "mail.send", resolved)).hasSize(1);
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> DlqSweeps.copies(env, "mail.send", brokerRouted).size() == 1);
        for (long id : new long[] {resolvedId, brokerRoutedId}) {
            HttpResponse<String> discard = env.api().post("/api/v1/dead-letters/" + id + "/discard",
                    "{\"reason\": \"test data, not a real job\"}");
            assertThat(discard.statusCode()).as(discard.body()).isEqualTo(200);
        }
        assertThat(DlqSweeps.copies(env, "mail.send", resolved)).as("discarded with its broker copy").isEmpty();
        assertThat(DlqSweeps.copies(env, "mail.send", brokerRouted)).as("discarded with its broker copy").isEmpty();
        JsonNode before = env.api().getJson("/api/v1/dead-letters/" + openId);
        Instant retentionUntil = Instant.parse(before.path("retention_until").asText());
        assertThat(before.path("retention_alerted_at").isNull()).isTrue();

        // 12 days and an hour later: within 2 days of the 14-day retention -> announced once
        moveClock(env, Duration.ofDays(12).plusHours(1));
        JsonNode alerted = env.api().awaitJson("/api/v1/dead-letters/" + openId,
                d -> !d.path("retention_alerted_at").isNull(), RETENTION_PASS);
        assertThat(alerted.path("status").asText()).isEqualTo("open");
        assertThat(env.api().get("/api/v1/dead-letters/" + resolvedId).statusCode()).isEqualTo(200);

        // past the retention: the resolved one is gone, the open one expired, envelope kept, payload dropped
        moveClock(env, Duration.between(Instant.now(), retentionUntil).plusHours(1));
        // the bound is the monitor's pass, not this entry: in the whole suite the h2 server holds ~1,100 dead
        // letters of earlier tests, all expiring with this one (each with its broker copy); measured 1 December,
        // one such pass took ~60 s (the timer skipped its ticks meanwhile), and this one is expired by the next
        JsonNode expired = env.api().awaitJson("/api/v1/dead-letters/" + openId,
                d -> "expired".equals(d.path("status").asText()), RETENTION_PASS);
        assertThat(expired.path("payload_base64").isNull()).isTrue();
        assertThat(expired.path("reason").asText()).isEqualTo("poison");
        assertThat(expired.path("message_id").asText()).isEqualTo(open);
        assertThat(expired.path("payload_sha256").asText()).hasSize(64);
        assertThat(expired.path("history")).hasSize(2);
        assertThat(expired.path("history").get(1).path("to_status").asText()).isEqualTo("expired");
        assertThat(DlqSweeps.copies(env, "mail.send", open)).as("expired: its broker copy is gone too").isEmpty();
        env.api().awaitJson("/api/v1/health", h -> env.api().get("/api/v1/dead-letters/" + resolvedId).statusCode() == 404
                        && env.api().get("/api/v1/dead-letters/" + brokerRoutedId).statusCode() == 404,
                RETENTION_PASS);
        assertThat(env.api().get("/api/v1/dead-letters/" + resolvedId).statusCode()).isEqualTo(404);

        // discard -> purge -> sweep: nothing comes back, nothing is left on the broker
        DlqSweeps.awaitMore(env, 2);
        for (String id : new String[] {open, resolved, brokerRouted}) {
            assertThat(env.api().getJson("/api/v1/dead-letters?message_id=" + id + "&status=open").path("items"))
                    .as("open dead letters of " + id).isEmpty();
            assertThat(DlqSweeps.copies(env, "mail.send", id)).as("broker copies of " + id).isEmpty();
        }
        assertThat(env.api().getJson("/api/v1/dead-letters?message_id=" + brokerRouted).path("items"))
                .as("the purged broker-routed dead letter stays purged").isEmpty();
        assertThat(env.jms().browse("DLQ.mail.send", "mr_reason IS NULL")).as("bare DLQ messages").isEmpty();

        // after recording, discarding, expiring and purging in the server (H2): the groups it keeps counted on
        // write (V8) are the groups of the rows themselves (a time window makes it group the rows)
        for (String status : new String[] {"open", "expired", "all"}) {
            String counted = "/api/v1/dead-letters/groups?status=" + status;
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(env.api().getJson(counted)).as(status)
                            .isEqualTo(env.api().getJson(counted + "&from=1970-01-01T00:00:00Z")));
        }
        JsonNode expiredGroups = env.api().getJson("/api/v1/dead-letters/groups?status=expired&reason=poison");
        assertThat(expiredGroups).isNotEmpty();
        assertThat(expiredGroups.get(0).path("fingerprint").asText()).isNotEmpty();
        assertThat(expiredGroups.get(0).path("consumer_versions").isArray()).isTrue();
        assertThat(expiredGroups.get(0).path("first_seen").asText()).isNotEmpty();
    }

    private static long idOf(ItEnvironment env, String messageId) {
        JsonNode page = env.api().awaitJson("/api/v1/dead-letters?message_id=" + messageId,
                p -> p.path("items").size() == 1, Duration.ofSeconds(60));
        return page.path("items").get(0).path("id").asLong();
    }

    private static void moveClock(ItEnvironment env, Duration offset) {
        HttpResponse<String> r = env.api().put("/api/v1/testing/clock?offset=" + offset, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
}
