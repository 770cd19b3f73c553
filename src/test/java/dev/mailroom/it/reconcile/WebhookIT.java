package dev.mailroom.it.reconcile;

import dev.mailroom.it.support.Webhooks;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import static dev.mailroom.it.support.Webhooks.awaitState;
import static dev.mailroom.it.support.Webhooks.deliver;
import static dev.mailroom.it.support.Webhooks.post;
import static dev.mailroom.it.support.Webhooks.serverNow;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The webhook endpoint on the real server (H2 and PostgreSQL: tag smtp runs in both): a Svix-signed call to the
 * configured {@code generic} profile is stored once; forged, stale, replayed and oversized calls get a 4xx and
 * store nothing; a profile that is not configured is 404, unauthenticated or not.
 */
@Tag("smtp")
class WebhookIT {

    static long stored(String id) {
        JsonNode events = ItEnvironment.get().api().getJson("/api/v1/provider-events?profile=generic&limit=1000");
        long n = 0;
        for (JsonNode e : events) {
            if (e.path("dedupe_key").asText().equals(id)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void a_signed_call_is_stored_once_and_every_forgery_is_refused_storing_nothing() throws Exception {
        String secret = ItEnvironment.WEBHOOK_SECRET;
        Instant now = serverNow();
        String id = "msg_" + UUID.randomUUID();
        String body = "{\"event_type\":\"delivered\",\"message_id\":\"" + id + "\",\"recipient\":\"alice@example.com\"}";

        HttpResponse<String> accepted = post("generic", id, now, body, secret);
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        assertThat(stored(id)).isEqualTo(1);

        assertThat(post("generic", id, now, body, secret).statusCode()).as("replayed").isEqualTo(409);
        String forgedId = "msg_" + UUID.randomUUID();
        assertThat(post("generic", forgedId, now, body,
                "whsec_" + Base64.getEncoder().encodeToString("some-other-secret-abcdef".getBytes(StandardCharsets.UTF_8)))
                .statusCode()).as("wrong key").isEqualTo(401);
        String staleId = "msg_" + UUID.randomUUID();
        assertThat(post("generic", staleId, now.minusSeconds(600), body, secret).statusCode()).as("stale").isEqualTo(409);
        String bigId = "msg_" + UUID.randomUUID();
        String big = "{\"pad\":\"" + "x".repeat(ItEnvironment.WEBHOOK_MAX_BYTES) + "\"}";
        HttpResponse<String> oversized = post("generic", bigId, now, big, secret);
        assertThat(oversized.statusCode()).as("oversized").isEqualTo(413);
        assertThat(oversized.body()).contains("webhook_oversized").doesNotContain("xxxx");

        assertThat(stored(id)).as("the replay stored nothing").isEqualTo(1);
        assertThat(stored(forgedId) + stored(staleId) + stored(bigId)).as("forgeries stored nothing").isZero();
    }

    @Test
    void a_profile_that_is_not_configured_is_not_found() throws Exception {
        HttpResponse<String> response = post("mailgun", "msg_x", serverNow(), "{}", ItEnvironment.WEBHOOK_SECRET);
        assertThat(response.statusCode()).isEqualTo(404);
    }

    @Test
    void a_delivered_event_moves_a_sent_job_to_delivered_and_a_later_bounce_to_bounced_never_back() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String id = Jobs.runPrefix("delivery") + "1";
        // a recipient of its own: the bounce puts it on tenant it's suppression list, which must not hold alice
        String recipient = id + "@example.com";
        env.jms().sendText("mail.send", Jobs.jobTo(id, java.util.List.of(recipient)));
        awaitState(id, "sent_to_provider");

        deliver("delivered", id, "250 2.0.0 OK queued", recipient);
        JsonNode delivered = awaitState(id, "delivered");
        assertThat(delivered.path("timeline").toString()).contains("delivery_delivered").contains(recipient)
                .contains("250 2.0.0 OK queued");

        deliver("bounced", id, "550 5.1.1 mailbox gone", recipient);
        awaitState(id, "bounced");
        deliver("delivered", id, "late duplicate delivery", recipient);
        // the late delivery is applied (on the timeline) but never undoes the bounce
        JsonNode after = env.api().awaitJson("/api/v1/jobs/" + id,
                j -> j.path("timeline").toString().contains("late duplicate delivery"), java.time.Duration.ofSeconds(60));
        assertThat(after.path("state").asText()).isEqualTo("bounced");
    }

    @Test
    void an_event_that_arrives_before_its_job_waits_and_is_applied_once_the_job_is_sent() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String id = Jobs.runPrefix("early") + "1";
        deliver("delivered", id, "early bird");
        env.jms().sendText("mail.send", Jobs.job(id));
        JsonNode job = awaitState(id, "delivered");
        assertThat(job.path("timeline").toString()).contains("early bird");
    }
}
