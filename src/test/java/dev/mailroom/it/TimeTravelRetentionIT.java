package dev.mailroom.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Retention with the server's clock moved forward (no sleeping): a resolved dead letter is purged
 * after its retention, an open one is announced before it and then expires with its envelope kept
 * and only its payload dropped. Moves the clock for good, so it runs last in its JVM.
 */
@Tag("clock")
class TimeTravelRetentionIT {

    @Test
    void resolvedEntriesArePurgedOpenOnesAlertedThenExpiredWithTheirEnvelopeKept() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String prefix = Jobs.runPrefix("retention");
        String open = prefix + "open";
        String resolved = prefix + "resolved";
        env.jms().sendText("mail.send", "{\"schema_version\":1,\"message_id\":\"" + open + "\"}");
        env.jms().sendText("mail.send", "{\"schema_version\":1,\"message_id\":\"" + resolved + "\"}");
        long openId = idOf(env, open);
        long resolvedId = idOf(env, resolved);
        HttpResponse<String> discard = env.api().post("/api/v1/dead-letters/" + resolvedId + "/discard",
                "{\"reason\": \"test data, not a real job\"}");
        assertThat(discard.statusCode()).as(discard.body()).isEqualTo(200);
        JsonNode before = env.api().getJson("/api/v1/dead-letters/" + openId);
        Instant retentionUntil = Instant.parse(before.path("retention_until").asText());
        assertThat(before.path("retention_alerted_at").isNull()).isTrue();

        // 12 days and an hour later: within 2 days of the 14-day retention -> announced once
        moveClock(env, Duration.ofDays(12).plusHours(1));
        JsonNode alerted = env.api().awaitJson("/api/v1/dead-letters/" + openId,
                d -> !d.path("retention_alerted_at").isNull(), Duration.ofSeconds(30));
        assertThat(alerted.path("status").asText()).isEqualTo("open");
        assertThat(env.api().get("/api/v1/dead-letters/" + resolvedId).statusCode()).isEqualTo(200);

        // past the retention: the resolved one is gone, the open one expired, envelope kept, payload dropped
        moveClock(env, Duration.between(Instant.now(), retentionUntil).plusHours(1));
        JsonNode expired = env.api().awaitJson("/api/v1/dead-letters/" + openId,
                d -> "expired".equals(d.path("status").asText()), Duration.ofSeconds(30));
        assertThat(expired.path("payload_base64").isNull()).isTrue();
        assertThat(expired.path("reason").asText()).isEqualTo("poison");
        assertThat(expired.path("message_id").asText()).isEqualTo(open);
        assertThat(expired.path("payload_sha256").asText()).hasSize(64);
        assertThat(expired.path("history")).hasSize(2);
        assertThat(expired.path("history").get(1).path("to_status").asText()).isEqualTo("expired");
        env.api().awaitJson("/api/v1/health", h -> env.api().get("/api/v1/dead-letters/" + resolvedId).statusCode() == 404,
                Duration.ofSeconds(30));
        assertThat(env.api().get("/api/v1/dead-letters/" + resolvedId).statusCode()).isEqualTo(404);
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
