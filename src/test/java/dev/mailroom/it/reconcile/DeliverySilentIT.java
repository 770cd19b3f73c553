package dev.mailroom.it.reconcile;

import dev.mailroom.it.support.Prometheus;
import dev.mailroom.it.support.Webhooks;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The delivery watch with the movable clock (no sleeping): a job still {@code sent_to_provider} more than the
 * provider's limit (2 hours) after its send, without any provider event, raises a DeliverySilent alert and
 * counts in {@code mailroom_reconcile_silent_total}; it stays {@code sent_to_provider} (never assumed
 * failed). A job the provider spoke of raises nothing. Moves the clock forward for good: its own server (tag
 * {@code time-travel}).
 */
@Tag("time-travel")
class DeliverySilentIT {

    @Test
    void a_job_without_provider_news_past_the_limit_raises_an_alert_and_is_never_assumed_failed() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        Instant start = Instant.now();
        String prefix = Jobs.runPrefix("silent");
        String heard = prefix + "heard";
        String silent = prefix + "silent";
        // heard is sent first: the watch takes silent jobs oldest first, so by the time silent is flagged, heard was judged
        env.jms().sendText("mail.send", Jobs.job(heard));
        Webhooks.awaitState(heard, "sent_to_provider");
        Webhooks.deliver("deferred", heard, "421 4.7.0 try again later");
        env.api().awaitJson("/api/v1/jobs/" + heard, j -> j.path("timeline").toString().contains("delivery_deferred"), Duration.ofSeconds(60));
        env.jms().sendText("mail.send", Jobs.job(silent));
        Webhooks.awaitState(silent, "sent_to_provider");

        Duration offset = Duration.parse(env.api().getJson("/api/v1/testing/clock").path("offset").asText());
        HttpResponse<String> moved = env.api().put("/api/v1/testing/clock?offset=" + offset.plusHours(2).plusMinutes(5), null);
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);

        JsonNode flagged = env.api().awaitJson("/api/v1/jobs/" + silent,
                j -> j.path("timeline").toString().contains("delivery_silent"), Duration.ofSeconds(90));
        assertThat(flagged.path("state").asText()).as("never assumed failed").isEqualTo("sent_to_provider");
        assertThat(Jobs.types(env.api().getJson("/api/v1/jobs/" + heard))).doesNotContain("delivery_silent");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(env.alerts().since(start))
                .filteredOn(a -> "DeliverySilent".equals(a.label("alertname")))
                .isNotEmpty());
        assertThat(Prometheus.scrape(env).get("mailroom_reconcile_silent_total|provider=smtp"))
                .isNotNull().isGreaterThanOrEqualTo(1.0);
    }
}
