package dev.mailroom.it.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import java.time.Duration;
import java.time.Instant;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A stopped line is recorded ({@code queue_pause}, V11) and outlives a restart of the server: the queue comes
 * back with its reason and start, its consumers are paused again, and a resume clears it. H2 (crash execution).
 */
@Tag("crash")
class PauseSurvivesRestartIT {

    private static final String BULK = "mail.send.bulk";

    @Test
    void aPausedQueueIsStillPausedAfterARestartUntilResumed() {
        ItEnvironment env = ItEnvironment.get();
        ApiClient api = env.api();
        assertThat(api.post("/api/v1/queues/" + BULK + "/pause", null).statusCode()).isEqualTo(200);
        try {
            Instant since = Instant.parse(queue(api, BULK).path("paused_since").asText());

            env.server().restart();

            JsonNode after = queue(api, BULK);
            assertThat(after.path("paused_reason").asText()).isEqualTo("operator");
            assertThat(Instant.parse(after.path("paused_since").asText())).isEqualTo(since);
            // the consumers start with the deployment; the restored line pauses them again
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queue(api, BULK).path("paused").asBoolean());
        } finally {
            assertThat(api.post("/api/v1/queues/" + BULK + "/resume", null).statusCode()).isEqualTo(200);
        }
        JsonNode resumed = queue(api, BULK);
        assertThat(resumed.path("paused").asBoolean()).isFalse();
        assertThat(resumed.hasNonNull("paused_reason")).isFalse();
    }

    private static JsonNode queue(ApiClient api, String name) {
        for (JsonNode q : api.getJson("/api/v1/queues")) {
            if (name.equals(q.path("queue").asText())) {
                return q;
            }
        }
        throw new AssertionError("no queue " + name);
    }
}
