package dev.mailroom.it.send;

import dev.mailroom.it.support.Jobs;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.client.ScenarioMappingBuilder;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Recoverability on the real server through the HTTP API provider (WireMock on loopback, one consumer
 * session, default retry policy): one test per failure class the issue names.
 */
@Tag("http")
class RecoverabilityHttpIT {

    private static ItEnvironment env;
    private static WireMockServer http;
    private static ApiClient api;

    @BeforeAll
    static void boot() {
        env = ItEnvironment.get();
        http = env.http();
        api = env.api();
    }

    private static MappingBuilder forJob(String id) {
        return post(urlEqualTo("/messages")).withRequestBody(matchingJsonPath("$.message_id", equalTo(id)));
    }

    private static ResponseDefinitionBuilder accepted(String id) {
        return aResponse().withStatus(202).withHeader("Content-Type", "application/json")
                .withBody("{\"id\":\"prov-" + id + "\"}");
    }

    /** Stubs the answers to the job's successive calls, in order; the last one repeats. */
    private static void answers(String id, List<ResponseDefinitionBuilder> responses) {
        for (int i = 0; i < responses.size(); i++) {
            ScenarioMappingBuilder m = forJob(id).inScenario(id).whenScenarioStateIs(i == 0 ? STARTED : "call-" + i);
            if (i < responses.size() - 1) {
                m = m.willSetStateTo("call-" + (i + 1));
            }
            http.stubFor(m.willReturn(responses.get(i)));
        }
    }

    private static List<LoggedRequest> callsFor(String id) {
        return http.findAll(postRequestedFor(urlEqualTo("/messages"))
                .withRequestBody(matchingJsonPath("$.message_id", equalTo(id))));
    }

    private static JsonNode awaitState(String id, String state, Duration timeout) {
        return api.awaitJson("/api/v1/jobs/" + id, j -> state.equals(j.path("state").asText()), timeout);
    }

    @Test
    void transientFailuresAreRetriedWithinThePolicyBoundsUntilSent() {
        String id = Jobs.runPrefix("transient") + "503-503-202";
        answers(id, List.of(aResponse().withStatus(503).withBody("upstream down"),
                aResponse().withStatus(503).withBody("upstream down"), accepted(id)));
        env.jms().sendText("mail.send", Jobs.job(id));

        JsonNode job = awaitState(id, "sent_to_provider", Duration.ofSeconds(60));
        JsonNode attempts = job.path("attempts");
        assertThat(attempts).hasSize(3);
        assertThat(job.path("attempt_count").asInt()).isEqualTo(3);
        assertThat(attempts.get(0).path("failure_class").asText()).isEqualTo("transient");
        assertThat(attempts.get(1).path("failure_class").asText()).isEqualTo("transient");
        assertThat(attempts.get(2).path("outcome").asText()).isEqualTo("accepted");
        // default policy: about 5 s then about 15 s, full jitter, never below the 1 s floor
        assertThat(gap(attempts, 0, 1)).isBetween(Duration.ofMillis(900), Duration.ofSeconds(5 + 3));
        assertThat(gap(attempts, 1, 2)).isBetween(Duration.ofMillis(900), Duration.ofSeconds(15 + 3));
        assertThat(callsFor(id)).hasSize(3);
        assertThat(types(job)).contains("retry_scheduled");
    }

    @Test
    void throttlingHonoursRetryAfterAndConsumesNoAttempt() {
        String id = Jobs.runPrefix("throttled") + "429x5";
        List<ResponseDefinitionBuilder> answers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            answers.add(aResponse().withStatus(429).withHeader("Retry-After", "1").withBody("slow down"));
        }
        answers.add(accepted(id));
        answers(id, answers);
        env.jms().sendText("mail.send", Jobs.job(id));

