package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import dev.mailroom.testsupport.SmtpTestServer;
import java.util.Set;

/**
 * The server stopped in the middle of a batch, then started again: no job is lost and none is sent twice, counted at
 * the SMTP relay.
 *
 * <p>"Not lost" means: delivered exactly once, or (only for a job whose SMTP call had passed its point of no return,
 * the final "." of DATA, when the process died) in state {@code unknown}, where an operator sees it, and never resent
 * automatically because SMTP cannot drop a duplicate.
 */
public final class CrashScenario {

    /** How the server goes away mid-batch. */
    public enum Stop {
        /** SIGKILL, as in a crash. */
        KILL_DASH_NINE,
        /** SIGTERM, as an operator's restart or an orchestrator's rollout. */
        GRACEFUL
    }

    private CrashScenario() {
    }

    /**
     * Sends {@code jobs} jobs to {@code mail.send}, stops the server as {@code stop} says once {@code before} of them
     * reached the relay, starts it again and waits until every job is finished. At most {@code consumers} jobs (the
     * calls in flight at the stop) may end {@code unknown}.
     */
    public static void stoppedMidBatchLosesNothingAndSendsNothingTwice(Mailroom m, Stop stop, int jobs, int before,
                                                                       int consumers) {
        String prefix = Jobs.runPrefix("crash");
        List<String> ids = Jobs.ids(prefix, jobs);
        int received = m.smtp().receivedCount();

        m.jms().sendAll("mail.send", Jobs.jobs(ids));
        assertThat(m.smtp().awaitReceived(received + before, Duration.ofMinutes(3))).isTrue();
        if (stop == Stop.KILL_DASH_NINE) {
            m.server().killHard();
        } else {
            m.server().stop();
        }
        int atStop = m.smtp().receivedCount() - received;
        System.out.printf("%s: stopped the server with %d of %d jobs delivered%n", stop, atStop, jobs);
        assertThat(atStop).as("the stop must land mid-batch").isLessThan(jobs);

        long restart = System.nanoTime();
        m.server().restart();
        System.out.printf("restarted in %.1f s%n", (System.nanoTime() - restart) / 1e9);

        Map<String, String> states = awaitFinished(m, ids, stop);
        // a duplicate would need a redelivery or a retry: once nothing is on the queues (ready, scheduled or in
        // delivery), the counts below are final
        Jobs.awaitSendQueuesDrained(m.api(), Duration.ofSeconds(120));

        Map<String, Integer> counts = m.smtp().countsByMessageId();
        List<String> duplicated = ids.stream().filter(id -> counts.getOrDefault(Jobs.smtpMessageId(id), 0) > 1).toList();
        assertThat(duplicated).as("jobs delivered more than once").isEmpty();

        assertThat(Set.copyOf(states.values())).isSubsetOf(Set.of("sent_to_provider", "unknown"));
        List<String> sentButMissing = ids.stream().filter(id -> states.get(id).equals("sent_to_provider"))
                .filter(id -> counts.getOrDefault(Jobs.smtpMessageId(id), 0) != 1).toList();
        assertThat(sentButMissing).as("jobs recorded as sent but not delivered exactly once").isEmpty();
        List<String> unknown = ids.stream().filter(id -> states.get(id).equals("unknown")).toList();
        assertThat(unknown.size()).as("only calls in flight at the stop can be unknown").isLessThanOrEqualTo(consumers);
        long unknownDelivered = unknown.stream().filter(id -> counts.getOrDefault(Jobs.smtpMessageId(id), 0) == 1).count();
        System.out.printf("after restart: %d sent_to_provider, %d unknown (%d of them delivered)%n",
                jobs - unknown.size(), unknown.size(), unknownDelivered);
        for (String id : unknown) {
            assertThat(Jobs.types(m.api().getJson("/api/v1/jobs/" + id))).contains("ambiguous_not_resent");
        }
    }

