package dev.mailroom.it.resilience;

import dev.mailroom.it.support.Prometheus;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.CountingRefuser;
import dev.mailroom.testsupport.SmtpTestServer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A relay outage with jobs queued: the relay's port is taken over by a {@link CountingRefuser} (every
 * connection accepted and dropped, counted), then the relay comes back. 0 dead letters, every mail
 * received exactly once, the breaker's changes in the API, Prometheus and the alerts, and while it is
 * open at most one probe per breaker delay reaches the dead port.
 *
 * <p>Sizes: {@code mailroom.it.outage-seconds} / {@code mailroom.it.outage-jobs} (pom properties
 * {@code it.outage-seconds}, {@code it.outage-jobs}); the full scenario (the build's) is 600 s and 2,000 jobs.
 */
@Tag("breakers")
class BreakerOutageIT {

    static final String QUEUE = "mail.send.bulk"; // its chain is smtp alone; its transient budget is 1 retry
    static final Duration KNOCK_JITTER = Duration.ofMillis(500);

    @Test
    void anOutageOfAnyLengthEndsInSendsNotDeadLetters() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        Duration outage = Duration.ofSeconds(Integer.getInteger("mailroom.it.outage-seconds", 120));
        int jobs = Integer.getInteger("mailroom.it.outage-jobs", 500);
        Duration delay = ItEnvironment.BREAKER_DELAY;
        String prefix = Jobs.runPrefix("outage");
        List<String> ids = Jobs.ids(prefix, jobs);
        long dlqBefore = dlqDepth(env);
        Instant start = Instant.now();

        int port = smtp.stopListening();
        List<Instant> knocks;
        Instant openedSeen;
        Instant outageEnd = start.plus(outage);
        CountingRefuser relayDown = CountingRefuser.bind(port);
        try {
            env.jms().sendAll(QUEUE, Jobs.jobs(ids));

            JsonNode open = env.api().awaitJson("/api/v1/providers", p -> "open".equals(state(p, "smtp")),
                    Duration.ofSeconds(60));
            openedSeen = Instant.now();
            JsonNode smtpView = provider(open, "smtp");
            assertThat(smtpView.path("kind").asText()).isEqualTo("smtp");
            assertThat(smtpView.path("last_failure").asText()).isNotBlank();
            assertThat(smtpView.path("rate_limit_per_second").asDouble()).isPositive();
            Map<String, Double> metrics = Prometheus.scrape(env);
            assertThat(metrics.get("mailroom_provider_breaker|provider=smtp,state=open")).isEqualTo(1.0);
            assertThat(metrics.get("mailroom_provider_breaker|provider=smtp,state=closed")).isEqualTo(0.0);

            // the outage lasts as long as the scenario says; meanwhile nothing may be dead-lettered
            while (Instant.now().isBefore(outageEnd)) {
                assertThat(dlqDepth(env)).as("dead letters during the outage").isEqualTo(dlqBefore);
                Thread.sleep(Math.min(5000, Math.max(1, Duration.between(Instant.now(), outageEnd).toMillis())));
            }
            knocks = relayDown.connectionsSince(openedSeen);
            Duration watched = Duration.between(openedSeen, Instant.now());
            long allowed = watched.toMillis() / delay.toMillis() + 1;
            System.out.printf("[breakers] outage %s, %d jobs: %d connection attempts while open over %.1f s"
                            + " (at most %d allowed, delay %s); %d before the breaker opened%n", outage, jobs,
                    knocks.size(), watched.toMillis() / 1000.0, allowed, delay,
                    relayDown.connections().size() - knocks.size());
            assertThat(knocks.size()).as("probes reaching the dead relay while its breaker is open")
                    .isLessThanOrEqualTo((int) allowed).isGreaterThanOrEqualTo(1);
            // the knocks are stamped by the refuser's accept thread in this JVM, which a loaded machine can wake
            // late by a few hundred ms; a breaker that let probes go faster than its delay would fall short of it by
            // far more (the count above bounds the rate as well)
            for (int i = 1; i < knocks.size(); i++) {
                assertThat(Duration.between(knocks.get(i - 1), knocks.get(i)))
                        .as("gap between probes %d and %d", i - 1, i).isGreaterThanOrEqualTo(delay.minus(KNOCK_JITTER));
            }
        } finally {
            relayDown.close();
            smtp.startListening(port); // the relay is back whatever happened: the next tests need it
        }
        Instant back = Instant.now();

        Map<String, Integer> counts = Map.of();
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < deadline) {
            counts = mine(smtp, ids);
            if (counts.values().stream().allMatch(n -> n >= 1)) {
                break;
            }
            Thread.sleep(500);
        }
        System.out.printf("[breakers] %d jobs received %.1f s after the relay came back%n", jobs,
                Duration.between(back, Instant.now()).toMillis() / 1000.0);
        assertThat(counts.values()).as("copies received per job").allMatch(n -> n == 1);

        JsonNode closed = env.api().awaitJson("/api/v1/providers", p -> "closed".equals(state(p, "smtp")),
                Duration.ofSeconds(30));
        assertThat(Instant.parse(provider(closed, "smtp").path("since").asText())).isAfter(openedSeen);
        assertThat(Prometheus.scrape(env).get("mailroom_provider_breaker|provider=smtp,state=closed")).isEqualTo(1.0);
        assertThat(dlqDepth(env)).as("dead letters after the outage").isEqualTo(dlqBefore);
        for (String id : ids.subList(0, Math.min(20, ids.size()))) {
            JsonNode job = env.api().awaitJson("/api/v1/jobs/" + id,
                    j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(30));
            // a retry is used only by a failure while the breaker was still closed (before it opened): at most one
            long usedRetries = 0;
            for (JsonNode a : job.path("attempts")) {
                if (!"accepted".equals(a.path("outcome").asText()) && a.path("consumed_attempt").asBoolean()) {
                    usedRetries++;
                }
            }
            assertThat(usedRetries).as("retries used by %s", id).isLessThanOrEqualTo(1);
        }
        // opening and closing raised alerts
        assertThat(env.alerts().since(start)).anyMatch(a -> "ProviderBreaker".equals(a.label("alertname"))
                && "open".equals(a.label("state")) && "page".equals(a.label("severity")));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> env.alerts().since(start).stream()
                .anyMatch(a -> "ProviderBreaker".equals(a.label("alertname")) && "closed".equals(a.label("state"))));
    }

    static Map<String, Integer> mine(SmtpTestServer smtp, List<String> ids) {
        Map<String, Integer> all = smtp.countsByMessageId();
        Map<String, Integer> mine = new HashMap<>();
        for (String id : ids) {
            mine.put(id, all.getOrDefault(Jobs.smtpMessageId(id), 0));
        }
        return mine;
    }

    static long dlqDepth(ItEnvironment env) {
        return env.jms().depth("DLQ." + QUEUE);
    }

    static JsonNode provider(JsonNode providers, String name) {
        for (JsonNode p : providers) {
            if (name.equals(p.path("name").asText())) {
                return p;
            }
        }
        throw new AssertionError("no provider " + name + " in " + providers);
    }

    static String state(JsonNode providers, String name) {
        for (JsonNode p : providers) {
            if (name.equals(p.path("name").asText())) {
                return p.path("state").asText();
            }
        }
        return null;
    }
}
