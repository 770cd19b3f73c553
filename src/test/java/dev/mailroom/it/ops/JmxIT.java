package dev.mailroom.it.ops;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The queue MBeans ({@code mailroom:type=DeadLetters,queue=<queue>}) used the way an operator's JMX client uses
 * them: over {@code service:jmx:remote+http} on the management port with the provisioned server's
 * {@code bin/client/jboss-client.jar} and the embedded default's management user.
 */
@Tag("default-config")
class JmxIT {

    /** The embedded default's documented management user (pom.xml passes it to configure.sh). */
    static final String ADMIN_USER = "admin";
    static final String ADMIN_PASSWORD = "admin-pass";
    static final String SEND = "mail.send";
    static final String BULK = "mail.send.bulk";

    private static ItEnvironment env;
    private static ApiClient api;
    private static URLClassLoader clientLoader;
    private static JMXConnector connector;
    private static MBeanServerConnection jmx;
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void connect() throws Exception {
        env = ItEnvironment.get();
        api = env.api();
        Path jar = Path.of(System.getProperty("mailroom.it.server-home"), "bin", "client", "jboss-client.jar");
        assertThat(jar).exists();
        // the WildFly client alone, beside the JDK: nothing of the test class path leaks into it
        clientLoader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        Map<String, Object> environment = new HashMap<>();
        environment.put(JMXConnectorFactory.PROTOCOL_PROVIDER_CLASS_LOADER, clientLoader);
        environment.put(JMXConnector.CREDENTIALS, new String[] {ADMIN_USER, ADMIN_PASSWORD});
        JMXServiceURL url = new JMXServiceURL("service:jmx:remote+http://127.0.0.1:" + env.server().managementPort());
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(clientLoader);
        try {
            connector = JMXConnectorFactory.connect(url, environment);
            jmx = connector.getMBeanServerConnection();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @AfterAll
    static void disconnect() throws Exception {
        if (connector != null) {
            connector.close();
        }
        if (clientLoader != null) {
            clientLoader.close();
        }
    }

    @Test
    void everySendQueueHasItsMBean() throws Exception {
        Set<ObjectName> names = jmx.queryNames(new ObjectName("mailroom:type=DeadLetters,*"), null);
        assertThat(names).contains(name(SEND), name(BULK));
        assertThat(jmx.getAttribute(name(SEND), "Queue")).isEqualTo(SEND);
        assertThat(jmx.getAttribute(name(BULK), "Queue")).isEqualTo(BULK);
        for (ObjectName n : names) {
            assertThat(jmx.getAttribute(n, "Depth")).isInstanceOf(Long.class);
            assertThat(jmx.getAttribute(n, "OpenDeadLetters")).isInstanceOf(Long.class);
            assertThat(jmx.getAttribute(n, "OldestOpenAgeSeconds")).isInstanceOf(Long.class);
            assertThat(jmx.getAttribute(n, "ConsumersPaused")).isEqualTo(false);
        }
    }

    @Test
    void everyProviderHasABreakerMBeanThatAgreesWithTheApi() throws Exception {
        JsonNode providers = ItEnvironment.get().api().getJson("/api/v1/providers");
        assertThat(providers.size()).isGreaterThan(0);
        for (JsonNode p : providers) {
            ObjectName name = new ObjectName("mailroom:type=ProviderBreaker,provider=" + p.path("name").asText());
            assertThat(jmx.isRegistered(name)).as("MBean %s", name).isTrue();
            assertThat(jmx.getAttribute(name, "Provider")).isEqualTo(p.path("name").asText());
            assertThat(jmx.getAttribute(name, "Kind")).isEqualTo(p.path("kind").asText());
            assertThat(jmx.getAttribute(name, "BreakerState")).isEqualTo(p.path("state").asText());
        }
    }

    @Test
    void attributesAgreeWithTheApiAndADeadLetterIsDiscardedThroughJmx() throws Exception {
        long newestBefore = newestDeadLetterId();
        api.awaitJson("/api/v1/dead-letters/stats", s -> true, Duration.ofSeconds(30));
        env.jms().sendText(SEND, "this is not JSON " + UUID.randomUUID());

        // the poison message is dead-lettered: a row, and a message on DLQ.mail.send
        JsonNode row = awaitNewDeadLetter(newestBefore);
        long id = row.path("id").asLong();
        assertThat(row.path("status").asText()).isEqualTo("open");
        assertThat((Long) jmx.getAttribute(name(SEND), "Depth")).isGreaterThanOrEqualTo(1);
        assertThat((Long) jmx.getAttribute(name(SEND), "OpenDeadLetters")).isGreaterThanOrEqualTo(1);

        // the same figures as the API: its stats snapshot (refreshed every monitor interval) and the queues view
        await("JMX OpenDeadLetters equals the open mail.send dead letters of GET /dead-letters/stats", () -> {
            JsonNode stats = api.getJson("/api/v1/dead-letters/stats");
            return openOf(stats, SEND) == attribute(SEND, "OpenDeadLetters");
        }, Duration.ofSeconds(40));
        JsonNode stats = api.getJson("/api/v1/dead-letters/stats");
        Instant oldest = oldestOf(stats, SEND);
        assertThat(oldest).isNotNull();
        long expectedAge = Duration.between(oldest, Instant.now()).getSeconds();
        assertThat(attribute(SEND, "OldestOpenAgeSeconds")).isBetween(expectedAge - 5, expectedAge + 5);
        await("JMX Depth equals dead_letter_depth of GET /queues", () ->
                queueView(SEND).path("dead_letter_depth").asLong() == attribute(SEND, "Depth"), Duration.ofSeconds(10));

        // discard through JMX: the API shows it discarded by "jmx" with the reason
        String answer = (String) jmx.invoke(name(SEND), "discard", new Object[] {id, "JmxIT: not a job"},
                new String[] {"long", String.class.getName()});
        assertThat(JSON.readTree(answer).path("status").asText()).isEqualTo("discarded");
        JsonNode discarded = api.getJson("/api/v1/dead-letters/" + id);
        assertThat(discarded.path("status").asText()).isEqualTo("discarded");
        JsonNode last = discarded.path("history").get(discarded.path("history").size() - 1);
        assertThat(last.path("to_status").asText()).isEqualTo("discarded");
        assertThat(last.path("actor").asText()).isEqualTo("jmx");
        assertThat(last.path("reason").asText()).isEqualTo("JmxIT: not a job");

        // a second discard is refused, and the JMX client is told why
        String refusal = failure(() -> jmx.invoke(name(SEND), "discard", new Object[] {id, "again"},
                new String[] {"long", String.class.getName()}));
        assertThat(refusal).contains("IllegalArgumentException").contains("refused (conflict")
                .contains("only an open one can be discarded");
        // an entry of another queue is not this MBean's to discard
        String otherQueue = failure(() -> jmx.invoke(name(BULK), "discard", new Object[] {id, "wrong queue"},
                new String[] {"long", String.class.getName()}));
        assertThat(otherQueue).contains("refused (conflict other_queue)");
    }

    @Test
    void unknownSendActionsReachTheCoreAndRefuseAJobThatIsNotUnknown() throws Exception {
        String id = Jobs.runPrefix("jmx-unknown") + "sent";
        env.jms().sendText(SEND, Jobs.job(id));
        api.awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(60));
        String[] signature = {String.class.getName(), String.class.getName()};
        assertThat(failure(() -> jmx.invoke(name(SEND), "markSent", new Object[] {id, "JmxIT"}, signature)))
                .contains("refused (conflict not_unknown)");
        assertThat(failure(() -> jmx.invoke(name(SEND), "sendAgain", new Object[] {id, "JmxIT"}, signature)))
                .contains("refused (conflict not_unknown)");
        assertThat(failure(() -> jmx.invoke(name(SEND), "markSent", new Object[] {id, " "}, signature)))
                .contains("refused (invalid reason_required)");
        assertThat(failure(() -> jmx.invoke(name(BULK), "markSent", new Object[] {id, "JmxIT"}, signature)))
                .as("a job of another queue is not this MBean's").contains("refused (not_found job_not_found)");
        assertThat(api.getJson("/api/v1/jobs/" + id).path("state").asText()).isEqualTo("sent_to_provider");
    }

    @Test
    void anAddressIsErasedThroughJmxAsThroughTheApiAndASecondErasureIsANoOp() throws Exception {
        ObjectName erasures = new ObjectName("mailroom:type=Erasures");
        String[] signature = {String.class.getName(), String.class.getName()};
        String id = Jobs.runPrefix("jmx-erase") + "job";
        String address = id + "@example.com";
        env.jms().sendText(SEND, Jobs.jobTo(id, java.util.List.of(address)));
        api.awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(60));

        assertThat(failure(() -> jmx.invoke(erasures, "erase", new Object[] {address, "forget " + address}, signature)))
                .contains("refused (invalid reason_names_address)");
        JsonNode record = JSON.readTree((String) jmx.invoke(erasures, "erase", new Object[] {address, "JmxIT request"},
                signature));
        assertThat(record.path("requested_by").asText()).isEqualTo("jmx");
        assertThat(record.path("no_op").asBoolean()).isFalse();
        assertThat(record.path("counts").path("mail_job.deleted").asInt()).isEqualTo(1);
        assertThat(record.toString()).doesNotContain(address);
        assertThat(Jobs.state(api, id)).as("the job to the address is gone").isNull();

        JsonNode again = JSON.readTree((String) jmx.invoke(erasures, "erase", new Object[] {address, "JmxIT again"},
                signature));
        assertThat(again.path("no_op").asBoolean()).isTrue();
        assertThat(again.path("id").asLong()).isEqualTo(record.path("id").asLong());
        JsonNode recent = JSON.readTree((String) jmx.invoke(erasures, "recent", new Object[] {10},
                new String[] {"int"}));
        assertThat(recent.findValues("id")).extracting(JsonNode::asLong).contains(record.path("id").asLong());
        assertThat(failure(() -> jmx.invoke(erasures, "recent", new Object[] {0}, new String[] {"int"})))
                .contains("refused (invalid invalid_limit)");
    }

