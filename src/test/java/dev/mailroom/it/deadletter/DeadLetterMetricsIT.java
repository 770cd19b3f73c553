package dev.mailroom.it.deadletter;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Prometheus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * After a mixed run (sent, poison, content policy, soft bounce), one Prometheus scrape and one API call
 * tell the same story: open dead letters, oldest age and retention per (queue, reason), arrivals, and
 * jobs by state.
 */
@Tag("smtp")
class DeadLetterMetricsIT {


    @Test
    void prometheusAndTheApiAgreeAfterAMixedRun() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String prefix = Jobs.runPrefix("mixed");
        env.smtp().enqueueReply(550, "5.7.1 rejected by policy");
        env.jms().sendText("mail.send", Jobs.job(prefix + "policy"));
        env.api().awaitJson("/api/v1/jobs/" + prefix + "policy", j -> "dead_lettered".equals(j.path("state").asText()),
                Duration.ofSeconds(60));
        for (int i = 0; i < 3; i++) {
            env.jms().sendText("mail.send", "not a job " + prefix + i);
        }
        for (String id : Jobs.ids(prefix + "ok-", 5)) {
            env.jms().sendText("mail.send", Jobs.job(id));
        }
        for (String id : Jobs.ids(prefix + "ok-", 5)) {
            env.api().awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()),
                    Duration.ofSeconds(60));
        }
        // a snapshot taken after everything above is recorded (the monitor runs every second here)
        Instant after = Instant.now().plusMillis(200);
        JsonNode stats = env.api().awaitJson("/api/v1/dead-letters/stats",
                s -> Instant.parse(s.path("as_of").asText()).isAfter(after), Duration.ofSeconds(30));
        // a scrape bracketed by two API answers: the gauges read a snapshot taken between them (the same one when
        // both answers are of one snapshot; on a loaded machine a call can outlast the monitor's 1 s period)
        Map<String, Double> metrics = Map.of();
        JsonNode before = stats;
        for (int i = 0; i < 50; i++) {
            before = env.api().getJson("/api/v1/dead-letters/stats");
            metrics = Prometheus.scrape(env);
            stats = env.api().getJson("/api/v1/dead-letters/stats");
            if (before.path("as_of").asText().equals(stats.path("as_of").asText())) {
                break;
            }
        }
        Instant asOf = Instant.parse(stats.path("as_of").asText());
        Instant earliest = Instant.parse(before.path("as_of").asText());
        assertThat(stats.path("open")).isNotEmpty();
        long openPoison = 0;
        for (JsonNode g : stats.path("open")) {
            String labels = "queue=" + g.path("queue").asText() + ",reason=" + g.path("reason").asText();
            assertThat(metrics.get("mailroom_deadletter_open|" + labels)).as(labels).isEqualTo(g.path("open").asDouble());
            Instant oldest = Instant.parse(g.path("oldest_failed_at").asText());
            assertThat(metrics.get("mailroom_deadletter_oldest_age_seconds|" + labels)).as(labels)
                    .isBetween(Duration.between(oldest, earliest).toMillis() / 1000.0,
                            Duration.between(oldest, asOf).toMillis() / 1000.0);
            Instant nearest = Instant.parse(g.path("nearest_retention").asText());
            assertThat(metrics.get("mailroom_deadletter_retention_expiry_seconds|" + labels)).as(labels)
                    .isBetween(Duration.between(asOf, nearest).toMillis() / 1000.0,
                            Duration.between(earliest, nearest).toMillis() / 1000.0);
            if (g.path("queue").asText().equals("mail.send") && g.path("reason").asText().equals("poison")) {
                openPoison = g.path("open").asLong();
            }
        }
        assertThat(openPoison).isGreaterThanOrEqualTo(3);
        // the API's own list agrees with the figure
        long listed = 0;
        for (JsonNode page = null; page == null || !page.path("next").isNull(); ) {
            int offset = page == null ? 0 : page.path("next").asInt();
            page = env.api().getJson("/api/v1/dead-letters?queue=mail.send&reason=poison&status=open&limit=1000&offset=" + offset);
            listed += page.path("items").size();
        }
        assertThat(listed).isEqualTo(openPoison);
        // arrivals are counted (at least what this test dead-lettered)
        assertThat(metrics.get("mailroom_deadletter_arrivals_total|queue=mail.send,reason=poison")).isGreaterThanOrEqualTo(3.0);
        assertThat(metrics.get("mailroom_deadletter_arrivals_total|queue=mail.send,reason=manual_review")).isGreaterThanOrEqualTo(1.0);
        for (JsonNode c : stats.path("job_states")) {
            String labels = "queue=" + c.path("queue").asText() + ",state=" + c.path("state").asText();
            assertThat(metrics.get("mailroom_jobs_state|" + labels)).as(labels).isEqualTo(c.path("jobs").asDouble());
        }
    }


}
