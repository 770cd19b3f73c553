package dev.mailroom.it.redrive;

import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.RedriveScenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mailroom.it.support.ItEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A kill -9 in the middle of a redrive run, then a restart: the run is {@code interrupted}, resuming it
 * publishes the entries not yet published and none twice (counted at the SMTP server). Restarts the
 * shared server, so it is in the h2 execution's crash group.
 */
@Tag("crash")
class RedriveCrashIT {

    private final ItEnvironment env = ItEnvironment.get();
    private final RedriveScenario scenario = new RedriveScenario(env);

    @AfterEach
    void noOutage() {
        scenario.outage(false);
    }

    @Test
    void aRunKilledMidwayIsResumedAndPublishesNoEntryTwice() {
        String prefix = Jobs.runPrefix("redrive-crash");
        List<String> jobs = Jobs.ids(prefix, 20);
        Instant start = Instant.now();
        scenario.outage(true);
        Map<String, Long> dead = scenario.deadLetterJobs(jobs, "retries_exhausted", start);
        scenario.outage(false);

        ObjectNode filter = scenario.filter();
        RedriveScenario.ids(filter, dead.values());
        JsonNode plan = scenario.plan(filter, 2, 2.0);
        String id = plan.path("id").asText();
        scenario.run(id);
        scenario.await(id, r -> RedriveScenario.entries(r, "remainder").stream()
                .filter(e -> !e.path("published_at").isNull()).count() >= 6, Duration.ofSeconds(90));

        env.server().killHard();
        env.server().restart();

        JsonNode interrupted = scenario.record(id);
        assertThat(interrupted.path("status").asText()).isEqualTo("interrupted");
        long publishedBefore = RedriveScenario.entries(interrupted, null).stream()
                .filter(e -> !e.path("published_at").isNull()).count();
        assertThat(publishedBefore).isBetween(6L, 19L);
        assertThat(env.api().post("/api/v1/redrives/" + id + "/run", "").statusCode()).isEqualTo(409);

        assertThat(env.api().post("/api/v1/redrives/" + id + "/resume", "").statusCode()).isEqualTo(202);
        JsonNode record = scenario.await(id, RedriveScenario.status("completed", "stopped")
                .and(RedriveScenario.allOutcomes("sent", "unknown")), Duration.ofSeconds(150));
        assertThat(record.path("status").asText()).isEqualTo("completed");
        Set<String> jmsIds = new HashSet<>();
        RedriveScenario.entries(record, null).forEach(e -> jmsIds.add(e.path("jms_message_id").asText()));
        assertThat(jmsIds).hasSize(20);
        // sent: exactly once; unknown (the kill hit a job's own SMTP call after its point of no return,
        // which the send path then does not repeat): at most once
        Map<String, Integer> counts = env.smtp().countsByMessageId();
        Map<String, String> outcomes = RedriveScenario.outcomesByMessageId(record);
        for (String job : jobs) {
            int n = counts.getOrDefault(Jobs.smtpMessageId(job), 0);
            if (outcomes.get(job).equals("sent")) {
                assertThat(n).as("mails for %s", job).isEqualTo(1);
            } else {
                assertThat(n).as("mails for %s (unknown)", job).isLessThanOrEqualTo(1);
            }
        }
        assertThat(outcomes.values().stream().filter("sent"::equals).count()).isGreaterThanOrEqualTo(18);
        List<String> phases = record.path("phases").findValuesAsText("name");
        assertThat(phases).contains("remainder", "remainder (resumed)");
    }
}