    /** Waits (6 min at most) until every job is sent_to_provider or unknown, none received, sending or absent. */
    private static Map<String, String> awaitFinished(Mailroom m, List<String> ids, Stop stop) {
        Map<String, String> states = new HashMap<>();
        long deadline = System.nanoTime() + Duration.ofMinutes(6).toNanos();
        List<String> pending = new ArrayList<>(ids);
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            List<String> still = new ArrayList<>();
            for (String id : pending) {
                String state = Jobs.state(m.api(), id);
                if (state == null || state.equals("received") || state.equals("sending")) {
                    still.add(id);
                } else {
                    states.put(id, state);
                }
            }
            pending = still;
            if (!pending.isEmpty()) {
                Jobs.sleep(2000);
            }
        }
        assertThat(pending).as("jobs never finished after the restart (%s); queues: %s", stop,
                m.api().getJson("/api/v1/queues")).isEmpty();
        return states;
    }
    /**
     * {@code keys} ordering keys × 10 jobs, interleaved on {@code mail.send} with each key as its JMS group; the server
     * is killed ({@code kill -9}) once {@code before} of them reached the relay, then started again. A key whose head's
     * call was cut after its point of no return ends that head {@code unknown}, which holds the key on the IT server
     * ({@code mail.send} is set to hold): an operator releases it, as the runbook says. Then every key's mails are at
     * the relay in order, none twice, and every job sent is there once.
     */
    public static void keyedJobsKilledMidBatchKeepEveryKeyInOrder(Mailroom m, int keys, int before, int consumers) {
        String prefix = Jobs.runPrefix("crash-keys");
        List<String> bodies = new ArrayList<>();
        Map<String, String> keyOf = new HashMap<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            for (int k = 0; k < keys; k++) {
                String id = prefix + k + "." + i; // no slash: the id is a path segment of the API
                ids.add(id);
                String body = """
                        {"schema_version": 3, "message_id": "%s", "ordering_key": "%s", "from": "noreply@example.com",
                         "to": ["alice@example.com"], "subject": "Order", "text": "%s"}""".formatted(id, prefix + k, id);
                bodies.add(body);
                keyOf.put(body, prefix + k);
            }
        }
        int received = m.smtp().receivedCount();
        m.jms().sendAll("mail.send", bodies, body -> Map.of("JMSXGroupID", keyOf.get(body)));
        assertThat(m.smtp().awaitReceived(received + before, Duration.ofMinutes(3))).isTrue();
        m.server().killHard();
        int atKill = m.smtp().receivedCount() - received;
        assertThat(atKill).as("the kill must land mid-batch").isLessThan(ids.size());
        m.server().restart();

        Set<String> released = new java.util.TreeSet<>();
        Map<String, String> states = new HashMap<>();
        org.awaitility.Awaitility.await("every keyed job sent or unknown").atMost(Duration.ofMinutes(4))
                .pollInterval(Duration.ofSeconds(2)).until(() -> {
                    for (com.fasterxml.jackson.databind.JsonNode held : m.api().getJson(
                            "/api/v1/keys?state=held&queue=mail.send").path("keys")) {
                        String key = held.path("ordering_key").asText();
                        if (key.startsWith(prefix) && released.add(key)) {
                            m.api().postJson("/api/v1/keys/release?queue=mail.send&key="
                                    + java.net.URLEncoder.encode(key, java.nio.charset.StandardCharsets.UTF_8),
                                    "{\"reason\": \"its head's send is unknown: checked at the relay\"}", 200);
                        }
                    }
                    for (String id : ids) {
                        String known = states.get(id);
                        if (!"sent_to_provider".equals(known) && !"unknown".equals(known)) {
                            states.put(id, Jobs.state(m.api(), id));
                        }
                    }
                    return states.values().stream().allMatch(s -> s != null
                            && (s.equals("sent_to_provider") || s.equals("unknown")));
                });
        Jobs.awaitSendQueuesDrained(m.api(), Duration.ofSeconds(120));

        Map<String, Integer> counts = m.smtp().countsByMessageId();
        Map<String, String> idOf = new HashMap<>();
        ids.forEach(id -> idOf.put(Jobs.smtpMessageId(id), id));
        Map<String, List<Integer>> order = new HashMap<>();
        for (SmtpTestServer.ReceivedMail mail : m.smtp().received()) {
            String id = idOf.get(mail.messageId());
            if (id != null) {
                order.computeIfAbsent(id.substring(0, id.lastIndexOf('.')), x -> new ArrayList<>())
                        .add(Integer.parseInt(id.substring(id.lastIndexOf('.') + 1)));
            }
        }
        assertThat(ids).allSatisfy(id -> assertThat(counts.getOrDefault(Jobs.smtpMessageId(id), 0)).as(id)
                .isLessThanOrEqualTo(1)
                .isGreaterThanOrEqualTo(states.get(id).equals("sent_to_provider") ? 1 : 0));
        assertThat(order).allSatisfy((key, seen) -> assertThat(seen).as(key).isSorted());
        long unknown = states.values().stream().filter("unknown"::equals).count();
        assertThat(unknown).as("only calls in flight at the kill can be unknown").isLessThanOrEqualTo(consumers);
        System.out.printf("keyed kill -9: %d keys x 10 jobs, killed with %d delivered; after restart %d unknown, %d keys"
                + " released by hand; every key in order at the relay, none twice%n", keys, atKill, unknown, released.size());
    }
}
