package dev.mailroom.it.resilience;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code mail.send}'s chain is relay-a (primary), then smtp. A primary that refuses connections: every
 * job is sent through the secondary exactly once. A primary that times out after the final ".": the job
 * is not failed over (it may be at the primary).
 */
@Tag("breakers")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailoverIT {

    static final String QUEUE = "mail.send";
    static final int JOBS = 40;

    @Test
    @Order(1)
    void aPrimaryRefusingConnectionsSendsEveryJobThroughTheSecondaryOnce() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer primary = env.primaryRelay();
        SmtpTestServer secondary = env.smtp();
        List<String> ids = Jobs.ids(Jobs.runPrefix("failover"), JOBS);
        int port = primary.stopListening();
        try {
            env.jms().sendAll(QUEUE, Jobs.jobs(ids));
            org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                    .until(() -> BreakerOutageIT.mine(secondary, ids).values().stream().allMatch(n -> n >= 1));
            // the last one arrived: every job is sent_to_provider through smtp, and nothing else is still coming
            for (String id : ids) {
                JsonNode job = env.api().awaitJson("/api/v1/jobs/" + id,
                        j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(30));
                assertThat(job.path("provider").asText()).as(id).isEqualTo("smtp");
                JsonNode attempts = job.path("attempts");
                JsonNode last = attempts.get(attempts.size() - 1);
                assertThat(last.path("provider").asText()).isEqualTo("smtp");
                for (int i = 0; i < attempts.size() - 1; i++) {
                    // whatever came before went to the primary and never passed the point of no return
                    assertThat(attempts.get(i).path("provider").asText()).isEqualTo(ItEnvironment.PRIMARY_RELAY);
                    assertThat(attempts.get(i).path("irrevocable_at").isNull()).as("attempt %d of %s", i, job).isTrue();
                    assertThat(attempts.get(i).path("consumed_attempt").asBoolean()).as("attempt %d of %s", i, job).isFalse();
                }
            }
            Map<String, Integer> counts = BreakerOutageIT.mine(secondary, ids);
            assertThat(counts.values()).as("copies per job at the secondary").allMatch(n -> n == 1);
            assertThat(BreakerOutageIT.state(env.api().getJson("/api/v1/providers"), ItEnvironment.PRIMARY_RELAY))
                    .isIn("open", "half_open");
        } finally {
            primary.startListening(port);
        }
        assertThat(BreakerOutageIT.mine(primary, ids).values()).allMatch(n -> n == 0);
    }

    @Test
    @Order(2)
    void aPrimaryTimingOutAfterTheFinalDotIsNotFailedOver() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer primary = env.primaryRelay();
        SmtpTestServer secondary = env.smtp();
        // the primary is back; its breaker lets a probe through once the delay has passed
        env.api().awaitJson("/api/v1/providers",
                p -> List.of("half_open", "closed").contains(BreakerOutageIT.state(p, ItEnvironment.PRIMARY_RELAY)),
                Duration.ofSeconds(30));
        primary.setDelayBeforeReply(Duration.ofSeconds(4)); // read timeout of relay-a: 2 s
        try {
            String id = Jobs.runPrefix("slow-primary") + "-1";
            env.jms().sendText(QUEUE, Jobs.job(id));
            // the call times out after the dot: ambiguous on a provider that cannot drop a duplicate, so unknown
            // (admission's one rule), and never failed over to the secondary
            JsonNode job = env.api().awaitJson("/api/v1/jobs/" + id, j -> "unknown".equals(j.path("state").asText())
                    || j.path("attempts").size() >= 2, Duration.ofSeconds(60));
            assertThat(job.path("state").asText()).isEqualTo("unknown");
            assertThat(job.path("attempts")).hasSize(1);
            assertThat(job.path("attempts").get(0).path("provider").asText()).isEqualTo(ItEnvironment.PRIMARY_RELAY);
            assertThat(job.path("attempts").get(0).path("failure_class").asText()).isEqualTo("ambiguous");
            assertThat(job.path("attempts")).allMatch(a -> ItEnvironment.PRIMARY_RELAY.equals(a.path("provider").asText()));
            assertThat(primary.awaitReceived(1, Duration.ofSeconds(10))).isTrue();
            assertThat(secondary.countsByMessageId()).doesNotContainKey(Jobs.smtpMessageId(id));
        } finally {
            primary.setDelayBeforeReply(Duration.ZERO);
        }
    }
}