    @Test
    void pausedConsumersLeaveJobsOnTheQueueUntilResumed() throws Exception {
        String id = Jobs.runPrefix("jmx-pause") + "job";
        jmx.invoke(name(SEND), "pauseConsumers", new Object[0], new String[0]);
        try {
            assertThat(jmx.getAttribute(name(SEND), "ConsumersPaused")).isEqualTo(true);
            assertThat(jmx.getAttribute(name(SEND), "PausedReason")).isEqualTo("operator");
            assertThat(Instant.parse((String) jmx.getAttribute(name(SEND), "PausedSince"))).isBefore(Instant.now().plusSeconds(1));
            assertThat(queueView(SEND).path("paused").asBoolean()).isTrue();
            assertThat(queueView(SEND).path("paused_reason").asText()).isEqualTo("operator");
            assertThat(queueView(BULK).path("paused").asBoolean()).isFalse();

            env.jms().sendText(SEND, Jobs.job(id));
            // a later job on the queue that is not paused is received and sent: the consumers are working,
            // and the one on the paused queue was sent before it
            String later = Jobs.runPrefix("jmx-pause-bulk") + "job";
            env.jms().sendText(BULK, Jobs.job(later));
            api.awaitJson("/api/v1/jobs/" + later, j -> "sent_to_provider".equals(j.path("state").asText()),
                    Duration.ofSeconds(60));
            assertThat(Jobs.state(api, id)).as("a job sent while paused is not received").isNull();
            assertThat(sandboxHas(id)).isFalse();
            JsonNode waiting = queueView(SEND);
            assertThat(waiting.path("depth").asLong()).as("still on the queue").isGreaterThanOrEqualTo(1);
            assertThat(waiting.path("in_flight").asLong()).as("and not being delivered").isZero();
        } finally {
            jmx.invoke(name(SEND), "resumeConsumers", new Object[0], new String[0]);
        }
        assertThat(jmx.getAttribute(name(SEND), "ConsumersPaused")).isEqualTo(false);
        assertThat(jmx.getAttribute(name(SEND), "PausedReason")).isEqualTo("");
        assertThat(queueView(SEND).path("paused").asBoolean()).isFalse();
        assertThat(queueView(SEND).hasNonNull("paused_reason")).isFalse();
        api.awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()),
                Duration.ofSeconds(60));
        assertThat(sandboxHas(id)).isTrue();
    }

    @Test
    void theApiPausesAndResumesToo() throws Exception {
        HttpResponse<String> paused = api.post("/api/v1/queues/" + BULK + "/pause", null);
        try {
            assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
            assertThat(JSON.readTree(paused.body()).path("paused").asBoolean()).isTrue();
            assertThat(jmx.getAttribute(name(BULK), "ConsumersPaused")).isEqualTo(true);
            assertThat(jmx.getAttribute(name(SEND), "ConsumersPaused")).isEqualTo(false);
        } finally {
            HttpResponse<String> resumed = api.post("/api/v1/queues/" + BULK + "/resume", null);
            assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
            assertThat(JSON.readTree(resumed.body()).path("paused").asBoolean()).isFalse();
        }
        assertThat(jmx.getAttribute(name(BULK), "ConsumersPaused")).isEqualTo(false);

        // pausing is an operator's action
        HttpResponse<String> byViewer = api.asViewer().post("/api/v1/queues/" + BULK + "/pause", null);
        assertThat(byViewer.statusCode()).isEqualTo(403);
        assertThat(jmx.getAttribute(name(BULK), "ConsumersPaused")).isEqualTo(false);

        HttpResponse<String> unknown = api.post("/api/v1/queues/no.such.queue/pause", null);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(unknown.body()).path("error").asText()).isEqualTo("queue_not_found");
    }

    @Test
    void redrivesArePlannedAndRunThroughJmx() throws Exception {
        // a filter naming another queue, or not JSON, is refused before the facade is asked
        String otherQueue = failure(() -> jmx.invoke(name(SEND), "planRedrive",
                new Object[] {"{\"queue\": \"" + BULK + "\"}"}, new String[] {String.class.getName()}));
        assertThat(otherQueue).contains("refused (invalid invalid_filter)");
        String notJson = failure(() -> jmx.invoke(name(SEND), "planRedrive", new Object[] {"reason=poison"},
                new String[] {String.class.getName()}));
        assertThat(notJson).contains("refused (invalid invalid_filter)");

        // a plan that touches one fresh poison message only: discard it (a discard plan completes when run)
        long newestBefore = newestDeadLetterId();
        env.jms().sendText(SEND, "redrive me not " + UUID.randomUUID());
        long id = awaitNewDeadLetter(newestBefore).path("id").asLong();
        String request = """
                {"action": "discard", "filter": {"ids": [%d]}, "reason": "JmxIT: discard plan"}""".formatted(id);
        String plan = (String) jmx.invoke(name(SEND), "planRedrive", new Object[] {request},
                new String[] {String.class.getName()});
        JsonNode planned = JSON.readTree(plan);
        assertThat(planned.path("status").asText()).isEqualTo("planned");
        assertThat(planned.path("action").asText()).isEqualTo("discard");
        assertThat(planned.path("filter").path("queue").asText()).isEqualTo(SEND);
        assertThat(planned.path("cohort").path("count").asInt()).isEqualTo(1);
        assertThat(api.getJson("/api/v1/dead-letters/" + id).path("status").asText()).isEqualTo("open");
        String planId = planned.path("id").asText();
        JsonNode record = JSON.readTree((String) jmx.invoke(name(SEND), "redriveRecord", new Object[] {planId},
                new String[] {String.class.getName()}));
        assertThat(record.path("id").asText()).isEqualTo(planId);
        assertThat(record.path("status").asText()).isEqualTo("planned");
        JsonNode run = JSON.readTree((String) jmx.invoke(name(SEND), "runRedrive", new Object[] {planId},
                new String[] {String.class.getName()}));
        assertThat(run.path("id").asText()).isEqualTo(planId);
        assertThat(run.path("status").asText()).isEqualTo("completed");
        JsonNode discarded = api.getJson("/api/v1/dead-letters/" + id);
        assertThat(discarded.path("status").asText()).isEqualTo("discarded");
        JsonNode history = discarded.path("history");
        assertThat(history.get(history.size() - 1).path("actor").asText()).isEqualTo("jmx");
        // a plan is run from its own queue's MBean only
        String elsewhere = failure(() -> jmx.invoke(name(BULK), "runRedrive", new Object[] {planId},
                new String[] {String.class.getName()}));
        assertThat(elsewhere).contains("refused (conflict other_queue)");
        // unknown plans are refused with the facade's reason
        assertThat(failure(() -> jmx.invoke(name(SEND), "redriveRecord", new Object[] {"no-such-plan"},
                new String[] {String.class.getName()}))).contains("IllegalArgumentException").contains("refused (not_found");
        assertThat(failure(() -> jmx.invoke(name(SEND), "runRedrive", new Object[] {"no-such-plan"},
                new String[] {String.class.getName()}))).contains("refused (not_found");
    }

    // ------------------------------------------------------------------ helpers

    private static ObjectName name(String queue) throws Exception {
        return new ObjectName("mailroom:type=DeadLetters,queue=" + queue);
    }

    private static long attribute(String queue, String attribute) {
        try {
            return (Long) jmx.getAttribute(name(queue), attribute);
        } catch (Exception e) {
            throw new AssertionError("reading " + attribute + " of " + queue + " failed: " + messages(e), e);
        }
    }

    private static JsonNode queueView(String queue) {
        for (JsonNode q : api.getJson("/api/v1/queues")) {
            if (queue.equals(q.path("queue").asText())) {
                return q;
            }
        }
        throw new AssertionError("GET /api/v1/queues has no " + queue);
    }

    private static long openOf(JsonNode stats, String queue) {
        long open = 0;
        for (JsonNode g : stats.path("open")) {
            if (queue.equals(g.path("queue").asText())) {
                open += g.path("open").asLong();
            }
        }
        return open;
    }

    private static Instant oldestOf(JsonNode stats, String queue) {
        Instant oldest = null;
        for (JsonNode g : stats.path("open")) {
            if (queue.equals(g.path("queue").asText()) && g.hasNonNull("oldest_failed_at")) {
                Instant at = Instant.parse(g.path("oldest_failed_at").asText());
                oldest = oldest == null || at.isBefore(oldest) ? at : oldest;
            }
        }
        return oldest;
    }

    private static long newestDeadLetterId() {
        JsonNode items = api.getJson("/api/v1/dead-letters?queue=" + SEND + "&limit=1").path("items");
        return items.isEmpty() ? 0 : items.get(0).path("id").asLong();
    }

    private static JsonNode awaitNewDeadLetter(long newestBefore) {
        JsonNode page = api.awaitJson("/api/v1/dead-letters?queue=" + SEND + "&reason=poison&limit=1",
                p -> !p.path("items").isEmpty() && p.path("items").get(0).path("id").asLong() > newestBefore,
                Duration.ofSeconds(60));
        return api.getJson("/api/v1/dead-letters/" + page.path("items").get(0).path("id").asLong());
    }

    private static boolean sandboxHas(String messageId) {
        for (JsonNode m : api.getJson("/api/v1/sandbox/messages?limit=1000")) {
            if (messageId.equals(m.path("message_id").asText())) {
                return true;
            }
        }
        return false;
    }

    /** Runs a JMX call that must fail; returns the messages of the exception and its causes. */
    private static String failure(Callable<?> call) {
        try {
            Object result = call.call();
            return fail("expected the JMX call to fail, it answered " + result);
        } catch (Exception e) {
            return messages(e);
        }
    }

    private static String messages(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null && out.length() < 4000; t = t.getCause()) {
            out.append(t).append(" | ");
        }
        return out.toString();
    }

    private static void await(String what, BooleanSupplier condition, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                fail(what + ": not within " + timeout.toSeconds() + " s");
            }
            Jobs.sleep(500);
        }
    }
}