        JsonNode job = awaitState(id, "sent_to_provider", Duration.ofSeconds(90));
        assertThat(job.path("attempts")).hasSize(6);
        assertThat(job.path("attempt_count").asInt()).as("throttles consume no attempt").isEqualTo(1);
        for (int i = 0; i < 5; i++) {
            JsonNode a = job.path("attempts").get(i);
            assertThat(a.path("failure_class").asText()).isEqualTo("throttled");
            assertThat(a.path("consumed_attempt").asBoolean()).isFalse();
        }
        assertThat(callsFor(id)).hasSize(6);
    }

    @Test
    void aTimeoutAfterTheRequestWasWrittenIsRetriedWithTheSameKey() {
        String id = Jobs.runPrefix("ambiguous") + "stall";
        // the server reads the request, then stalls past Mailroom's 2 s request timeout
        answers(id, List.of(accepted(id).withFixedDelay(6000), accepted(id)));
        env.jms().sendText("mail.send", Jobs.job(id));

        JsonNode job = awaitState(id, "sent_to_provider", Duration.ofSeconds(60));
        assertThat(job.path("attempts").get(0).path("failure_class").asText()).isEqualTo("ambiguous");
        List<LoggedRequest> calls = callsFor(id);
        assertThat(calls).hasSize(2);
        assertThat(calls).extracting(r -> r.getHeader("Idempotency-Key")).containsOnly(id);
        assertThat(job.path("idempotency_key").asText()).isEqualTo(id);
    }

    @Test
    void anUnmappedCodeIsDeadLetteredAsUnmappedError() {
        String id = Jobs.runPrefix("unmapped") + "418";
        answers(id, List.of(aResponse().withStatus(418).withBody("I'm a teapot")));
        env.jms().sendText("mail.send", Jobs.job(id));

        JsonNode job = awaitState(id, "dead_lettered", Duration.ofSeconds(60));
        assertThat(job.path("attempts")).hasSize(1);
        assertThat(job.path("attempts").get(0).path("failure_class").asText()).isEqualTo("unknown");
        JsonNode dl = api.getJson("/api/v1/dead-letters?message_id=" + id).path("items").get(0);
        assertThat(dl.path("reason").asText()).isEqualTo("unmapped_error");
        assertThat(dl.path("failure_class").asText()).isEqualTo("unknown");
        assertThat(callsFor(id)).hasSize(1);
    }

    @Test
    void aJobPastItsValidityWindowIsDiscardedWithoutAProviderCall() {
        String id = Jobs.runPrefix("expired") + "past";
        String job = Jobs.job(id).replace("\"tenant\"", "\"expires_at\": \"" + Instant.now().minusSeconds(60) + "\", \"tenant\"");
        env.jms().sendText("mail.send", job);

        JsonNode j = awaitState(id, "discarded", Duration.ofSeconds(60));
        assertThat(j.path("attempts")).isEmpty();
        assertThat(types(j)).contains("discarded");
        assertThat(callsFor(id)).isEmpty();
    }

    @Test
    void notJsonIsDeadLetteredOnItsFirstDeliveryWithoutAProviderCall() {
        String marker = Jobs.runPrefix("poison") + "bytes";
        int callsBefore = http.getAllServeEvents().size();
        env.jms().sendText("mail.send", "<<not json>> " + marker);

        JsonNode dl = api.awaitJson("/api/v1/dead-letters?reason=poison&limit=1000",
                list -> find(list.path("items"), marker) != null, Duration.ofSeconds(60));
        assertThat(find(dl.path("items"), marker).path("error_type").asText()).isEqualTo("not_json");
        assertThat(http.getAllServeEvents().size()).isEqualTo(callsBefore);
    }

    @Test
    void aJobWaitingOutALongRetryDoesNotHoldUpTheJobsBehindIt() {
        String slow = Jobs.runPrefix("waiting") + "slow";
        answers(slow, List.of(aResponse().withStatus(429).withHeader("Retry-After", "60").withBody("later"),
                accepted(slow)));
        env.jms().sendText("mail.send", Jobs.job(slow));
        api.awaitJson("/api/v1/jobs/" + slow, j -> "retry_scheduled".equals(j.path("state").asText()),
                Duration.ofSeconds(30));

        // one consumer session (MAILROOM_CONSUMERS=1): the others go through while the first waits 60 s
        List<String> behind = Jobs.ids(Jobs.runPrefix("behind"), 5);
        behind.forEach(id -> http.stubFor(forJob(id).willReturn(accepted(id))));
        long start = System.nanoTime();
        behind.forEach(id -> env.jms().sendText("mail.send", Jobs.job(id)));
        for (String id : behind) {
            awaitState(id, "sent_to_provider", Duration.ofSeconds(30));
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isLessThan(Duration.ofSeconds(30));
        assertThat(api.getJson("/api/v1/jobs/" + slow).path("state").asText()).isEqualTo("retry_scheduled");
    }

    private static JsonNode find(JsonNode deadLetters, String marker) {
        for (JsonNode s : deadLetters) {
            JsonNode full = api.getJson("/api/v1/dead-letters/" + s.path("id").asLong() + "?reveal=true");
            String payload = new String(java.util.Base64.getDecoder().decode(full.path("payload_base64").asText()),
                    java.nio.charset.StandardCharsets.UTF_8);
            if (payload.contains(marker)) {
                return full;
            }
        }
        return null;
    }

    private static Duration gap(JsonNode attempts, int from, int to) {
        return Duration.between(Instant.parse(attempts.get(from).path("finished_at").asText()),
                Instant.parse(attempts.get(to).path("started_at").asText()));
    }

    private static List<String> types(JsonNode job) {
        List<String> types = new ArrayList<>();
        job.path("timeline").forEach(e -> types.add(e.path("type").asText()));
        return types;
    }
}
