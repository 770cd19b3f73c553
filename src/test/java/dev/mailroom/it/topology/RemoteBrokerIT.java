package dev.mailroom.it.topology;

import dev.mailroom.docs.PrometheusRules;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.AmqpProducerExample;
import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.testsupport.SmtpTestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The production topology on one node (profile {@code remote}): Mailroom on WildFly configured by configure.sh
 * with {@code MAILROOM_BROKER_URL} pointing at a replicated Artemis pair made by server-config/artemis, PostgreSQL
 * through an XA datasource. Jobs come in the way an application sends them (user {@code producer}, the pair's HA
 * URL). Counted at the SMTP server and in the database. The primary is killed last.
 */
@Tag("remote")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemoteBrokerIT {

    private final ItEnvironment env = ItEnvironment.get();

    @Test
    @Order(1)
    void jobsSentThroughTheRemoteBrokerAreSentExactlyOnce() throws Exception {
        String prefix = Jobs.runPrefix("remote");
        List<String> ids = Jobs.ids(prefix, 50);
        try (JmsClient producer = env.artemis().producerClient()) {
            producer.sendAll("mail.send", Jobs.jobs(ids));
        }
        awaitSentOnce(env.smtp(), ids, Duration.ofSeconds(90));
        assertThat(statesInDatabase(prefix)).containsExactly(Map.entry("sent_to_provider", ids.size()));
        // the figures Mailroom shows come from the remote broker's management API (RemoteBrokerQueues)
        JsonNode queues = env.api().getJson("/api/v1/queues");
        assertThat(queues.get(0).path("queue").asText()).isEqualTo("mail.send");
        assertThat(queues.get(0).path("consumers").asLong()).as("Mailroom's consumers, as the broker counts them")
                .isPositive();
        assertThat(env.api().get(ItEnvironment.HEALTH_PATH).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(2)
    void aPoisonJobIsDeadLetteredOnTheRemoteBrokerWithItsEnvelopeReadableThroughArtemisManagement() throws Exception {
        String id = Jobs.runPrefix("remote-poison") + "no-to";
        byte[] body = ("{\"schema_version\":1,\"message_id\":\"" + id + "\",\"from\":\"a@example.com\","
                + "\"subject\":\"s\",\"text\":\"t\"}").getBytes(StandardCharsets.UTF_8);
        String sha = Jobs.sha256(body);
        try (JmsClient producer = env.artemis().producerClient()) {
            producer.sendText("mail.send", new String(body, StandardCharsets.UTF_8));
        }
        ArtemisBroker broker = env.artemis().active();
        // Artemis's own management API: QueueControl.listMessages(filter) on DLQ.mail.send, over Jolokia on the
        // broker console, as an operator (the console's Browse tab shows the same)
        JsonNode messages = Awaitility.await("the poison job on DLQ.mail.send of the remote broker")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> broker.jolokia(Map.of("type", "exec", "mbean", broker.queueMBean("DLQ.mail.send"),
                                "operation", "listMessages(java.lang.String)",
                                "arguments", List.of("mr_payload_sha256 = '" + sha + "'")),
                        ArtemisBroker.ADMIN_USER, ArtemisBroker.ADMIN_PASSWORD), m -> m.size() == 1);
        JsonNode dead = messages.get(0);
        assertThat(dead.path("mr_reason").asText()).isEqualTo("poison");
        assertThat(dead.path("mr_error_type").asText()).isEqualTo("schema_violation");
        assertThat(dead.path("mr_source_queue").asText()).isEqualTo("mail.send");
        assertThat(dead.path("mr_error").asText()).isNotBlank();
        assertThat(dead.path("mr_payload_sha256").asText()).isEqualTo(sha);
        assertThat(dead.path("address").asText()).isEqualTo("DLQ.mail.send");
        // ... and the figures of the DLQ as Artemis counts them
        JsonNode count = broker.jolokia(Map.of("type", "read", "mbean", broker.queueMBean("DLQ.mail.send"),
                "attribute", "MessageCount"), ArtemisBroker.ADMIN_USER, ArtemisBroker.ADMIN_PASSWORD);
        assertThat(count.asLong()).isGreaterThanOrEqualTo(1);
        assertThat(env.api().getJson("/api/v1/queues").get(0).path("dead_letter_depth").asLong())
                .as("Mailroom reads the same DLQ depth from the remote broker").isEqualTo(count.asLong());
        assertThat(Jobs.state(env.api(), id)).isEqualTo("dead_lettered");
    }

    /**
     * The Grafana dashboard and the Prometheus alerting rules shipped for docker/compose.yaml query only what Mailroom
     * exports: every metric their queries name is on this node's Prometheus endpoint (after the jobs and the dead
     * letter above).
     */
    @Test
    @Order(3)
    void theGrafanaDashboardAndTheAlertingRulesQueryMetricsMailroomExports() throws Exception {
        String dashboard = Files.readString(Path.of("server-config/grafana/dashboards/mailroom.json"));
        java.util.Set<String> used = new java.util.TreeSet<>();
        Matcher m = Pattern.compile("mailroom_[a-z_]+").matcher(dashboard);
        while (m.find()) {
            used.add(m.group());
        }
        assertThat(used).contains("mailroom_broker_queue_depth", "mailroom_deadletter_open",
                "mailroom_deadletter_oldest_age_seconds", "mailroom_jobs_total", "mailroom_provider_breaker");
        java.util.Set<String> ruled = new java.util.TreeSet<>();
        PrometheusRules.read().forEach(r -> ruled.addAll(PrometheusRules.metrics(r.expr())));
        assertThat(ruled).contains("mailroom_queue_paused", "mailroom_deadletter_arrivals_total");
        used.addAll(ruled);
        HttpClient http = HttpClient.newHttpClient();
        URI prometheus = URI.create("http://127.0.0.1:" + env.server().managementPort() + "/prometheus");
        String exported = Awaitility.await("every dashboard and rule metric exported " + used).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> http.send(HttpRequest.newBuilder(prometheus).GET().build(),
                        HttpResponse.BodyHandlers.ofString()).body(), body -> used.stream().allMatch(
                                name -> body.contains("\n" + name + "{") || body.contains("\n" + name + " ")));
        for (String queue : List.of("mail.send", "DLQ.mail.send")) {
            assertThat(exported).as("the broker's depth of " + queue)
                    .containsPattern("(?m)^mailroom_broker_queue_depth\\{[^}]*queue=\"" + Pattern.quote(queue) + "\"");
        }
    }

    /**
     * The production broker (create-broker.sh) takes AMQP 1.0 on its acceptor from the producer user: the Node.js
     * example of docs/producers.md sends a job there, and it is sent once, like a JMS producer's.
     */
    @Test
    @Order(4)
    void theProductionBrokerTakesAJobOverAmqpFromTheProducerUser() {
        String messageId = AmqpProducerExample.send("amqp://127.0.0.1:" + env.artemis().primary().port(),
                "amqp@example.com", ArtemisBroker.PRODUCER_USER, ArtemisBroker.PRODUCER_PASSWORD);

        JsonNode job = env.api().awaitJson("/api/v1/jobs/" + messageId,
                j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(90));
        assertThat(job.path("attempt_count").asInt()).isEqualTo(1);
        assertThat(env.smtp().countsByMessageId()).containsEntry(Jobs.smtpMessageId(messageId), 1);
    }

    /** Kills the primary: the rest of this class runs on the backup. */
    @Test
    @Order(5)
    void whenThePrimaryDiesUnderLoadMailroomFailsOverToTheBackupAndNothingIsLostOrSentTwice() throws Exception {
        SmtpTestServer smtp = env.smtp();
        String prefix = Jobs.runPrefix("remote-failover");
        int jobs = 300;
        List<String> ids = Jobs.ids(prefix, jobs);
        // slow enough that the sends span the kill (4 consumers, 20 ms a mail: about 1.5 s of sending)
        smtp.setDelayBeforeReply(Duration.ofMillis(20));
        int before = smtp.receivedCount();
        try (JmsClient producer = env.artemis().producerClient()) {
            producer.sendAll("mail.send", Jobs.jobs(ids));
        }
        Awaitility.await("some of the jobs sent before the kill").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20)).until(() -> smtp.receivedCount() - before >= jobs / 10);
        int sentBeforeKill = smtp.receivedCount() - before;
        Instant kill = Instant.now();
        env.artemis().primary().killHard();
        env.artemis().backup().awaitLog("AMQ221007", Duration.ofSeconds(180)); // (the backup) Server is now active
        Duration takeover = Duration.between(kill, Instant.now());

        try {
            awaitSentOnce(smtp, ids, Duration.ofSeconds(180));
        } finally {
            smtp.setDelayBeforeReply(Duration.ZERO);
        }
        Duration recovery = Duration.between(kill, Instant.now());
        try {
            Awaitility.await("every job sent in the database").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> statesInDatabase(prefix).equals(Map.of("sent_to_provider", jobs)));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            System.err.println("[remote] timelines of the jobs not sent_to_provider:\n" + timelinesNotSent(prefix));
            throw e;
        }
        System.err.printf("[remote] failover: %d jobs, %d sent before the kill, backup active after %d ms, all sent "
                + "once %d ms after the kill%n", jobs, sentBeforeKill, takeover.toMillis(), recovery.toMillis());
        assertThat(sentBeforeKill).as("the kill came under load").isLessThan(jobs);
        // Mailroom's figures now come from the backup's console
        Awaitility.await("queue figures from the backup").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> env.api().get(ItEnvironment.HEALTH_PATH).statusCode() == 200);
    }

    /** Waits until every job of the run reached the SMTP server, then checks none arrived twice. */
    private static void awaitSentOnce(SmtpTestServer smtp, List<String> ids, Duration timeout) {
        int jobs = ids.size();
        Awaitility.await(jobs + " jobs at the SMTP server").atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> received(smtp, ids).size() >= jobs);
        Jobs.awaitSendQueuesDrained(ItEnvironment.get().api(), Duration.ofSeconds(60));
        Map<String, Integer> counts = received(smtp, ids);
        assertThat(counts).as("one mail per job").hasSize(jobs);
        assertThat(counts.values()).as("no job sent twice").allMatch(c -> c == 1);
    }

    /** Mails received per Message-ID, for this run's jobs (the SMTP provider derives it from the job's key). */
    private static Map<String, Integer> received(SmtpTestServer smtp, List<String> ids) {
        java.util.Set<String> expected = new java.util.HashSet<>();
        ids.forEach(id -> expected.add(Jobs.smtpMessageId(id)));
        Map<String, Integer> out = new java.util.HashMap<>();
        smtp.countsByMessageId().forEach((messageId, n) -> {
            if (expected.contains(messageId)) {
                out.put(messageId, n);
            }
        });
        return out;
    }

    /** The attempts and events of every job of the run that is not sent_to_provider: what an assertion failure shows. */
    private String timelinesNotSent(String prefix) throws Exception {
        StringBuilder out = new StringBuilder();
        try (java.sql.Connection c = env.postgres().connect();
             java.sql.PreparedStatement s = c.prepareStatement("""
                     select j.message_id, j.state, 'event' as what, e.at, e.type || ': ' || coalesce(e.detail, '')
                       from mail_job j join job_event e on e.job_id = j.id
                      where j.message_id like ? and j.state <> 'sent_to_provider'
                     union all
                     select j.message_id, j.state, 'attempt', a.started_at, a.attempt_number || ' jms=' || a.jms_message_id
                            || ' irrevocable=' || coalesce(cast(a.irrevocable_at as varchar), '-') || ' finished='
                            || coalesce(cast(a.finished_at as varchar), '-') || ' outcome=' || coalesce(a.outcome, '-')
                       from mail_job j join job_attempt a on a.job_id = j.id
                      where j.message_id like ? and j.state <> 'sent_to_provider'
                     order by 1, 4""")) {
            s.setString(1, prefix + "%");
            s.setString(2, prefix + "%");
            try (java.sql.ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.append(r.getString(1)).append(' ').append(r.getString(2)).append(' ').append(r.getString(3))
                            .append(' ').append(r.getString(4)).append(' ').append(r.getString(5)).append('\n');
                }
            }
        }
        return out.toString();
    }

    private Map<String, Integer> statesInDatabase(String prefix) throws Exception {
        return Jobs.statesInDatabase(env.postgres(), prefix);
    }
}
